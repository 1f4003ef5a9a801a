// Actor documents the inbox already fetched, handed to the processor with the row. Verifying a
// new actor's first activity fetches its key, and on most servers the key lives in the actor's
// own document (https://host/users/alice#main-key): the listener then holds the very document
// the processor would fetch again a moment later to store the actor. It goes with the row
// instead (as the LD verdicts do, embedded-verdicts.ts), and the processor takes it once, within
// a minute, checked exactly as a document it fetched itself (actors.ts checkActorDocument).
// In memory only, per connection, bounded: after a restart or past the bound the processor just
// fetches. Nothing a peer sends puts an entry here: only documents Tern's own client fetched from
// the actor's own URL while verifying its signature.
import { sqliteOf, type DbOrTx } from '../../../db/client';
import type { DocumentLoader } from '@fedify/vocab-runtime';
import { ACTOR_TYPES, isObject, str, typeOf, type Json } from './ap';
import { withoutTrailingSlashes, withoutFragment } from '../trailing-slashes';

/** What the processor is handed: the document, and the URL it was finally served from. */
export interface FetchedActor {
  document: Json;
  documentUrl: string;
  /** When it was fetched (epoch ms). */
  at: number;
}

const KEPT = 256;
/** A larger document is not kept (the processor fetches it): real actors are a few KB, and
 * what is kept must stay small whatever peers serve (the client accepts up to 2 MiB). */
export const FETCHED_ACTOR_MAX_CHARS = 64 * 1024;
/** Older than this, the processor fetches again (the actor may have changed since). */
export const FETCHED_ACTOR_TTL_MS = 60_000;
const kept = new WeakMap<object, Map<string, FetchedActor>>();
const bare = (id: string) => withoutTrailingSlashes(withoutFragment(id));

/**
 * Files `value` under the actor's bare id in `store`'s map for `db`'s connection, newest last,
 * then drops from the oldest end what `stale` says is out of date and what is over KEPT. Not
 * kept: a document without an id, or over FETCHED_ACTOR_MAX_CHARS.
 */
function keepBounded<V>(store: WeakMap<object, Map<string, V>>, db: DbOrTx, actor: FetchedActor, value: V, stale: (older: V) => boolean): void {
  const id = str(actor.document.id);
  if (id === null || JSON.stringify(actor.document).length > FETCHED_ACTOR_MAX_CHARS) return;
  let map = store.get(sqliteOf(db));
  if (map === undefined) store.set(sqliteOf(db), (map = new Map()));
  map.delete(bare(id));
  map.set(bare(id), value);
  // Oldest first: stop at the first entry that is fresh while the map is within its bound.
  for (const [key, older] of map) {
    if (!stale(older) && map.size <= KEPT) break;
    map.delete(key);
  }
}

export function rememberFetchedActor(db: DbOrTx, actor: FetchedActor, now = Date.now()): void {
  keepBounded(kept, db, actor, actor, (older) => now - older.at > FETCHED_ACTOR_TTL_MS);
}

/** The document of `apId` the inbox fetched less than a minute ago, once (it is forgotten).
 * Times are the wall clock's: the listener and the worker each read their own. */
export function takeFetchedActor(db: DbOrTx, apId: string, now = Date.now()): FetchedActor | undefined {
  const map = kept.get(sqliteOf(db));
  const found = map?.get(bare(apId));
  if (found === undefined) return undefined;
  map!.delete(bare(apId));
  return now - found.at <= FETCHED_ACTOR_TTL_MS && now >= found.at ? found : undefined;
}

// Requests of a new actor that arrive together share one key fetch (the key cache's single
// flight): only the request that made it saw the document load, yet any of them may be queued,
// and processed, first — the processor then fetched the actor again (seen in the bench: one GET
// in three runs). So the document is also kept here, on the checks' side, for the requests
// verified within a few seconds after it loaded, a bounded number of them each.
const SHARED_FOR_MS = 5_000;
const SHARED_ROWS = 32;
const shared = new WeakMap<object, Map<string, { actor: FetchedActor; left: number }>>();

/** Keeps `actor` (just loaded for a key) for the next SHARED_ROWS requests of that actor within
 * SHARED_FOR_MS (the checks' connection). */
export function shareFetchedActor(db: DbOrTx, actor: FetchedActor): void {
  keepBounded(shared, db, actor, { actor, left: SHARED_ROWS }, (older) => actor.at - older.actor.at > SHARED_FOR_MS);
}

/** The document of `apId` loaded moments ago for another request's key check, if still shared. */
export function sharedFetchedActor(db: DbOrTx, apId: string, now = Date.now()): FetchedActor | undefined {
  const map = shared.get(sqliteOf(db));
  const entry = map?.get(bare(apId));
  if (entry === undefined) return undefined;
  if (now - entry.actor.at > SHARED_FOR_MS || now < entry.actor.at || entry.left <= 0) {
    map!.delete(bare(apId));
    return undefined;
  }
  entry.left--;
  return entry.actor;
}

/**
 * A document loader that also notes what it loaded, for one verification, until stop():
 * `actorOf(id)` is then the actor document of `id` if one was among them — an actor type,
 * asked for at that very id (a key id's fragment aside), served from the id's own server — as
 * fetchActorDocument would have fetched it.
 */
export function recordingLoader(
  loader: DocumentLoader,
  now: () => number = Date.now,
  /** Told of each actor document noted, as it loads (before the key check that asked resumes). */
  onActor: (actor: FetchedActor) => void = () => {},
): { loader: DocumentLoader; stop(): void; actorOf(id: string): FetchedActor | undefined } {
  const seen: FetchedActor[] = [];
  let recording = true;
  return {
    loader: async (url, options) => {
      const loaded = await loader(url, options);
      const document = loaded.document as Json;
      const id = isObject(document) ? str(document.id) : null;
      if (recording && id !== null && bare(id) === bare(url) && ACTOR_TYPES.has(typeOf(document) ?? '')) {
        const actor = { document, documentUrl: loaded.documentUrl || url, at: now() };
        seen.push(actor);
        onActor(actor);
      }
      return loaded;
    },
    stop() {
      recording = false;
    },
    actorOf(id) {
      return seen.find((s) => {
        const docId = str(s.document.id);
        if (docId === null || bare(docId) !== bare(id)) return false;
        try {
          return new URL(s.documentUrl).origin === new URL(id).origin;
        } catch {
          return false;
        }
      });
    },
  };
}
