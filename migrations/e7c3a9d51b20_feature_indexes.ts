// Revision e7c3a9d51b20: Tern's own, after 0d4f0c70f784. Indexes for look-ups that polls,
// media and webmentions make on every request or row, which otherwise scan a whole table:
// - which posts use an upload (the listener checks it before serving any file, and a deleted
//   post's uploads are kept while another post uses them): outbox_object_attachment.upload_id;
// - the notifications of a webmention (the Webmentions view shows each one's state):
//   notifications.webmention_id, partial — most notifications have none;
// - the webmentions Tern sent (the Sent list): outgoing_activity.webmention_target, only the
//   rows that have one, so the index stays as small as the list;
// - whether an actor already voted in a poll (every vote checks it; the oneOf index covers only
//   single-choice polls): poll_answer (outbox_object_id, actor_id).
// Indexes only: no table or row changes, and downgrading drops them.
//
// Frozen: literal SQL, never generated from db/schema.ts (see f5717d82b3ff_initial.ts).
import type { Revision } from './revision';

const UPGRADE = `
CREATE INDEX ix_outbox_object_attachment_upload_id ON outbox_object_attachment (upload_id);
CREATE INDEX ix_notifications_webmention_id ON notifications (webmention_id) WHERE webmention_id IS NOT NULL;
CREATE INDEX ix_outgoing_activity_webmention_target ON outgoing_activity (webmention_target) WHERE webmention_target IS NOT NULL;
CREATE INDEX ix_poll_answer_outbox_object_id_actor_id ON poll_answer (outbox_object_id, actor_id);
`;

const DOWNGRADE = `
DROP INDEX ix_poll_answer_outbox_object_id_actor_id;
DROP INDEX ix_outgoing_activity_webmention_target;
DROP INDEX ix_notifications_webmention_id;
DROP INDEX ix_outbox_object_attachment_upload_id;
`;

export const featureIndexes: Revision = {
  id: 'e7c3a9d51b20',
  parent: '0d4f0c70f784',
  description: 'indexes: attachment upload_id, notification webmention_id, sent webmentions, poll votes by actor',
  upgrade: (sqlite) => {
    sqlite.exec(UPGRADE);
  },
  downgrade: (sqlite) => {
    sqlite.exec(DOWNGRADE);
  },
};
