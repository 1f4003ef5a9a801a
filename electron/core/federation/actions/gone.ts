// A delivery answered 410 Gone: a sign that the actor behind that inbox is gone (the service
// behind the spec gives up on the row and keeps the actor as a follower; reference §13, §14).
// A sign, not a proof: a shared inbox answers for a whole server, and a server can answer 410
// for a path it moved. So the actors whose own inbox this is, and who follow or are followed,
// are looked up at their own address: an actor that is 404, 410 or a Tombstone there is gone,
// and leaves the followers and the following, as it would with the Delete its server sends
// (process/delete.ts) — which a laptop with its listener off never receives. An actor still
// there is left as it is, and not asked again for a day.
import { prepared, type Db } from '../../../../db/client';
import type { FederationContext } from '../../ports';
import { fetchActivityDocument } from '../../net/document-fetch';
import { typeOf } from '../ap';
import { readDocument } from '../read-document';
import { forgetActorRelations } from '../process/delete';
import { UNCHECKED_ACTOR_DATE } from '../actors';

export interface GoneCheckDeps {
  db: Db;
  fed: Pick<FederationContext, 'client' | 'keys' | 'signingKeyId'>;
  clock: () => Date;
  log: (line: string) => void;
}

/** An actor found at its address is not asked again for this long. */
export const ALIVE_RECHECK_MS = 24 * 60 * 60_000;
/** Actors remembered as found (oldest forgotten first). */
const ALIVE_REMEMBERED = 1_000;
/** Actors looked up for one inbox at most (an inbox is one actor's; this bounds a strange one). */
const ACTORS_PER_INBOX = 8;

// The actor's own inbox, as inboxOf reads it (an IRI, or an object with an id); only actors who
// follow or are followed: nothing is to be cleaned up for the others (and only their documents
// are read, not the whole actor table's).
const ACTORS_OF_INBOX_SQL =
  'SELECT a.id, a.ap_id AS apId FROM actor a' +
  ' WHERE a.id IN (SELECT actor_id FROM follower UNION SELECT actor_id FROM following)' +
  " AND coalesce(json_extract(a.ap_actor, '$.inbox.id'), json_extract(a.ap_actor, '$.inbox')) = ?" +
  ` LIMIT ${ACTORS_PER_INBOX}`;

type Verdict = { gone: true; why: string } | { gone: false; found: boolean };

/** What the actor's own address says: gone (404, 410, a Tombstone), found, or nothing certain. */
async function lookAt(fed: GoneCheckDeps['fed'], apId: string): Promise<Verdict> {
  let status: number;
  let text: string;
  try {
    // Signed when refused unsigned: an account of a server in authorized-fetch mode answers an
    // unsigned GET 401 whether it is there or gone.
    ({ response: { status }, text } = await fetchActivityDocument(fed, apId));
  } catch {
    return { gone: false, found: false };
  }
  if (status === 404 || status === 410) return { gone: true, why: `its profile answers HTTP ${status}` };
  if (status < 200 || status >= 300) return { gone: false, found: false };
  const reading = await readDocument(text);
  if (reading.ok && typeOf(reading.doc) === 'Tombstone') return { gone: true, why: 'its profile is a Tombstone' };
  return { gone: false, found: reading.ok };
}

/** The check the delivery loop runs after a 410 (delivery/loop.ts `gone`), with its memory of
 * the actors found. */
export function createGoneCheck(deps: GoneCheckDeps): (recipient: string) => Promise<void> {
  const found = new Map<number, number>();
  const asking = new Set<number>();
  return async (recipient) => {
    const actors = prepared<[string], { id: number; apId: string }>(deps.db, ACTORS_OF_INBOX_SQL).all(recipient);
    for (const actor of actors) {
      const at = found.get(actor.id);
      if (asking.has(actor.id) || (at !== undefined && deps.clock().getTime() - at < ALIVE_RECHECK_MS)) continue;
      asking.add(actor.id);
      try {
        const verdict = await lookAt(deps.fed, actor.apId);
        if (verdict.gone) {
          const removed = deps.db.transaction((tx) => {
            // Its stored document no longer stands: fetched again before any use, and its keys
            // are not believed without a fetch (stored-keys.ts).
            prepared(tx, 'UPDATE actor SET updated_at = ? WHERE id = ?').run(UNCHECKED_ACTOR_DATE.toISOString(), actor.id);
            return forgetActorRelations(tx, actor, deps.clock());
          });
          found.delete(actor.id);
          deps.log(`${actor.apId} is gone (its inbox answered 410 and ${verdict.why}): removed from followers (${removed.followers}) and following (${removed.following})`);
        } else if (verdict.found) {
          found.delete(actor.id);
          found.set(actor.id, deps.clock().getTime());
          if (found.size > ALIVE_REMEMBERED) found.delete(found.keys().next().value!);
        }
      } finally {
        asking.delete(actor.id);
      }
    }
  };
}
