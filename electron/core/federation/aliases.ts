// "Also known as": the author's old accounts, which the actor document lists in `alsoKnownAs`
// so that an old account may Move its followers here (reference §1, "Move in"; Mastodon checks
// the new account names the old one before it sends the Move). The author types handles or
// URLs; each is resolved to its actor id through the app's look-up (WebFinger, the safe client,
// the actor cache), so what is published is the id the old server will compare.
import { BadInputError, TernError, UnavailableError } from '../errors';
import { lookup, type LookupDeps } from './lookup';
import { withoutTrailingSlashes } from '../trailing-slashes';

const same = (a: string, b: string) => withoutTrailingSlashes(a) === withoutTrailingSlashes(b);

/** Actor ids for these handles or URLs, in order, without duplicates. Throws the first failure
 * with the entry named (BadInputError when it can never work, UnavailableError when later may). */
export async function resolveAliases(deps: LookupDeps, entries: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const entry of entries) {
    const query = entry.trim();
    let found;
    try {
      found = await lookup(deps, query);
    } catch (error) {
      if (!(error instanceof TernError)) throw error;
      const reason = `“${query}” could not be resolved to an account: ${error.message}`;
      throw error instanceof UnavailableError ? new UnavailableError(`${reason} Try again when it answers.`) : new BadInputError(reason);
    }
    if (found.kind !== 'actor') throw new BadInputError(`“${query}” is a post, not an account.`);
    const id = found.actor.apId;
    if (!ids.some((known) => same(known, id))) ids.push(id);
  }
  return ids;
}
