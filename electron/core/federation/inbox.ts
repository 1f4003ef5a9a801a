// The verified inbox: what happens to a POST to /inbox between its bytes arriving and the 202.
// In order: the body must be JSON and an activity (inboundActivitySchema); servers the author
// blocked are refused before any key is fetched; the HTTP signature must verify (RFC 9421 or
// draft-cavage, with digest and date checks — net/signatures) and the key must belong to the
// activity's actor. Only then is one incoming_activity row written, for the processor to pick
// up; processing never happens inside the request. The row keeps the body as received, byte
// for byte (its LD signature must survive for forwarding).
//
// Forwarded activities (HTTP-signed by someone other than `actor`, e.g. a reply Mastodon forwards
// to the followers of the post it answers, or the Delete of such a reply) are accepted when
// either holds (the second is tried first: it costs nothing):
//  1. they carry an LD signature (RsaSignature2017) that Fedify's verifyJsonLd accepts AND whose
//     key belongs to the activity's `actor` (the reference never checked the owner: anyone's
//     valid signature made any activity pass — microblogpub-behaviour §10 step 6), or else
//     Object Integrity Proofs (FEP-8b32) that Fedify's verifyObject accepts, by a key in the
//     actor's own document. Any type.
//  2. as Mastodon accepts them without an LD signature: a Create whose object (and id) live on
//     the actor's own server; unless its LD signature verifies in the processor, the forwarded
//     copy is not believed and the object is fetched from that server through the safe client
//     (process/create.ts).
// Anything else not signed by its actor is refused (401, saying which check failed).
// The row's sent_by_ap_actor_id stays the forwarder (the HTTP signer). No column says "LD
// verified": the processor verifies the LD signature (or proof) itself — the key is cached by
// then — and trusts the embedded copy only if it passes (process/index.ts), so a row can never
// claim more trust than its JSON proves. Only LD-signed activities are forwarded on by us
// (process/forward.ts): Mastodon checks no proofs.
import { recordingLoader, shareFetchedActor, sharedFetchedActor } from './fetched-actors';
import type { Db } from '../../../db/client';
import type { FederationContext } from '../ports';
import type { Settings } from '../settings';
import { hasProofLike } from '@fedify/fedify';
import {
  hasLdSignature,
  keyBelongsToActor,
  normalizeActorId,
  verifyEmbeddedSignature,
  verifyInbound,
  type LdVerifyFailureReason,
  type VerifyFailureReason,
} from '../net/signatures';
import { MAX_KEYS_PER_DOCUMENT } from '../net/key-document';
import { MAX_DIGEST_ENTRIES, parseCavageSignature, parseSignatureInput } from '../net/signature-precheck';
import { findActor } from './actors';
import { actorIdOf, idOf, inboundActivitySchema, typeOf, type Json } from './ap';
import { isBlockedUrl } from './blocked-servers';
import type { InboxEvents, QueuedActivity } from './inbox-events';
import { queuedIncomingId, writeIncoming, type IncomingRow } from './incoming-writer';
import { activityIdOf } from './process/synthetic-id';
import { JsonTooDeepError, parseBoundedJson } from '../net/bounded-json';

export interface InboxDeps {
  db: Db;
  fed: Pick<FederationContext, 'documentLoader' | 'contextLoader' | 'keyCache'>;
  clock: () => Date;
  settings: () => Pick<Settings, 'blockedServers'>;
  events?: InboxEvents;
  /** Extra hook (the listener's onQueued option), called after the events. */
  onQueued?: (queued: QueuedActivity) => void;
  /** How many LD-signature / proof checks may run at once (default EMBEDDED_CHECKS_AT_ONCE). */
  embeddedChecksAtOnce?: number;
}

/**
 * LD signatures and integrity proofs cost milliseconds each (JSON-LD canonicalisation), several
 * times an HTTP signature: anyone with a key could make Tern spend that on every request. At
 * most this many run at once; a forwarded activity arriving past it is answered 503 with
 * Retry-After (senders retry), and its HTTP signature has already been checked.
 */
