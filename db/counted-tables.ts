// The spec's 16 records: the tables the status channel counts (ipc/contract.ts) and the move
// from microblog.pub reports (electron/core/data/microblogpub-import.ts).
/** Names of the tables the status channel counts (the spec's 16 records). */
export const COUNTED_TABLES = [
  'actor',
  'inbox',
  'incoming_activity',
  'indieauth_authorization_request',
  'outbox',
  'upload',
  'follower',
  'following',
  'indieauth_access_token',
  'outbox_object_attachment',
  'outgoing_activity',
  'poll_answer',
  'tagged_outbox_object',
  'webmention',
  'notifications',
  'oauth_client',
] as const;
export type CountedTable = (typeof COUNTED_TABLES)[number];
