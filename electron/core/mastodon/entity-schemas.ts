// Mastodon's documented entities (docs.joinmastodon.org/entities/…) as zod schemas, for the
// shape tests: each required field with its documented type and nullability. Written from the
// documentation, not from Tern's mapper. Not imported by production code.
import { z } from 'zod';

const datetime = z.string().refine((s) => !Number.isNaN(Date.parse(s)) && /^\d{4}-\d{2}-\d{2}T/.test(s), 'an ISO 8601 datetime');
const id = z.string().min(1);
const url = z.string().url();

export const CustomEmoji = z.object({ shortcode: z.string(), url, static_url: url, visible_in_picker: z.boolean() });
export const Field = z.object({ name: z.string(), value: z.string(), verified_at: datetime.nullable() });

export const Account = z.object({
  id,
  username: z.string(),
  acct: z.string(),
  url,
  uri: url,
  display_name: z.string(),
  note: z.string(),
  avatar: url,
  avatar_static: url,
  header: url,
  header_static: url,
  locked: z.boolean(),
  fields: z.array(Field),
  emojis: z.array(CustomEmoji),
  bot: z.boolean(),
  group: z.boolean(),
  discoverable: z.boolean().nullable(),
  created_at: datetime,
  last_status_at: z.string().nullable(),
  statuses_count: z.number().int().nonnegative(),
  followers_count: z.number().int().nonnegative(),
  following_count: z.number().int().nonnegative(),
});

export const MediaAttachment = z.object({
  id,
  type: z.enum(['unknown', 'image', 'gifv', 'video', 'audio']),
  url,
  preview_url: url.nullable(),
  remote_url: url.nullable(),
  meta: z.record(z.string(), z.unknown()),
  description: z.string().nullable(),
  blurhash: z.string().nullable(),
});

export const Poll = z.object({
  id,
  expires_at: datetime.nullable(),
  expired: z.boolean(),
  multiple: z.boolean(),
  votes_count: z.number().int().nonnegative(),
  voters_count: z.number().int().nonnegative().nullable(),
  options: z.array(z.object({ title: z.string(), votes_count: z.number().int().nonnegative().nullable() })),
  emojis: z.array(CustomEmoji),
  voted: z.boolean().optional(),
  own_votes: z.array(z.number().int().nonnegative()).optional(),
});

const StatusBase = z.object({
  id,
  uri: z.string().min(1),
  created_at: datetime,
  account: Account,
  content: z.string(),
  visibility: z.enum(['public', 'unlisted', 'private', 'direct']),
  sensitive: z.boolean(),
  spoiler_text: z.string(),
  media_attachments: z.array(MediaAttachment),
  mentions: z.array(z.object({ id, username: z.string(), url, acct: z.string() })),
  tags: z.array(z.object({ name: z.string(), url })),
  emojis: z.array(CustomEmoji),
  reblogs_count: z.number().int().nonnegative(),
  favourites_count: z.number().int().nonnegative(),
  replies_count: z.number().int().nonnegative(),
  url: url.nullable(),
  in_reply_to_id: id.nullable(),
  in_reply_to_account_id: id.nullable(),
  poll: Poll.nullable(),
  card: z.object({ url, title: z.string() }).passthrough().nullable(),
  language: z.string().nullable(),
  text: z.string().nullable(),
  edited_at: datetime.nullable(),
  favourited: z.boolean().optional(),
  reblogged: z.boolean().optional(),
  muted: z.boolean().optional(),
  bookmarked: z.boolean().optional(),
  pinned: z.boolean().optional(),
  // Pleroma's and Akkoma's extension, read by clients with reaction support.
  pleroma: z.object({ emoji_reactions: z.array(z.object({ name: z.string().min(1), count: z.number().int().positive(), me: z.boolean(), url: url.optional(), static_url: url.optional() })) }).optional(),
});
export const Status = StatusBase.extend({ reblog: StatusBase.extend({ reblog: z.null() }).nullable() });

export const Context = z.object({ ancestors: z.array(Status), descendants: z.array(Status) });

