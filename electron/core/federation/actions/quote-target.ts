// The post the author quotes, looked up before a quote post is written: stored, else fetched
// (and stored) when online. Only a public or unlisted post may be quoted — FEP-044f leaves a
// followers-only or direct post's quote policy to its author alone, as Mastodon 4.5 forces it
// ("nobody"), and quoting one would show it to people it was not written for.
import { eq } from 'drizzle-orm';
import { actor } from '../../../../db/schema';
import { BadInputError, NotFoundError, UnavailableError } from '../../errors';
import { inboxOf, type Json } from '../ap';
import type { LocalActor } from '../identity';
import { findOrFetchObject } from '../lookup';
import { isPostType } from '../outbox';
import type { ActionDeps } from './deps';

/** A quote the author may not make (the post is followers-only, direct, deleted, not a post). */
export class QuoteRefusedError extends BadInputError {
  override name = 'QuoteRefusedError';
}

export interface QuoteTarget {
  apId: string;
  /** The quoted post is the author's own: nobody to ask. */
  own: boolean;
  /** Its author, when someone else: the QuoteRequest goes to their own inbox. */
  author: { apId: string; rowId: number; inbox: string | null } | null;
  /** Its inbox row, when someone else's. */
  inboxRowId: number | null;
}

const LOOKUP_MS = 5_000;

export async function findQuoteTarget(deps: ActionDeps, local: LocalActor, apId: string): Promise<QuoteTarget> {
  const lookupDeps = { db: deps.db, fed: deps.fed, clock: deps.clock, local, isOnline: deps.isOnline };
  const found = await Promise.race([
    findOrFetchObject(lookupDeps, apId),
    new Promise<never>((_, reject) => setTimeout(() => reject(new UnavailableError(`The server of ${apId} did not answer in time; try again.`)), LOOKUP_MS).unref()),
  ]);
  if (found.kind === 'actor') throw new QuoteRefusedError('That is an account, not a post: only posts can be quoted.');
  const row = found.row;
  if (row.isDeleted) throw new QuoteRefusedError('That post was deleted: it can no longer be quoted.');
  if (row.visibility === 'FOLLOWERS_ONLY' || row.visibility === 'DIRECT') {
    const which = row.visibility === 'DIRECT' ? 'a direct message' : 'a followers-only post';
    throw new QuoteRefusedError(`That is ${which}: only public and unlisted posts can be quoted.`);
  }
  if (found.kind === 'own') {
    if (!isPostType(row.apType) || row.isTransient) throw new QuoteRefusedError('That is not a post: only posts can be quoted.');
    return { apId: row.apId, own: true, author: null, inboxRowId: null };
  }
  const author = deps.db.select().from(actor).where(eq(actor.id, found.row.actorId)).get();
  if (author === undefined) throw new NotFoundError(`The author of ${apId} is unknown.`);
  return {
    apId: row.apId,
    own: false,
    author: { apId: author.apId, rowId: author.id, inbox: inboxOf(author.apActor as Json, false) },
    inboxRowId: found.row.id,
  };
}