export const EMBEDDED_CHECKS_AT_ONCE = 2;
export const EMBEDDED_CHECKS_RETRY_AFTER_S = 30;
const embeddedChecksRunning = new WeakMap<object, { n: number }>();

export type InboxOutcome =
  | { status: 202; queued: QueuedActivity }
  /** Answered 202 but not stored (a self-Delete of an actor we never knew, whose key is gone). */
  | { status: 202; queued: null; reason: string }
  | { status: 400 | 401 | 403; reason: string }
  /** Too many forwarded activities being checked at once: come back after retryAfterSeconds. */
  | { status: 503; reason: string; retryAfterSeconds: number };

const REASONS: Record<VerifyFailureReason, string> = {
  unsigned: 'unsigned',
  bad_signature: 'signature does not verify',
  expired: 'signature expired',
  digest_mismatch: 'digest mismatch',
  digest_list: `the digest header lists one algorithm twice or more than ${MAX_DIGEST_ENTRIES} digests`,
  query_not_covered: 'the signature does not cover the query string',
  key_unavailable: 'key unavailable',
  too_many_keys: `key unavailable: its document lists more than ${MAX_KEYS_PER_DOCUMENT} keys`,
};

const LD_REASONS: Record<LdVerifyFailureReason, string> = {
  unsigned: 'no LD signature',
  bad_signature: 'its LD signature does not verify',
  key_unavailable: 'the key of its LD signature is unavailable',
  not_actor: 'its LD signature is by a key that does not belong to the actor',
  too_large: 'too large to check its LD signature',
};
const PROOF_REASONS: Record<LdVerifyFailureReason, string> = {
  unsigned: 'no integrity proof',
  bad_signature: 'its integrity proof does not verify',
  key_unavailable: 'the key of its integrity proof is unavailable',
  not_actor: 'its integrity proof is not by a key of the actor',
  too_large: 'too large to check its integrity proof',
};

/** The keyId a request's signature names, read without verifying anything (for the block list). */
export function claimedKeyId(headers: Headers): string | null {
  const input = headers.get('signature-input');
  if (input !== null) return parseSignatureInput(input)[0]?.params.get('keyid') ?? null;
  const signature = headers.get('signature');
  return signature === null ? null : (parseCavageSignature(signature).get('keyid') ?? null);
}

/** Mastodon sends `Delete {actor: X, object: X}` for a deleted account to every server it knows. */
function isSelfDelete(activity: Json, actorId: string): boolean {
  const object = idOf(activity.object);
  return typeOf(activity) === 'Delete' && object !== null && normalizeActorId(object) === normalizeActorId(actorId);
}

const originOf = (url: string | null): string | null => {
  if (url === null) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
};

/**
 * Whether an activity signed by someone else than its actor can be verified otherwise: a Create
 * whose object id (and activity id, when it has one) is on the actor's own server, where the
 * processor fetches the object instead of believing the forwarded copy.
 */
export function mayBeForwarded(activity: Json, actorId: string): boolean {
  if (typeOf(activity) !== 'Create') return false;
  const origin = originOf(actorId);
  if (origin === null || originOf(idOf(activity.object)) !== origin) return false;
  return activity.id === undefined || originOf(typeof activity.id === 'string' ? activity.id : null) === origin;
}

/**
 * An inbox POST as plain data, for a thread other than the listener's (the inbox checks worker
 * checks it there; the listener's thread reads the bytes, stores the row, answers): the URL the peer
 * addressed (the public URL; Host is set from it), its header lines in order (name, value, name,
 * value…, as node:http's rawHeaders), and the exact bytes received.
 */
export interface InboxPost {
  url: string;
  headers: string[];
  body: Uint8Array;
  /** The listener option of that name (tests). */
  embeddedChecksAtOnce?: number;
}

/**
 * An inbox POST as the signature checks read it (ours and Fedify's verifyRequestDetailed): its
 * method, URL, headers, and its bytes, already in memory, read as often as asked (clone() is the
 * request itself: nothing here is consumed). Not a fetch Request: building one, and cloning it
 * for each digest check (a stream tee), was ≈15 % of the checks worker's time in the bench
 * profile. Tests run both signature specs, the double-knock and the hostile corpus through it.
 */
