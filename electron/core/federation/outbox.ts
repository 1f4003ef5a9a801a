// Rows → ActivityPub: the converters that build what Tern publishes. Local posts are stored
// bare (Note, Article, Question) and wrapped in Create when delivered, with the deterministic
// id `<object>/activity` the service behind the spec uses; edits, deletions and interactions
// are stored as the activities themselves, so what was delivered can be served again as is.
// The Create, Update and Delete of a PUBLIC post are LD-signed (RsaSignature2017) once per
// activity when delivered, so servers can forward them (a reply of ours reaching the followers
// of the post it answers); nothing else is.
import { eq } from 'drizzle-orm';
import type { DocumentLoader } from '@fedify/vocab-runtime';
import { prepared, type DbOrTx } from '../../../db/client';
import { outbox, type JsonValue, type OutboxObject, type OutgoingActivity } from '../../../db/schema';
import { signLdDocument } from '../net/signatures';
import { hostOfRecipient } from '../delivery/addresses';
import type { DeliveryPayload } from '../delivery/loop';
import { PUBLIC, type Json } from './ap';
import { enqueueDeliveries } from '../delivery/queue';
import type { LocalActor } from './identity';
import { saveOutboxObject } from './outbox-store';
import { computeRecipients, earlierRecipients, postActivityIds } from './recipients';
import { publishedForm, publishedQuestion } from './polls/question';
import { withheldReason } from './withheld';
import { QUOTE_POLICY_TERMS, withQuotePolicy } from './quote-policy';
import { QUOTE_TERMS } from './quoting';

/** Object types Tern authors; every other outbox row is an activity. */
export const POST_TYPES = ['Note', 'Article', 'Question'] as const;
export type PostType = (typeof POST_TYPES)[number];
export const isPostType = (type: string): type is PostType => (POST_TYPES as readonly string[]).includes(type);

/** The JSON-LD context of the posts and activities Tern sends and serves: ActivityStreams,
 * security (publicKey), and every extension term they carry that Mastodon-compatible servers
 * read (sensitive, Hashtag, conversation, votersCount, an attachment's blurhash and focalPoint,
 * custom Emoji, a post's quote policy). A term used but not defined here is dropped by a reader that expands JSON-LD
 * (Fedify's: Hollo, and others), and makes the LD signature fail in safe mode, so the post
 * would go out without it (federation/actions/ld-interop.test.ts: a picture's blurhash). */
export const AP_CONTEXT: JsonValue = [
  'https://www.w3.org/ns/activitystreams',
  'https://w3id.org/security/v1',
  {
    Hashtag: 'as:Hashtag',
    sensitive: 'as:sensitive',
    ostatus: 'http://ostatus.org#',
    conversation: 'ostatus:conversation',
    toot: 'http://joinmastodon.org/ns#',
    votersCount: 'toot:votersCount',
    blurhash: 'toot:blurhash',
    focalPoint: { '@container': '@list', '@id': 'toot:focalPoint' },
    Emoji: 'toot:Emoji',
    // FEP-044f quote policies, in GoToSocial's vocabulary (quote-policy.ts).
    ...QUOTE_POLICY_TERMS,
    // What a quote post of ours names the quoted post with, and its approval (quoting.ts).
    ...QUOTE_TERMS,
  },
];

export type ApObject = Record<string, JsonValue>;

/** Adds the context for sending: AP_CONTEXT, or the one the activity was stored with (a profile
 * Update carries the actor document's, ACTOR_CONTEXT, which defines manuallyApprovesFollowers,
 * featured, discoverable and the keys: under AP_CONTEXT a JSON-LD reader lost them, and the
 * locked account read as open). */
export function withContext(activity: Json): ApObject {
  const { '@context': stored, ...rest } = activity;
  return { '@context': (stored ?? AP_CONTEXT) as JsonValue, ...(rest as ApObject) };
}

