// Revision d58a0b6c3e27: Tern's own, after 9519a2c5ec87. Indexes for the pages the author opens,
// so that each reads a page's worth of rows however many years of rows the file holds
// (bench/scale-phase.ts measures them on 1,000,000 inbox and 2,000,000 outgoing_activity rows;
// electron/core/ipc/query-plans.test.ts checks each page's statements use them):
// - the home stream and the profile, newest first by (ap_published_at, id) and cut by a cursor
//   on the same pair: of the inbox, only the rows the stream shows (partial); of the outbox,
//   those not deleted nor transient, and the pinned posts apart. Without them every page
//   sorted every Note ever received;
// - notifications unread first, then newest (the list's order, cut by a cursor), which also
//   makes the unread count a range of the index;
// - a post's deliveries (its delivery state, the Deliveries view filtered to it) and the edits
//   of a post (outbox rows relating to it), instead of reading the whole delivery history;
// - our answers to a received object (an Accept or Reject relating to a Follow: the People
//   view's follow requests checked each pending Follow against every outbox row);
// - the deliveries not sent (waiting or failed), in id order: the Deliveries view's filters and
//   its counts, which read only those and the table's size;
// - followers and followed people by when (the People lists, cut by a cursor).
// Indexes only: no table or row changes, and downgrading drops them.
//
// Frozen: literal SQL, never generated from db/schema.ts (see f5717d82b3ff_initial.ts). The
// partial indexes' WHERE clauses are the very terms the queries state (SQLite uses a partial
// index only for a query whose WHERE implies its own, term for term).
import type { Revision } from './revision';

const UPGRADE = `
CREATE INDEX ix_inbox_stream ON inbox (ap_published_at, id) WHERE is_hidden_from_stream = 0 AND is_deleted = 0 AND is_transient = 0;
CREATE INDEX ix_outbox_published ON outbox (ap_published_at, id) WHERE is_deleted = 0 AND is_transient = 0;
CREATE INDEX ix_outbox_pinned ON outbox (ap_published_at, id) WHERE is_pinned = 1;
CREATE INDEX ix_outbox_relates_to_outbox_object_id ON outbox (relates_to_outbox_object_id);
CREATE INDEX ix_outbox_relates_to_inbox_object_id ON outbox (relates_to_inbox_object_id);
CREATE INDEX ix_notifications_is_new_created_at ON notifications (is_new, created_at, id);
CREATE INDEX ix_outgoing_activity_outbox_object_id ON outgoing_activity (outbox_object_id, id);
CREATE INDEX ix_outgoing_activity_unsent ON outgoing_activity (is_errored, id) WHERE is_sent = 0;
CREATE INDEX ix_follower_created_at ON follower (created_at, id);
CREATE INDEX ix_following_created_at ON following (created_at, id);
`;

const DOWNGRADE = `
DROP INDEX ix_following_created_at;
DROP INDEX ix_follower_created_at;
DROP INDEX ix_outgoing_activity_unsent;
DROP INDEX ix_outgoing_activity_outbox_object_id;
DROP INDEX ix_notifications_is_new_created_at;
DROP INDEX ix_outbox_relates_to_inbox_object_id;
DROP INDEX ix_outbox_relates_to_outbox_object_id;
DROP INDEX ix_outbox_pinned;
DROP INDEX ix_outbox_published;
DROP INDEX ix_inbox_stream;
`;

export const scaleIndexes: Revision = {
  id: 'd58a0b6c3e27',
  parent: 'c41f7a2e9d15',
  description: 'indexes for pages at scale',
  upgrade: (sqlite) => {
    sqlite.exec(UPGRADE);
  },
  downgrade: (sqlite) => {
    sqlite.exec(DOWNGRADE);
  },
};
