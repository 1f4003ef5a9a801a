// Revision 70cce0da20c3: Tern's own, after d58a0b6c3e27. The Follows still standing, in each
// direction, in actor order, for the People view's follow requests and our Follows waiting:
// - received Follows not withdrawn (Undo) nor deleted, by the asking actor. A follower's Follow
//   stays in the inbox after it is accepted, so there are about as many as there are followers
//   (5,000 in bench/scale-phase.ts). Each request check read every one of those rows and looked
//   its actor up in the follower index (2.7 ms of a 9 ms People page); from this index alone,
//   merged with the follower index (both in actor order), it reads no inbox row but those of
//   the people who are not followers;
// - our own Follows not undone nor deleted, by the actor followed, merged the same way with the
//   following index.
// The columns the WHERE clauses name are in each index, so the merge reads the index alone
// (a partial index's own condition does not make it covering for SQLite). The leading ap_type
// makes it the index SQLite picks for `ap_type = 'Follow'` over ix_*_ap_type.
// Indexes only: no table or row changes, and downgrading drops them.
//
// Frozen: literal SQL, never generated from db/schema.ts (see f5717d82b3ff_initial.ts). The
// partial indexes' WHERE clauses are the very terms the queries state (SQLite uses a partial
// index only for a query whose WHERE implies its own, term for term).
import type { Revision } from './revision';

const UPGRADE = `
CREATE INDEX ix_inbox_follows ON inbox (ap_type, actor_id, is_deleted, undone_by_inbox_object_id) WHERE ap_type = 'Follow' AND is_deleted = 0 AND undone_by_inbox_object_id IS NULL;
CREATE INDEX ix_outbox_follows ON outbox (ap_type, relates_to_actor_id, is_deleted, undone_by_outbox_object_id) WHERE ap_type = 'Follow' AND is_deleted = 0 AND undone_by_outbox_object_id IS NULL;
`;

const DOWNGRADE = `
DROP INDEX ix_outbox_follows;
DROP INDEX ix_inbox_follows;
`;

export const followIndexes: Revision = {
  id: '70cce0da20c3',
  parent: 'd58a0b6c3e27',
  description: 'indexes: standing Follows by actor',
  upgrade: (sqlite) => {
    sqlite.exec(UPGRADE);
  },
  downgrade: (sqlite) => {
    sqlite.exec(DOWNGRADE);
  },
};