/** Audience fields copied from an object to the activity that carries it. */
function audience(object: Json): ApObject {
  const out: ApObject = {};
  for (const key of ['to', 'cc'] as const) if (object[key] !== undefined) out[key] = object[key] as JsonValue;
  return out;
}

/** Create{object} for one of our posts, with the id the service behind the spec gives it. */
export function toCreate(local: LocalActor, post: Pick<OutboxObject, 'publicId' | 'apObject' | 'apPublishedAt' | 'visibility'>): ApObject {
  // A poll's hidden totals are withheld from what is published (polls/question.ts); who may
  // quote it is said as it goes out (quote-policy.ts).
  const object = withQuotePolicy(publishedQuestion(post.apObject as Json), post.visibility) as ApObject;
  return withContext({
    id: local.activityUrl(post.publicId),
    type: 'Create',
    actor: local.id,
    published: typeof object.published === 'string' ? object.published : post.apPublishedAt.toISOString(),
    ...audience(object),
    object,
  });
}

/** Update{object} for an edit. Stored as its own outbox row, so each edit is its own activity
 * with its own dereferenceable id (/o/<public_id>), delivered after the Create it follows. */
export function toUpdate(local: LocalActor, object: ApObject, updated: string): ApObject {
  return {
    type: 'Update',
    actor: local.id,
    published: updated,
    ...audience(object),
    object,
  };
}

export function toTombstone(apId: string, deleted: string): ApObject {
  return { id: apId, type: 'Tombstone', deleted };
}

/** Delete{Tombstone}; keeps the post's audience so servers that check addressing accept it. */
export function toDelete(local: LocalActor, post: Pick<OutboxObject, 'apId' | 'apObject'>, deleted: string): ApObject {
  return { type: 'Delete', actor: local.id, published: deleted, ...audience(post.apObject as Json), object: toTombstone(post.apId, deleted) };
}

export function toLike(local: LocalActor, objectId: string, authorId: string | null, published: string): ApObject {
  return { type: 'Like', actor: local.id, published, object: objectId, ...(authorId ? { to: [authorId] } : {}) };
}

/** Announce to Public, cc our followers and the author (§5.1). */
export function toAnnounce(local: LocalActor, objectId: string, authorId: string | null, published: string): ApObject {
  return {
    type: 'Announce',
    actor: local.id,
    published,
    object: objectId,
    to: [PUBLIC],
    cc: [local.followers, ...(authorId ? [authorId] : [])],
  };
}

/** Undo{activity}: the undone activity embedded (Mastodon looks it up by id, others read it). */
export function toUndo(local: LocalActor, undone: ApObject, published: string): ApObject {
  const { '@context': _ignored, ...object } = undone;
  return { type: 'Undo', actor: local.id, published, ...audience(undone), object };
}

/** Add / Remove of one of our posts to / from our featured collection (pin / unpin), as Mastodon
 * sends them: the post by id, the collection as target, to everyone and our followers. */
export function toFeaturedChange(kind: 'Add' | 'Remove', local: LocalActor, postId: string, published: string): ApObject {
  return { type: kind, actor: local.id, published, to: [PUBLIC], cc: [local.followers], object: postId, target: local.featured };
}

export function toFollow(local: LocalActor, targetId: string, published: string): ApObject {
  return { type: 'Follow', actor: local.id, published, object: targetId, to: [targetId] };
}

/** Accept or Reject of a remote Follow, which is embedded as received. */
export function toFollowAnswer(kind: 'Accept' | 'Reject', local: LocalActor, follow: ApObject, followerId: string, published: string): ApObject {
  const { '@context': _ignored, signature: _sig, ...object } = follow;
  return { type: kind, actor: local.id, published, to: [followerId], object };
}

// A forwarded activity goes out as it was received: the text kept in incoming_activity (the
// first row with its id, the one processed and checked), not the sanitized inbox copy.
const FORWARDED_SQL =
  'SELECT a.ap_object FROM inbox i JOIN incoming_activity a ON a.ap_id = i.ap_id WHERE i.id = ? ORDER BY a.id LIMIT 1';

