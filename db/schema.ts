// The spec's 16 records (../shared/spec/data-model.md), exactly: table and column names, types,
// nullability, defaults, foreign keys, and the indexes with the names the service behind the
// spec uses (ix_<table>_<column>; every id has its own non-unique index). Storage rules are
// CHECK constraints (see columns.ts). Properties are camelCase over snake_case columns; each
// table exports its row types beside it.
import { type AnySQLiteColumn, index, integer, sqliteTable, text, unique, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { sql } from 'drizzle-orm';
import {
  NOTIFICATION_TYPES,
  VISIBILITIES,
  bool,
  boolCheck,
  datetime,
  datetimeCheck,
  enumCheck,
  json,
  jsonCheck,
  lazyJson,
  optionalJsonCheck,
  str,
  type JsonValue,
} from './columns';

/**
 * The object an inbox/outbox row replies to, as sent (`inReplyTo`: an IRI, or an object with an
 * id), over the bare ap_object column. Indexed on both tables; queries must use this exact text
 * (unqualified) for SQLite to use the index.
 */
export const IN_REPLY_TO_SQL = "coalesce(json_extract(ap_object, '$.inReplyTo.id'), json_extract(ap_object, '$.inReplyTo'))";

/**
 * Where an actor receives, read from its stored document in SQL (Tern's revision ae35abd14d3a
 * indexes both beside the actor's id): its shared inbox (`endpoints.sharedInbox`, an IRI or an
 * object with an id; `endpoints` an object or an array of one, compacted JSON-LD) and its own
 * inbox (an IRI, or an object with an id or href). Either may be any JSON value a peer sent: the
 * reader checks it is an http(s) URL (recipients.ts followerInboxes, as ap.ts inboxOf does).
 * NULL for a document that is not JSON (a tool may write one with CHECKs off; the index must not
 * refuse the row). Queries must use this exact text (unqualified) for SQLite to read the index.
 */
export const SHARED_INBOX_SQL =
  "CASE WHEN json_valid(ap_actor) THEN coalesce(CASE json_type(ap_actor, '$.endpoints.sharedInbox') WHEN 'text' THEN ap_actor ->> '$.endpoints.sharedInbox' WHEN 'object' THEN ap_actor ->> '$.endpoints.sharedInbox.id' END, CASE json_type(ap_actor, '$.endpoints[0].sharedInbox') WHEN 'text' THEN ap_actor ->> '$.endpoints[0].sharedInbox' WHEN 'object' THEN ap_actor ->> '$.endpoints[0].sharedInbox.id' END) END";
export const OWN_INBOX_SQL =
  "CASE WHEN json_valid(ap_actor) THEN CASE json_type(ap_actor, '$.inbox') WHEN 'text' THEN ap_actor ->> '$.inbox' WHEN 'object' THEN coalesce(ap_actor ->> '$.inbox.id', ap_actor ->> '$.inbox.href') END END";

export * from './columns';

/** The CHECK constraints of one table, from the kinds of its columns. */
function checks(
  table: string,
  kinds: { datetimes?: string[]; bools?: string[]; jsons?: string[]; optionalJsons?: string[]; enums?: Record<string, readonly string[]> },
) {
  return [
    ...(kinds.datetimes ?? []).map((c) => datetimeCheck(table, c)),
    ...(kinds.bools ?? []).map((c) => boolCheck(table, c)),
    ...(kinds.jsons ?? []).map((c) => jsonCheck(table, c)),
    ...(kinds.optionalJsons ?? []).map((c) => optionalJsonCheck(table, c)),
    ...Object.entries(kinds.enums ?? {}).map(([c, values]) => enumCheck(table, c, values)),
  ];
}

const id = () => integer('id').primaryKey();
const createdAt = () => datetime('created_at').notNull().$defaultFn(() => new Date());
const updatedAt = () =>
  datetime('updated_at')
    .notNull()
    .$defaultFn(() => new Date())
    .$onUpdateFn(() => new Date());

export const actor = sqliteTable(
  'actor',
  {
    id: id(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    apId: str('ap_id').notNull(),
    apActor: json<Record<string, JsonValue>>()('ap_actor').notNull(),
    apType: str('ap_type').notNull(),
    handle: str('handle'),
  },
  (t) => [
    uniqueIndex('ix_actor_ap_id').on(t.apId),
    index('ix_actor_handle').on(t.handle),
    index('ix_actor_id').on(t.id),
    // Tern's revision ae35abd14d3a: where each actor receives (the followers' inboxes of every post).
    index('ix_actor_inboxes').on(t.id, sql.raw(SHARED_INBOX_SQL), sql.raw(OWN_INBOX_SQL)),
    ...checks('actor', { datetimes: ['created_at', 'updated_at'], jsons: ['ap_actor'] }),
  ],
);
export type Actor = typeof actor.$inferSelect;
export type NewActor = typeof actor.$inferInsert;

export const inbox = sqliteTable(
  'inbox',
  {
    id: id(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    actorId: integer('actor_id')
      .notNull()
      .references(() => actor.id),
    server: str('server').notNull(),
    isHiddenFromStream: bool('is_hidden_from_stream').notNull(),
    apActorId: str('ap_actor_id').notNull(),
    apType: str('ap_type').notNull(),
    apId: str('ap_id').notNull(),
    apContext: str('ap_context'),
    apPublishedAt: datetime('ap_published_at').notNull(),
    apObject: json<Record<string, JsonValue>>()('ap_object').notNull(),
    activityObjectApId: str('activity_object_ap_id'),
    visibility: text('visibility', { enum: VISIBILITIES }).notNull(),
    relatesToInboxObjectId: integer('relates_to_inbox_object_id').references((): AnySQLiteColumn => inbox.id),
    relatesToOutboxObjectId: integer('relates_to_outbox_object_id').references((): AnySQLiteColumn => outbox.id),
    undoneByInboxObjectId: integer('undone_by_inbox_object_id').references((): AnySQLiteColumn => inbox.id),
    likedViaOutboxObjectApId: str('liked_via_outbox_object_ap_id'),
    announcedViaOutboxObjectApId: str('announced_via_outbox_object_ap_id'),
    votedForAnswers: json<string[]>()('voted_for_answers'),
    isBookmarked: bool('is_bookmarked').notNull(),
    isDeleted: bool('is_deleted').notNull(),
    isTransient: bool('is_transient').notNull().default(false),
    repliesCount: integer('replies_count').notNull(),
    ogMeta: json()('og_meta'),
  },
  (t) => [
    index('ix_inbox_activity_object_ap_id').on(t.activityObjectApId),
    uniqueIndex('ix_inbox_ap_id').on(t.apId),
    index('ix_inbox_ap_type').on(t.apType),
    index('ix_inbox_id').on(t.id),
    // Tern's revision 70cce0da20c3 (not the spec's; 0d4f0c70f784 had the expression alone): the
    // replies to a post, with what the thread's reply tree and the replies recount read.
    index('ix_inbox_replies')
      .on(sql.raw(IN_REPLY_TO_SQL), t.isDeleted, t.isTransient, t.apPublishedAt, t.apId)
      .where(sql.raw(`${IN_REPLY_TO_SQL} IS NOT NULL`)),
    // Tern's revision 9519a2c5ec87: likes/announces of a post counted from the index alone.
    index('ix_inbox_relates_to_outbox_object_counts').on(t.relatesToOutboxObjectId, t.apType, t.isDeleted, t.actorId),
    // Tern's revision d58a0b6c3e27: the home stream, newest first (the rows it shows).
    index('ix_inbox_stream').on(t.apPublishedAt, t.id).where(sql`is_hidden_from_stream = 0 AND is_deleted = 0 AND is_transient = 0`),
    // Tern's revision 4a475cedd483: the bookmarked, liked and direct posts, newest first.
    index('ix_inbox_bookmarked').on(t.apPublishedAt, t.id).where(sql`is_bookmarked = 1 AND is_deleted = 0 AND is_transient = 0`),
    index('ix_inbox_liked').on(t.apPublishedAt, t.id).where(sql`liked_via_outbox_object_ap_id IS NOT NULL AND is_deleted = 0 AND is_transient = 0`),
    index('ix_inbox_direct').on(t.apPublishedAt, t.id).where(sql`visibility = 'DIRECT' AND is_deleted = 0 AND is_transient = 0`),
    // Tern's revision 70cce0da20c3: Follows standing, by who asks (the People view's requests).
    index('ix_inbox_follows')
      .on(t.apType, t.actorId, t.isDeleted, t.undoneByInboxObjectId)
      .where(sql`ap_type = 'Follow' AND is_deleted = 0 AND undone_by_inbox_object_id IS NULL`),
    // Tern's revision ae35abd14d3a: the same Follows in the order they arrived, with who sent
    // them (the window's follow requests, newest first).
    index('ix_inbox_follows_arrived')
      .on(t.id, t.actorId)
      .where(sql`ap_type = 'Follow' AND is_deleted = 0 AND undone_by_inbox_object_id IS NULL`),
    ...checks('inbox', {
      datetimes: ['created_at', 'updated_at', 'ap_published_at'],
      bools: ['is_hidden_from_stream', 'is_bookmarked', 'is_deleted', 'is_transient'],
      jsons: ['ap_object'],
      optionalJsons: ['voted_for_answers', 'og_meta'],
      enums: { visibility: VISIBILITIES },
    }),
  ],
);
export type InboxObject = typeof inbox.$inferSelect;
export type NewInboxObject = typeof inbox.$inferInsert;

export const incomingActivity = sqliteTable(
  'incoming_activity',
  {
    id: id(),
    createdAt: createdAt(),
    webmentionSource: str('webmention_source'),
    sentByApActorId: str('sent_by_ap_actor_id'),
    apId: str('ap_id'),
    apObject: json<Record<string, JsonValue>>()('ap_object'),
    tries: integer('tries').notNull(),
    nextTry: datetime('next_try'),
    lastTry: datetime('last_try'),
    isProcessed: bool('is_processed').notNull(),
    isErrored: bool('is_errored').notNull(),
    error: str('error'),
  },
  (t) => [
    index('ix_incoming_activity_ap_id').on(t.apId),
    index('ix_incoming_activity_id').on(t.id),
    // Tern's revision 0d4f0c70f784: the rows still to process, in the processor's order.
    index('ix_incoming_activity_due').on(t.nextTry, t.id).where(sql`is_processed = 0 AND is_errored = 0`),
    ...checks('incoming_activity', {
      datetimes: ['created_at', 'next_try', 'last_try'],
      bools: ['is_processed', 'is_errored'],
      optionalJsons: ['ap_object'],
    }),
  ],
);
export type IncomingActivity = typeof incomingActivity.$inferSelect;
export type NewIncomingActivity = typeof incomingActivity.$inferInsert;

export const indieauthAuthorizationRequest = sqliteTable(
  'indieauth_authorization_request',
  {
    id: id(),
    createdAt: createdAt(),
    code: str('code').notNull(),
    scope: str('scope').notNull(),
    redirectUri: str('redirect_uri').notNull(),
    clientId: str('client_id').notNull(),
    codeChallenge: str('code_challenge'),
    codeChallengeMethod: str('code_challenge_method'),
    isUsed: bool('is_used').notNull(),
  },
  (t) => [
    uniqueIndex('ix_indieauth_authorization_request_code').on(t.code),
    index('ix_indieauth_authorization_request_id').on(t.id),
    ...checks('indieauth_authorization_request', { datetimes: ['created_at'], bools: ['is_used'] }),
  ],
);
export type IndieauthAuthorizationRequest = typeof indieauthAuthorizationRequest.$inferSelect;
export type NewIndieauthAuthorizationRequest = typeof indieauthAuthorizationRequest.$inferInsert;

export const outbox = sqliteTable(
  'outbox',
  {
    id: id(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    isHiddenFromHomepage: bool('is_hidden_from_homepage').notNull(),
    publicId: str('public_id').notNull(),
    apType: str('ap_type').notNull(),
    apId: str('ap_id').notNull(),
    apContext: str('ap_context'),
    apObject: json<Record<string, JsonValue>>()('ap_object').notNull(),
    activityObjectApId: str('activity_object_ap_id'),
    source: str('source'),
    // Parsed only when asked for (StoredJson): whole copies of the post, which lists never show.
    revisions: lazyJson<JsonValue[]>()('revisions'),
    apPublishedAt: datetime('ap_published_at').notNull(),
    visibility: text('visibility', { enum: VISIBILITIES }).notNull(),
    likesCount: integer('likes_count').notNull(),
    announcesCount: integer('announces_count').notNull(),
    repliesCount: integer('replies_count').notNull(),
    webmentionsCount: integer('webmentions_count').notNull().default(0),
    ogMeta: json()('og_meta'),
    isPinned: bool('is_pinned').notNull(),
    isTransient: bool('is_transient').notNull().default(false),
    isDeleted: bool('is_deleted').notNull(),
    relatesToInboxObjectId: integer('relates_to_inbox_object_id').references((): AnySQLiteColumn => inbox.id),
    relatesToOutboxObjectId: integer('relates_to_outbox_object_id').references((): AnySQLiteColumn => outbox.id),
    relatesToActorId: integer('relates_to_actor_id').references(() => actor.id),
    undoneByOutboxObjectId: integer('undone_by_outbox_object_id').references((): AnySQLiteColumn => outbox.id),
  },
  (t) => [
    index('ix_outbox_activity_object_ap_id').on(t.activityObjectApId),
    uniqueIndex('ix_outbox_ap_id').on(t.apId),
    index('ix_outbox_ap_type').on(t.apType),
    index('ix_outbox_id').on(t.id),
    index('ix_outbox_public_id').on(t.publicId),
    // Tern's revision 70cce0da20c3: our replies to a post (see ix_inbox_replies).
    index('ix_outbox_replies')
      .on(sql.raw(IN_REPLY_TO_SQL), t.isDeleted, t.isTransient, t.apType, t.apPublishedAt, t.apId)
      .where(sql.raw(`${IN_REPLY_TO_SQL} IS NOT NULL`)),
    // Tern's revision d58a0b6c3e27: the stream and profile newest first; pinned posts; edits of a
    // post; our answers to a received Follow.
    index('ix_outbox_published').on(t.apPublishedAt, t.id).where(sql`is_deleted = 0 AND is_transient = 0`),
    index('ix_outbox_pinned').on(t.apPublishedAt, t.id).where(sql`is_pinned = 1`),
    index('ix_outbox_relates_to_outbox_object_id').on(t.relatesToOutboxObjectId),
    index('ix_outbox_relates_to_inbox_object_id').on(t.relatesToInboxObjectId),
    // Tern's revision 70cce0da20c3: our Follows standing, by whom (the People view's waiting ones).
    index('ix_outbox_follows')
      .on(t.apType, t.relatesToActorId, t.isDeleted, t.undoneByOutboxObjectId)
      .where(sql`ap_type = 'Follow' AND is_deleted = 0 AND undone_by_outbox_object_id IS NULL`),
    // Tern's revision 4a475cedd483: the posts counted from the index alone; the direct posts.
    index('ix_outbox_counts')
      .on(t.apType, t.visibility, t.isDeleted, t.isTransient, t.undoneByOutboxObjectId)
      .where(sql`is_deleted = 0 AND is_transient = 0 AND undone_by_outbox_object_id IS NULL`),
    index('ix_outbox_direct').on(t.apPublishedAt, t.id).where(sql`visibility = 'DIRECT' AND is_deleted = 0 AND is_transient = 0`),
    ...checks('outbox', {
      datetimes: ['created_at', 'updated_at', 'ap_published_at'],
      bools: ['is_hidden_from_homepage', 'is_pinned', 'is_transient', 'is_deleted'],
      jsons: ['ap_object'],
      optionalJsons: ['revisions', 'og_meta'],
      enums: { visibility: VISIBILITIES },
    }),
  ],
);
export type OutboxObject = typeof outbox.$inferSelect;
export type NewOutboxObject = typeof outbox.$inferInsert;

export const upload = sqliteTable(
  'upload',
  {
    id: id(),
    createdAt: createdAt(),
    contentType: str('content_type').notNull(),
    contentHash: str('content_hash').notNull().unique(),
    hasThumbnail: bool('has_thumbnail').notNull(),
    blurhash: str('blurhash'),
    width: integer('width'),
    height: integer('height'),
  },
  (t) => [
    index('ix_upload_id').on(t.id),
    ...checks('upload', { datetimes: ['created_at'], bools: ['has_thumbnail'] }),
  ],
);
export type Upload = typeof upload.$inferSelect;
export type NewUpload = typeof upload.$inferInsert;

export const follower = sqliteTable(
  'follower',
  {
    id: id(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    actorId: integer('actor_id')
      .notNull()
      .unique()
      .references(() => actor.id),
    inboxObjectId: integer('inbox_object_id')
      .notNull()
      .references(() => inbox.id),
    apActorId: str('ap_actor_id').notNull().unique(),
  },
  (t) => [
    index('ix_follower_id').on(t.id),
    // Tern's revision d58a0b6c3e27: the People list, newest first.
    index('ix_follower_created_at').on(t.createdAt, t.id),
    ...checks('follower', { datetimes: ['created_at', 'updated_at'] }),
  ],
);
export type Follower = typeof follower.$inferSelect;
export type NewFollower = typeof follower.$inferInsert;

export const following = sqliteTable(
  'following',
  {
    id: id(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    actorId: integer('actor_id')
      .notNull()
      .unique()
      .references(() => actor.id),
    outboxObjectId: integer('outbox_object_id')
      .notNull()
      .references(() => outbox.id),
    apActorId: str('ap_actor_id').notNull().unique(),
  },
  (t) => [
    index('ix_following_id').on(t.id),
    // Tern's revision d58a0b6c3e27: the People list, newest first.
    index('ix_following_created_at').on(t.createdAt, t.id),
    ...checks('following', { datetimes: ['created_at', 'updated_at'] }),
  ],
);
export type Following = typeof following.$inferSelect;
export type NewFollowing = typeof following.$inferInsert;

export const indieauthAccessToken = sqliteTable(
  'indieauth_access_token',
  {
    id: id(),
    createdAt: createdAt(),
    indieauthAuthorizationRequestId: integer('indieauth_authorization_request_id').references(
      () => indieauthAuthorizationRequest.id,
    ),
    accessToken: str('access_token').notNull(),
    /** Seconds (the spec leaves the unit open; Tern and the service behind it use seconds). */
    expiresIn: integer('expires_in').notNull(),
    scope: str('scope').notNull(),
    isRevoked: bool('is_revoked').notNull(),
  },
  (t) => [
    uniqueIndex('ix_indieauth_access_token_access_token').on(t.accessToken),
    index('ix_indieauth_access_token_id').on(t.id),
    ...checks('indieauth_access_token', { datetimes: ['created_at'], bools: ['is_revoked'] }),
  ],
);
export type IndieauthAccessToken = typeof indieauthAccessToken.$inferSelect;
export type NewIndieauthAccessToken = typeof indieauthAccessToken.$inferInsert;

export const outboxObjectAttachment = sqliteTable(
  'outbox_object_attachment',
  {
    id: id(),
    createdAt: createdAt(),
    filename: str('filename').notNull(),
    alt: str('alt'),
    outboxObjectId: integer('outbox_object_id')
      .notNull()
      .references(() => outbox.id),
    uploadId: integer('upload_id')
      .notNull()
      .references(() => upload.id),
  },
  (t) => [
    index('ix_outbox_object_attachment_id').on(t.id),
    // Tern's (revision e7c3a9d51b20): which posts use an upload.
    index('ix_outbox_object_attachment_upload_id').on(t.uploadId),
    ...checks('outbox_object_attachment', { datetimes: ['created_at'] }),
  ],
);
export type OutboxObjectAttachment = typeof outboxObjectAttachment.$inferSelect;
export type NewOutboxObjectAttachment = typeof outboxObjectAttachment.$inferInsert;

export const outgoingActivity = sqliteTable(
  'outgoing_activity',
  {
    id: id(),
    createdAt: createdAt(),
    recipient: str('recipient').notNull(),
    outboxObjectId: integer('outbox_object_id').references(() => outbox.id),
    inboxObjectId: integer('inbox_object_id').references(() => inbox.id),
    webmentionTarget: str('webmention_target'),
    tries: integer('tries').notNull(),
    nextTry: datetime('next_try'),
    lastTry: datetime('last_try'),
    lastStatusCode: integer('last_status_code'),
    lastResponse: str('last_response'),
    isSent: bool('is_sent').notNull(),
    isErrored: bool('is_errored').notNull(),
    error: str('error'),
  },
  (t) => [
    index('ix_outgoing_activity_id').on(t.id),
    // Tern's (revision e7c3a9d51b20): the webmentions Tern sent.
    index('ix_outgoing_activity_webmention_target').on(t.webmentionTarget).where(sql`webmention_target IS NOT NULL`),
    // Tern's revision d58a0b6c3e27: a post's deliveries; those not sent (the Deliveries filters and counts).
    index('ix_outgoing_activity_outbox_object_id').on(t.outboxObjectId, t.id),
    index('ix_outgoing_activity_unsent').on(t.isErrored, t.id).where(sql`is_sent = 0`),
    // Tern's revision ae35abd14d3a: the waiting rows counted by activity, state and kind of recipient.
    index('ix_outgoing_activity_waiting')
      .on(t.outboxObjectId, t.tries, t.recipient)
      .where(sql`is_sent = 0 AND is_errored = 0`),
    ...checks('outgoing_activity', {
      datetimes: ['created_at', 'next_try', 'last_try'],
      bools: ['is_sent', 'is_errored'],
    }),
  ],
);
export type OutgoingActivity = typeof outgoingActivity.$inferSelect;
export type NewOutgoingActivity = typeof outgoingActivity.$inferInsert;

export const pollAnswer = sqliteTable(
  'poll_answer',
  {
    id: id(),
    createdAt: createdAt(),
    outboxObjectId: integer('outbox_object_id')
      .notNull()
      .references(() => outbox.id),
    pollType: str('poll_type').notNull(),
    inboxObjectId: integer('inbox_object_id')
      .notNull()
      .references(() => inbox.id),
    actorId: integer('actor_id')
      .notNull()
      .references(() => actor.id),
    name: str('name').notNull(),
  },
  (t) => [
    unique('uix_outbox_object_id_name_actor_id').on(t.outboxObjectId, t.name, t.actorId),
    index('ix_poll_answer_id').on(t.id),
    // One answer per actor in a single-choice poll; multiple-choice answers are not covered.
    uniqueIndex('uix_one_of_outbox_object_id_actor_id')
      .on(t.outboxObjectId, t.actorId)
      .where(sql.raw(`poll_type = 'oneOf'`)),
    // Tern's (revision e7c3a9d51b20): whether an actor already voted, in any poll.
    index('ix_poll_answer_outbox_object_id_actor_id').on(t.outboxObjectId, t.actorId),
    ...checks('poll_answer', { datetimes: ['created_at'] }),
  ],
);
export type PollAnswer = typeof pollAnswer.$inferSelect;
export type NewPollAnswer = typeof pollAnswer.$inferInsert;

export const taggedOutboxObject = sqliteTable(
  'tagged_outbox_object',
  {
    id: id(),
    outboxObjectId: integer('outbox_object_id')
      .notNull()
      .references(() => outbox.id),
    tag: str('tag').notNull(),
  },
  (t) => [
    unique('uix_tagged_object').on(t.outboxObjectId, t.tag),
    index('ix_tagged_outbox_object_id').on(t.id),
    index('ix_tagged_outbox_object_tag').on(t.tag),
  ],
);
export type TaggedOutboxObject = typeof taggedOutboxObject.$inferSelect;
export type NewTaggedOutboxObject = typeof taggedOutboxObject.$inferInsert;

export const webmention = sqliteTable(
  'webmention',
  {
    id: id(),
    createdAt: createdAt(),
    isDeleted: bool('is_deleted').notNull(),
    source: str('source').notNull(),
    sourceMicroformats: json()('source_microformats'),
    target: str('target').notNull(),
    outboxObjectId: integer('outbox_object_id')
      .notNull()
      .references(() => outbox.id),
  },
  (t) => [
    unique('uix_source_target').on(t.source, t.target),
    index('ix_webmention_id').on(t.id),
    // At most one webmention row per source (the spec's rule, kept as the service has it).
    uniqueIndex('ix_webmention_source').on(t.source),
    index('ix_webmention_target').on(t.target),
    // Tern's revision ae35abd14d3a: a post's webmentions, newest first (and grouped by post).
    index('ix_webmention_post').on(t.outboxObjectId, t.id),
    ...checks('webmention', { datetimes: ['created_at'], bools: ['is_deleted'], optionalJsons: ['source_microformats'] }),
  ],
);
export type Webmention = typeof webmention.$inferSelect;
export type NewWebmention = typeof webmention.$inferInsert;

export const notifications = sqliteTable(
  'notifications',
  {
    id: id(),
    createdAt: createdAt(),
    notificationType: text('notification_type', { enum: NOTIFICATION_TYPES }),
    isNew: bool('is_new').notNull(),
    actorId: integer('actor_id').references(() => actor.id),
    outboxObjectId: integer('outbox_object_id').references(() => outbox.id),
    inboxObjectId: integer('inbox_object_id').references(() => inbox.id),
    webmentionId: integer('webmention_id').references(() => webmention.id),
  },
  (t) => [
    index('ix_notifications_id').on(t.id),
    // Tern's (revision e7c3a9d51b20): the notifications of a webmention.
    index('ix_notifications_webmention_id').on(t.webmentionId).where(sql`webmention_id IS NOT NULL`),
    // Tern's revision d58a0b6c3e27: unread first, then newest (the list), and the unread count.
    index('ix_notifications_is_new_created_at').on(t.isNew, t.createdAt, t.id),
    ...checks('notifications', {
      datetimes: ['created_at'],
      bools: ['is_new'],
      enums: { notification_type: NOTIFICATION_TYPES },
    }),
  ],
);
export type Notification = typeof notifications.$inferSelect;
export type NewNotification = typeof notifications.$inferInsert;

export const oauthClient = sqliteTable(
  'oauth_client',
  {
    id: id(),
    createdAt: createdAt(),
    clientName: str('client_name').notNull(),
    redirectUris: json<string[]>()('redirect_uris'),
    clientUri: str('client_uri'),
    logoUri: str('logo_uri'),
    scope: str('scope'),
    clientId: str('client_id').notNull(),
    clientSecret: str('client_secret').notNull().unique(),
  },
  (t) => [
    uniqueIndex('ix_oauth_client_client_id').on(t.clientId),
    index('ix_oauth_client_id').on(t.id),
    ...checks('oauth_client', { datetimes: ['created_at'], optionalJsons: ['redirect_uris'] }),
  ],
);
export type OauthClient = typeof oauthClient.$inferSelect;
export type NewOauthClient = typeof oauthClient.$inferInsert;

/** Every table of the schema, by SQL name, in creation order. */
export const tables = {
  actor,
  inbox,
  incoming_activity: incomingActivity,
  indieauth_authorization_request: indieauthAuthorizationRequest,
  outbox,
  upload,
  follower,
  following,
  indieauth_access_token: indieauthAccessToken,
  outbox_object_attachment: outboxObjectAttachment,
  outgoing_activity: outgoingActivity,
  poll_answer: pollAnswer,
  tagged_outbox_object: taggedOutboxObject,
  webmention,
  notifications,
  oauth_client: oauthClient,
} as const;