export const Notification = z.object({
  id,
  type: z.enum(['mention', 'status', 'reblog', 'follow', 'follow_request', 'favourite', 'poll', 'update', 'admin.sign_up', 'admin.report', 'severed_relationships', 'moderation_warning', 'quote', 'quoted_update', 'pleroma:emoji_reaction']),
  created_at: datetime,
  account: Account,
  status: Status.optional(),
  emoji: z.string().min(1).optional(),
  emoji_url: url.optional(),
  group_key: z.string().min(1),
});

/** Mastodon 4.3's NotificationGroup, with Pleroma's emoji (and emoji_url) on a reaction group. */
export const NotificationGroup = z.object({
  group_key: z.string().min(1),
  notifications_count: z.number().int().positive(),
  type: Notification.shape.type,
  most_recent_notification_id: z.string().regex(/^\d+$/),
  page_min_id: z.string().regex(/^\d+$/),
  page_max_id: z.string().regex(/^\d+$/),
  latest_page_notification_at: datetime,
  sample_account_ids: z.array(z.string()).min(1).max(8),
  status_id: z.string().optional(),
  emoji: z.string().min(1).optional(),
  emoji_url: url.optional(),
});

export const GroupedNotifications = z.object({
  accounts: z.array(Account),
  statuses: z.array(Status),
  notification_groups: z.array(NotificationGroup),
});

export const Relationship = z.object({
  id,
  following: z.boolean(),
  showing_reblogs: z.boolean(),
  notifying: z.boolean(),
  languages: z.array(z.string()).nullable(),
  followed_by: z.boolean(),
  blocking: z.boolean(),
  blocked_by: z.boolean(),
  muting: z.boolean(),
  muting_notifications: z.boolean(),
  requested: z.boolean(),
  requested_by: z.boolean(),
  domain_blocking: z.boolean(),
  endorsed: z.boolean(),
  note: z.string(),
});

const limits = z.object({
  statuses: z.object({ max_characters: z.number().int(), max_media_attachments: z.number().int(), characters_reserved_per_url: z.number().int() }),
  media_attachments: z.object({
    supported_mime_types: z.array(z.string()),
    image_size_limit: z.number().int(),
    image_matrix_limit: z.number().int(),
    video_size_limit: z.number().int(),
    video_frame_rate_limit: z.number().int(),
    video_matrix_limit: z.number().int(),
  }),
  polls: z.object({ max_options: z.number().int(), max_characters_per_option: z.number().int(), min_expiration: z.number().int(), max_expiration: z.number().int() }),
});

export const InstanceV2 = z.object({
  domain: z.string(),
  title: z.string(),
  version: z.string(),
  source_url: url,
  description: z.string(),
  usage: z.object({ users: z.object({ active_month: z.number().int() }) }),
  thumbnail: z.object({ url }),
  languages: z.array(z.string()),
  configuration: limits.extend({ urls: z.object({ streaming: z.string().regex(/^wss?:\/\//) }), accounts: z.object({ max_featured_tags: z.number().int() }), translation: z.object({ enabled: z.boolean() }) }),
  registrations: z.object({ enabled: z.boolean(), approval_required: z.boolean(), message: z.string().nullable() }),
  contact: z.object({ email: z.string(), account: Account }),
  rules: z.array(z.object({ id, text: z.string() })),
});

export const InstanceV1 = z.object({
  uri: z.string(),
  title: z.string(),
  short_description: z.string(),
  description: z.string(),
  email: z.string(),
  version: z.string(),
  urls: z.object({ streaming_api: z.string().regex(/^wss?:\/\//) }),
  stats: z.object({ user_count: z.number().int(), status_count: z.number().int(), domain_count: z.number().int() }),
  thumbnail: url,
  languages: z.array(z.string()),
  registrations: z.boolean(),
  approval_required: z.boolean(),
  invites_enabled: z.boolean(),
  configuration: limits,
  contact_account: Account,
  rules: z.array(z.object({ id, text: z.string() })),
});

export const Application = z.object({ name: z.string(), website: z.string().nullable(), client_id: z.string(), client_secret: z.string(), redirect_uris: z.array(z.string()), scopes: z.array(z.string()) });
export const Token = z.object({ access_token: z.string(), token_type: z.literal('Bearer'), scope: z.string(), created_at: z.number().int() });
export const ErrorBody = z.object({ error: z.string().min(1) });