/** What the delivery loop POSTs for a queued row: our post wrapped in Create (its current
 * version: an edit made before delivery goes out in the Create itself), our activities as
 * stored unless withheld (withheld.ts: undone, an edit of a deleted post, a needless Delete),
 * a forwarded remote activity byte-for-byte as received (its LD signature intact). */
export function deliveryPayload(db: DbOrTx, local: LocalActor, row: OutgoingActivity): DeliveryPayload {
  if (row.inboxObjectId !== null) {
    const forwarded = prepared<[number], { ap_object: string }>(db, FORWARDED_SQL).get(row.inboxObjectId);
    if (!forwarded) return { kind: 'cancel', reason: 'The activity to forward is no longer stored.' };
    let body: unknown;
    try {
      body = JSON.parse(forwarded.ap_object);
    } catch {
      return { kind: 'cancel', reason: 'The activity to forward is not stored as JSON.' };
    }
    if (typeof body === 'object' && body !== null && '@context' in body) return { kind: 'send', body: forwarded.ap_object };
    return { kind: 'send', body: JSON.stringify(withContext(body as Json)) };
  }
  if (row.outboxObjectId === null) return { kind: 'cancel', reason: 'Nothing to deliver (the row names no activity).' };
  const own = db.select().from(outbox).where(eq(outbox.id, row.outboxObjectId)).get();
  if (!own) return { kind: 'cancel', reason: 'The post to deliver is no longer stored.' };
  // Written under another address of Tern's (the base URL changed while it waited): its ids name
  // the old host and the actor the new one, which Mastodon refuses (non_matching_uri_hosts?).
  if (originOf(own.apId) !== originOf(local.id)) {
    return { kind: 'cancel', reason: `Written when Tern's address was ${originOf(own.apId) ?? own.apId}, before it became ${originOf(local.id)}; not sent.` };
  }
  if (isPostType(own.apType)) {
    // Deleted before it reached this server: the Delete queued behind it says what is needed.
    if (own.isDeleted) return { kind: 'cancel', reason: `The post was deleted before it reached ${hostOfRecipient(row.recipient)}; not sent.` };
    return { kind: 'send', body: JSON.stringify(toCreate(local, own)) };
  }
  const withheld = withheldReason(db, row, own);
  if (withheld !== null) return { kind: 'cancel', reason: withheld };
  return { kind: 'send', body: JSON.stringify(withContext(publishedForm(own.apObject as Json))) };
}

/** Our key, for the LD signatures of public posts' activities. */
export interface LdSigner {
  keyId: URL;
  privateKey: CryptoKey;
  /** Resolves the contexts of what is signed; default the preloaded ones (all Tern sends). */
  contextLoader?: DocumentLoader;
  /** Told when a body that should be signed goes out unsigned (peers then do not forward it):
   * a term its context does not define fails the signing in safe mode. */
  onUnsigned?: (reason: string) => void;
}

/**
 * Whether what an outbox row delivers gets an LD signature (reference §5.2): the Create of a
 * post, an Update or a Delete, only when the row is PUBLIC. Unlisted, followers-only and direct
 * posts stay unsigned, so a recipient cannot prove to third parties what we sent them.
 */
export function takesLdSignature(apType: string, visibility: string): boolean {
  return visibility === 'PUBLIC' && (isPostType(apType) || apType === 'Update' || apType === 'Delete');
}

/** A `send` payload with an RsaSignature2017 by `signer` over its body (signatures.ts). If the
 * body cannot be signed (a context that does not load), it goes out unsigned, as Fedify does. */
export async function withLdSignature(payload: DeliveryPayload, signer: LdSigner): Promise<DeliveryPayload> {
  if (payload.kind !== 'send') return payload;
  try {
    const signed = await signLdDocument(JSON.parse(payload.body) as object, signer, { contextLoader: signer.contextLoader });
    return { kind: 'send', body: JSON.stringify(signed) };
  } catch (error) {
    signer.onUnsigned?.(error instanceof Error ? error.message : String(error));
    return payload;
  }
}