class ReceivedPost {
  readonly method = 'POST';
  readonly bodyUsed = false;
  readonly body = null;
  constructor(
    readonly url: string,
    readonly headers: Headers,
    private readonly bytes: Uint8Array,
  ) {}
  clone(): this {
    return this;
  }
  arrayBuffer(): Promise<ArrayBuffer> {
    return Promise.resolve(this.bytes.slice().buffer);
  }
}

/**
 * The request `post` describes, as the signature checks read it. Header lines fetch would refuse
 * (HTTP/2 pseudo-headers, invalid values) are left out, as @hono/node-server leaves them out.
 */
export function inboxPostRequest(post: InboxPost): Request {
  const headers = new Headers();
  const raw = post.headers;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.charCodeAt(0) === 58 /* ':' */) continue;
    try {
      headers.append(name, raw[i + 1]!);
    } catch {
      // an invalid header value: left out
    }
  }
  const url = new URL(post.url);
  // What the peer signed, whatever the tunnel rewrote on the way (see http-parts' publicUrl).
  headers.set('host', url.host);
  return new ReceivedPost(url.href, headers, post.body) as unknown as Request;
}

/**
 * Runs the checks on an inbox POST and queues it. `request` must carry the URL and Host the
 * peer signed (the public URL), and `body` the exact bytes received.
 */
// One decoder for every request (building one per call was ~6 % of accepting in the profile).
const utf8 = new TextDecoder('utf-8', { fatal: true });

export async function receiveInboxPost(deps: InboxDeps, request: Request, body: Uint8Array): Promise<InboxOutcome> {
  const checked = await checkInboxPost(deps, request, body);
  return checked.status === 'store' ? storeInboxPost(deps, checked) : checked;
}

/** What the checks decided: an answer without a row, or the row to store. */
export type InboxCheck = Exclude<InboxOutcome, { status: 202; queued: QueuedActivity }> | { status: 'store'; row: IncomingRow; type: string };

/**
 * Stores a checked activity (one incoming_activity row, committed with the other rows of its
 * turn: incoming-writer.ts) and signals it. Runs where the rows are written from: the main
 * thread, which hands them to the inbox processor's connection when it runs on its worker, the
 * verdict and the actor's document with them.
 */
export async function storeInboxPost(deps: Pick<InboxDeps, 'db' | 'events' | 'onQueued'>, checked: Extract<InboxCheck, { status: 'store' }>): Promise<InboxOutcome> {
  const { row } = checked;
  const id = await writeIncoming(deps.db, row);
  const queued: QueuedActivity = { id, apId: row.apId, type: checked.type, sentBy: row.sentBy };
  deps.events?.queued(queued);
  try {
    deps.onQueued?.(queued);
  } catch {
    // The row is stored; a failing hook must not turn the 202 into an error (the processor polls).
  }
  return { status: 202, queued };
}

/**
 * The checks of an inbox POST, without storing anything: JSON, activity, blocks, signature, key
 * owner (or the forwarding rules), replay. Reads the database, never writes it, so it can run on
 * a thread of its own (the inbox checks worker) while the row is written where rows are written.
 */
