// Rows the inbox handlers write and read: `inbox` rows for received activities and objects
// (persistInboxObject: ActivityPub → row), notifications, and the look-ups every handler needs.
// All take `db | tx` so they compose inside the handler's one transaction.
import { sanitizeActivityHtml } from '../sanitize';
import { prepared, preparedInsert, rowDecoder, ValueTooLargeError, type DbOrTx } from '../../../../db/client';
import { drop, type Received } from './context';
import {
  inbox,
  notifications,
  outbox,
  type Actor,
  type InboxObject,
  type NotificationType,
  type OutboxObject,
  type Visibility,
} from '../../../../db/schema';
import { hostOf, idOf, isObject, publishedOf, str, typeOf, visibilityOf, type Json } from '../ap';
import { mentionNameOf } from '../objects';
import { isLocalActorId, type LocalActor } from '../identity';

// The look-ups every activity makes, prepared once per connection (drizzle would build and
// prepare their SQL on every call — the largest cost of processing in the bench's profile).
const decodeInbox = rowDecoder(inbox);
const decodeOutbox = rowDecoder(outbox);

export function findInbox(db: DbOrTx, apId: string): InboxObject | undefined {
  const raw = prepared<[string], Record<string, unknown>>(db, 'SELECT * FROM inbox WHERE ap_id = ?').get(apId);
  return raw === undefined ? undefined : decodeInbox(raw);
}

export function findOutbox(db: DbOrTx, apId: string): OutboxObject | undefined {
  const raw = prepared<[string], Record<string, unknown>>(db, 'SELECT * FROM outbox WHERE ap_id = ?').get(apId);
  return raw === undefined ? undefined : decodeOutbox(raw);
}

/** Whether the author follows this actor (an accepted Follow: a `following` row). */
export function isFollowed(db: DbOrTx, actorId: number): boolean {
  return prepared<[number], number>(db, 'SELECT 1 FROM following WHERE actor_id = ?').pluck().get(actorId) !== undefined;
}

export function followersUrlOf(actorRow: Actor): string | null {
  return str(actorRow.apActor.followers);
}

export interface InboxRowInput {
  object: Json;
  apId: string;
  actor: Actor;
  now: Date;
  apType?: string;
  /** Activities start hidden; objects and Announces decide. Default true. */
  hidden?: boolean;
  visibility?: Visibility;
  activityObjectApId?: string | null;
  relatesToInboxObjectId?: number | null;
  relatesToOutboxObjectId?: number | null;
  isTransient?: boolean;
  isDeleted?: boolean;
  /** Who we are, to name a nameless Mention of us. */
  local?: LocalActor;
}

/**
 * The largest remote object or activity stored, as JSON text after sanitizing. Each view parses
 * the rows it shows (a 1 MiB object took 90–120 ms per row, on the app's thread), and nothing
 * real comes near it: a Mastodon post is 2–5 KB, and a long article's HTML is kept within 64 KiB
 * (sanitize.ts HTML_LIMITS). A larger one is dropped with the reason.
 */
export const MAX_STORED_OBJECT_CHARS = 256 * 1024;

// The processor's writes, as prepared statements (drizzle's builders were a third of the
// processing time in the bench's profile); same columns, encodings and rows as drizzle's.
const insertInbox = preparedInsert(inbox, [
  'createdAt',
  'updatedAt',
  'actorId',
  'apActorId',
  'server',
  'isHiddenFromStream',
  'apType',
  'apId',
  'apContext',
  'apPublishedAt',
  'apObject',
  'activityObjectApId',
  'visibility',
  'relatesToInboxObjectId',
  'relatesToOutboxObjectId',
  'isBookmarked',
  'isDeleted',
  'isTransient',
  'repliesCount',
], { apObject: MAX_STORED_OBJECT_CHARS });
const insertNotification = preparedInsert(notifications, ['createdAt', 'notificationType', 'isNew', 'actorId', 'outboxObjectId', 'inboxObjectId']);

/** Inserts one `inbox` row for a received activity or object. `server` is the host of the
 * row's own ap_id (not of the actor), `visibility` comes from its addressing. */
export function persistInboxObject(db: DbOrTx, input: InboxRowInput): InboxObject {
  // The one place remote rows are written: whatever the caller did, no remote HTML is stored
  // unsanitized (activities carry content too: Misskey reactions, Flag comments, …).
  const object = withMentionNames(db, sanitizeActivityHtml(input.object), input.local);
  const { now } = input;
  try {
    return insertRow(db, input, object, now);
  } catch (error) {
    if (error instanceof ValueTooLargeError) drop(`${input.apId} is too large to keep (${error.chars} characters of JSON, at most ${error.maxChars})`);
    throw error;
  }
}

function insertRow(db: DbOrTx, input: InboxRowInput, object: Json, now: Date): InboxObject {
  return insertInbox(db, {
    createdAt: now,
    updatedAt: now,
    actorId: input.actor.id,
    apActorId: input.actor.apId,
    server: hostOf(input.apId),
    isHiddenFromStream: input.hidden ?? true,
    apType: input.apType ?? typeOf(object) ?? 'Object',
    apId: input.apId,
    apContext: idOf(object.context) ?? idOf(object.conversation),
    apPublishedAt: publishedOf(object, now),
    apObject: object as InboxObject['apObject'],
    activityObjectApId: input.activityObjectApId ?? null,
    visibility: input.visibility ?? visibilityOf(object, followersUrlOf(input.actor)),
    relatesToInboxObjectId: input.relatesToInboxObjectId ?? null,
    relatesToOutboxObjectId: input.relatesToOutboxObjectId ?? null,
    isBookmarked: false,
    isDeleted: input.isDeleted ?? false,
    isTransient: input.isTransient ?? false,
    repliesCount: 0,
  });
}