type RawPost = { public_id: string; ap_type: string; ap_object: string; ap_published_at: string; is_deleted: number; visibility: string };
const RAW_POST_SQL = 'SELECT public_id, ap_type, ap_object, ap_published_at, is_deleted, visibility FROM outbox WHERE id = ?';

export type DeliveryPayloads = (db: DbOrTx, local: LocalActor, row: OutgoingActivity) => DeliveryPayload | Promise<DeliveryPayload>;

/**
 * deliveryPayload with a small memory: a post going to 1,000 inboxes is read, serialised and (if
 * public) LD-signed once, not 1,000 times. Each call still reads the row's stored text (one
 * prepared look-up) and reuses the body only while every field it is built from is unchanged,
 * so an edit or a delete is seen by the very next delivery. Only `send` answers are kept; a
 * signature being made is shared by the deliveries that ask meanwhile.
 */
export function createDeliveryPayloads(maxPosts = 32, signer: () => LdSigner | null = () => null): DeliveryPayloads {
  const kept = new Map<number, { key: string; payload: DeliveryPayload | Promise<DeliveryPayload> }>();
  return (db, local, row) => {
    if (row.inboxObjectId !== null || row.outboxObjectId === null) return deliveryPayload(db, local, row);
    const raw = prepared<[number], RawPost>(db, RAW_POST_SQL).get(row.outboxObjectId);
    if (!raw) return deliveryPayload(db, local, row);
    const ld = takesLdSignature(raw.ap_type, raw.visibility) ? signer() : null;
    const key = [local.id, local.activityUrl(raw.public_id), raw.ap_type, raw.ap_published_at, raw.is_deleted, raw.visibility, ld?.keyId.href ?? '', raw.ap_object].join('\n');
    const hit = kept.get(row.outboxObjectId);
    // Whether an activity is withheld depends on the recipient (a Delete goes only where the
    // post went), so it is asked for every row, before the kept body is reused.
    if (hit !== undefined && hit.key === key && isPostType(raw.ap_type)) return hit.payload;
    if (hit !== undefined && hit.key === key) {
      const own = db.select().from(outbox).where(eq(outbox.id, row.outboxObjectId)).get();
      const withheld = own ? withheldReason(db, row, own) : null;
      return withheld === null ? hit.payload : { kind: 'cancel', reason: withheld };
    }
    const built = deliveryPayload(db, local, row);
    if (built.kind !== 'send') return built;
    const payload = ld === null ? built : withLdSignature(built, ld);
    kept.delete(row.outboxObjectId);
    kept.set(row.outboxObjectId, { key, payload });
    if (kept.size > maxPosts) kept.delete(kept.keys().next().value!);
    return payload;
  };
}

/**
 * Queues an Update carrying `object`, the new state of one of the author's posts: saved as an
 * outbox activity of that post, to everyone the post reached before, everyone the new version
 * addresses, and `more` (a poll's voters, mentioned handles still to resolve).
 */
export function queuePostUpdate(
  tx: DbOrTx,
  local: LocalActor,
  input: { post: OutboxObject; object: ApObject; stamp: string; now: Date; more?: string[] },
): OutboxObject {
  const update = saveOutboxObject(tx, local, {
    apObject: toUpdate(local, withQuotePolicy(input.object, input.post.visibility), input.stamp),
    visibility: input.post.visibility,
    now: input.now,
    activityObjectApId: input.post.apId,
    relatesToOutboxObjectId: input.post.id,
  });
  const recipients = [
    ...earlierRecipients(tx, postActivityIds(tx, input.post.id)),
    ...computeRecipients(tx, local, input.object),
    ...(input.more ?? []),
  ];
  enqueueDeliveries(tx, { outboxObjectId: update.id, recipients, now: input.now });
  return update;
}

/** A URL's origin, or null when it is none. */
function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}