export async function checkInboxPost(deps: InboxDeps, request: Request, body: Uint8Array): Promise<InboxCheck> {
  let parsed: unknown;
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return { status: 400, reason: 'body is not UTF-8' };
  }
  try {
    parsed = parseBoundedJson(text);
  } catch (error) {
    return { status: 400, reason: `body is ${error instanceof JsonTooDeepError ? error.message : 'not JSON'}` };
  }
  const checked = inboundActivitySchema.safeParse(parsed);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    return { status: 400, reason: `not an activity: ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}` };
  }
  const activity = checked.data as Json;
  const actorId = actorIdOf(activity)!;

  const { blockedServers } = deps.settings();
  const keyId = claimedKeyId(request.headers);
  if (isBlockedUrl(actorId, blockedServers) || (keyId !== null && isBlockedUrl(keyId, blockedServers))) {
    return { status: 403, reason: 'server is blocked' };
  }

  // What the key fetch loads is noted: for a new actor it is usually the actor's own document,
  // which then goes to the processor with the row instead of being fetched again there.
  const recorder = recordingLoader(deps.fed.documentLoader, Date.now, (actor) => shareFetchedActor(deps.db, actor));
  const verifyDeps = {
    documentLoader: recorder.loader,
    contextLoader: deps.fed.contextLoader,
    keyCache: deps.fed.keyCache,
    clock: deps.clock,
  };
  const verified = await verifyInbound(request, verifyDeps, body);
  // Only the signature check's own loads are noted (not an embedded signature's, below).
  recorder.stop();
  if (!verified.ok) {
    // The service behind the spec answers 202 here so Mastodon stops retrying the Deletes of
    // accounts that no longer exist; there is nothing of theirs to delete anyway.
    const gone = verified.keyFetchStatus === 404 || verified.keyFetchStatus === 410;
    if (gone && isSelfDelete(activity, actorId) && findActor(deps.db, actorId) === undefined) {
      return { status: 202, queued: null, reason: 'delete of an unknown actor whose key is gone' };
    }
    return { status: 401, reason: REASONS[verified.reason] };
  }
  let embedded: Awaited<ReturnType<typeof verifyEmbeddedSignature>> | null = null;
  if (!keyBelongsToActor(verified.ownerActorId, actorId)) {
    // Forwarded: the refetchable-Create rule, else its own LD signature (or integrity proof) by
    // the actor. A Create the rule admits is not checked here: the processor checks it anyway
    // (to know whether to believe the embedded copy), so the request is spared the work.
    const signed = hasLdSignature(activity) || hasProofLike(activity);
    if (signed && !mayBeForwarded(activity, actorId)) {
      let running = embeddedChecksRunning.get(deps.db);
      if (running === undefined) embeddedChecksRunning.set(deps.db, (running = { n: 0 }));
      if (running.n >= (deps.embeddedChecksAtOnce ?? EMBEDDED_CHECKS_AT_ONCE)) {
        return { status: 503, reason: 'busy checking forwarded activities; retry later', retryAfterSeconds: EMBEDDED_CHECKS_RETRY_AFTER_S };
      }
      running.n++;
      try {
        embedded = await verifyEmbeddedSignature(activity, actorId, verifyDeps);
      } finally {
        running.n--;
      }
    }
    if (embedded?.ok !== true && !mayBeForwarded(activity, actorId)) {
      const why = embedded === null ? 'no LD signature' : (hasLdSignature(activity) ? LD_REASONS : PROOF_REASONS)[embedded.reason];
      return { status: 401, reason: `key does not belong to actor (forwarded activity: ${why})` };
    }
  }

  const now = deps.clock().toISOString();
  // (An activity that carries its object under the object's own id is queued under an id of its
  // own: synthetic-id.ts activityIdOf.)
  const apId = activityIdOf(activity);
  // A replay (the same signed request again, inside the signature's window) or a server's
  // retry of what was already taken: the activity is queued once.
  if (apId !== null && queuedIncomingId(deps.db, apId, verified.ownerActorId) !== undefined) {
    return { status: 202, queued: null, reason: 'already received (same activity id from the same signer)' };
  }
  // The row to store (storeInboxPost): the bytes as received (already known to be this JSON): an
  // LD signature covers them, and a forwarded copy must be what its author signed.
  // The processor would check these very bytes again: the verdict goes with the row instead.
  const verdict = embedded?.ok === true ? { verdict: embedded } : {};
  // Handed over only for the activity's own actor (the processor looks up that one); a
  // forwarded activity's signer is not the actor it names.
  // (or, when another request of the actor's made the fetch this one waited for, that one's).
  const fetchedActor = keyBelongsToActor(verified.ownerActorId, actorId)
    ? (recorder.actorOf(verified.ownerActorId) ?? sharedFetchedActor(deps.db, verified.ownerActorId))
    : undefined;
  const row: IncomingRow = {
    createdAt: now,
    sentBy: verified.ownerActorId,
    apId,
    apObject: text,
    ...verdict,
    ...(fetchedActor === undefined ? {} : { actor: fetchedActor }),
  };
  return { status: 'store', row, type: typeOf(activity) ?? 'Object' };
}
