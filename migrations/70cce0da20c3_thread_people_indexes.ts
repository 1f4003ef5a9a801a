// Revision 70cce0da20c3: Tern's own, after d58a0b6c3e27. Indexes for the thread and People
// pages at scale (bench/scale-phase.ts: 1,000,000 inbox rows):
// - the replies to a post, for the thread's reply tree and the replies recount: the inReplyTo
//   indexes of 0d4f0c70f784 held every row (NULL for all that reply to nothing: Follows, Likes,
//   Announces, most Notes) and no column, so each reply found was then read from its row, one
//   page per reply wherever it lies in the file. These hold only the rows that reply to
//   something, with what the tree and the recount read of them (deleted/transient flags, time,
//   ap_id; our own rows' ap_type): a thread's replies come from the index alone;
// - the Follows still standing (not withdrawn/undone nor deleted) in each direction, by actor,
//   for the People view's follow requests and our Follows waiting. A follower's Follow stays in
//   the inbox after it is accepted, so there are about as many as there are followers (5,000 in
//   the bench). Each request check read every one of those rows and looked its actor up in the
//   follower index (2.7 ms of a 9 ms People page); from this index alone, merged with the
//   follower index (both in actor order), it reads no inbox row but those of the people who are
//   not followers. Our own Follows likewise, with the following index.
// The columns the WHERE clauses name are in each index, so these reads need no row (a partial
// index's own condition does not make it covering for SQLite). The leading ap_type makes the
// Follows' indexes the ones SQLite picks for `ap_type = 'Follow'` over ix_*_ap_type.
// Indexes only: no table or row changes; downgrading puts the inReplyTo indexes of 0d4f0c70f784
// back and drops the others.
//
// Frozen: literal SQL, never generated from db/schema.ts (see f5717d82b3ff_initial.ts). The
// expression is the one db/schema.ts declares (IN_REPLY_TO_SQL) and the queries read by (SQLite
// uses an expression index only for that same expression); a query's `expression = value`
// implies the replies indexes' `IS NOT NULL`, and the Follows' indexes' WHERE clauses are the
// very terms the queries state (SQLite uses a partial index only for a query whose WHERE
// implies its own, term for term).
import type { Revision } from './revision';

const IN_REPLY_TO = "coalesce(json_extract(ap_object, '$.inReplyTo.id'), json_extract(ap_object, '$.inReplyTo'))";

const UPGRADE = `
DROP INDEX ix_inbox_in_reply_to;
CREATE INDEX ix_inbox_replies ON inbox (${IN_REPLY_TO}, is_deleted, is_transient, ap_published_at, ap_id) WHERE ${IN_REPLY_TO} IS NOT NULL;
DROP INDEX ix_outbox_in_reply_to;
CREATE INDEX ix_outbox_replies ON outbox (${IN_REPLY_TO}, is_deleted, is_transient, ap_type, ap_published_at, ap_id) WHERE ${IN_REPLY_TO} IS NOT NULL;
CREATE INDEX ix_inbox_follows ON inbox (ap_type, actor_id, is_deleted, undone_by_inbox_object_id) WHERE ap_type = 'Follow' AND is_deleted = 0 AND undone_by_inbox_object_id IS NULL;
CREATE INDEX ix_outbox_follows ON outbox (ap_type, relates_to_actor_id, is_deleted, undone_by_outbox_object_id) WHERE ap_type = 'Follow' AND is_deleted = 0 AND undone_by_outbox_object_id IS NULL;
`;

const DOWNGRADE = `
DROP INDEX ix_outbox_follows;
DROP INDEX ix_inbox_follows;
DROP INDEX ix_outbox_replies;
CREATE INDEX ix_outbox_in_reply_to ON outbox (${IN_REPLY_TO});
DROP INDEX ix_inbox_replies;
CREATE INDEX ix_inbox_in_reply_to ON inbox (${IN_REPLY_TO});
`;

export const threadPeopleIndexes: Revision = {
  id: '70cce0da20c3',
  parent: 'd58a0b6c3e27',
  description: 'indexes: replies with what the thread reads, standing Follows by actor',
  upgrade: (sqlite) => {
    sqlite.exec(UPGRADE);
  },
  downgrade: (sqlite) => {
    sqlite.exec(DOWNGRADE);
  },
};