/** The object with each Mention that came without a name (Smithereen sends `{type, href}`)
 * named: the cached actor's handle, else @user@host from the href. Unchanged (the same object)
 * when every Mention has a name. */
function withMentionNames(db: DbOrTx, object: Json, local: LocalActor | undefined): Json {
  if (!Array.isArray(object.tag) || !object.tag.some(namelessMention)) return object;
  const tag = object.tag.map((t: unknown) => {
    if (!namelessMention(t)) return t;
    const href = idOf(t.href)!;
    const handle = local && isLocalActorId(href, local) ? local.handle : prepared<[string], string | null>(db, 'SELECT handle FROM actor WHERE ap_id = ?').pluck().get(href);
    return { ...t, name: handle ?? mentionNameOf(href) };
  });
  return { ...object, tag };
}

const namelessMention = (t: unknown): t is Json => isObject(t) && typeOf(t) === 'Mention' && !str(t.name) && idOf(t.href) !== null;

/**
 * Inserts an activity row with the generic links of the reference's preamble: to one of our
 * objects when `object` is in our outbox, to a stored remote object when it is in our inbox.
 */
export function persistActivity(
  db: DbOrTx,
  input: Omit<InboxRowInput, 'activityObjectApId'> & { activityObjectApId?: string | null },
): InboxObject {
  const objectId = input.activityObjectApId !== undefined ? input.activityObjectApId : idOf(input.object.object);
  const links =
    input.relatesToInboxObjectId !== undefined || input.relatesToOutboxObjectId !== undefined || objectId === null
      ? {}
      : { relatesToOutboxObjectId: findOutbox(db, objectId)?.id ?? null, relatesToInboxObjectId: findInbox(db, objectId)?.id ?? null };
  return persistInboxObject(db, { ...input, ...links, activityObjectApId: objectId });
}

/** An activity about one object (a Like, a reaction), stored with the generic links, and the
 * object of ours it is about, if it is about one of ours. */
export function persistInteraction(db: DbOrTx, r: Received): { row: InboxObject; ours: OutboxObject | undefined } {
  const objectId = idOf(r.activity.object);
  const ours = objectId ? findOutbox(db, objectId) : undefined;
  const row = persistActivity(db, {
    object: r.activity,
    apId: r.id,
    actor: r.actor,
    now: r.now,
    relatesToOutboxObjectId: ours?.id ?? null,
    relatesToInboxObjectId: objectId ? (findInbox(db, objectId)?.id ?? null) : null,
  });
  return { row, ours };
}

export function linkInbox(db: DbOrTx, id: number, relatesToInboxObjectId: number): void {
  // updated_at as drizzle's $onUpdateFn would set it (the wall clock).
  prepared(db, 'UPDATE inbox SET relates_to_inbox_object_id = ?, updated_at = ? WHERE id = ?').run(relatesToInboxObjectId, new Date().toISOString(), id);
}

export interface NotifyInput {
  type: NotificationType;
  now: Date;
  actorId?: number | null;
  outboxObjectId?: number | null;
  inboxObjectId?: number | null;
}

export function notify(db: DbOrTx, input: NotifyInput): void {
  insertNotification(db, {
    createdAt: input.now,
    notificationType: input.type,
    isNew: true,
    actorId: input.actorId ?? null,
    outboxObjectId: input.outboxObjectId ?? null,
    inboxObjectId: input.inboxObjectId ?? null,
  });
}

/** Whether a notification of this type already points at this inbox row. */
export function hasNotification(db: DbOrTx, type: NotificationType, inboxObjectId: number): boolean {
  return (
    prepared<[string, number], number>(db, 'SELECT 1 FROM notifications WHERE notification_type = ? AND inbox_object_id = ? LIMIT 1')
      .pluck()
      .get(type, inboxObjectId) !== undefined
  );
}

/** The newest stored activity of a type by an actor about an object id (e.g. a prior Delete). */
export function findActivityAbout(db: DbOrTx, type: string, apActorId: string, objectApId: string): InboxObject | undefined {
  let newest: Record<string, unknown> | undefined;
  for (const row of activitiesAbout(db, type, apActorId, objectApId)) if (newest === undefined || (row.id as number) > (newest.id as number)) newest = row;
  return newest === undefined ? undefined : decodeInbox(newest);
}

/** The stored activities of a type by an actor about an object id that were not undone, newest first. */
export function findLiveActivitiesAbout(db: DbOrTx, type: string, apActorId: string, objectApId: string): InboxObject[] {
  return activitiesAbout(db, type, apActorId, objectApId)
    .filter((row) => row.undone_by_inbox_object_id === null)
    .sort((a, b) => (b.id as number) - (a.id as number))
    .map(decodeInbox);
}

function activitiesAbout(db: DbOrTx, type: string, apActorId: string, objectApId: string): Record<string, unknown>[] {
  return prepared<[string, string, string], Record<string, unknown>>(
    db,
    // `+ap_type`: look up by the object id (a handful of rows), not through ix_inbox_ap_type,
    // which SQLite otherwise picks and which walks every stored activity of that type. No
    // ORDER BY: with one, SQLite spent ≈50–100 µs more on every call even when nothing matched
    // (measured); the few matches are compared here instead.
    'SELECT * FROM inbox WHERE +ap_type = ? AND ap_actor_id = ? AND activity_object_ap_id = ?',
  ).all(type, apActorId, objectApId);
}
