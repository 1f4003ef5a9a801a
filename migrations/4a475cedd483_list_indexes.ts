// Revision 4a475cedd483: Tern's own, after 5d0e8a3c71f4. Indexes for what the listener answers
// anyone (or any client of the author's) on its own thread, which otherwise read a whole table
// for each answer (test/hostile/audit-*.test.ts measure them):
// - how many posts the author has (the outbox's totalItems, Mastodon's statuses_count and the
//   instance's status_count, asked with no token): of the outbox rows not deleted, transient or
//   undone, by type and visibility, with the flags the WHERE names, so the count reads this
//   index alone. Counted from ix_outbox_published, every post's row was read: 100,000 posts
//   held the thread 80 ms for each count, and /api/v1/accounts/0/statuses counts once per page;
// - the received posts the author bookmarked, and those the author liked (the Mastodon API's
//   bookmarks and favourites), newest first: a few hundred among a million received rows were
//   found by reading and sorting all of them, for each page;
// - the direct posts, received and the author's own (the Mastodon API's conversations), the
//   same way.
// Each list's index holds only its rows (partial), so a page reads that page's rows.
// Indexes only: no table or row changes, and downgrading drops them.
//
// Frozen: literal SQL, never generated from db/schema.ts (see f5717d82b3ff_initial.ts). The
// partial indexes' WHERE clauses are the very terms the queries state (SQLite uses a partial
// index only for a query whose WHERE implies its own, term for term; a bound parameter does not
// do), and they hold in the sqlite3 3.40 shell of Debian 12 as in Tern's SQLite.
import type { Revision } from './revision';

const UPGRADE = `
CREATE INDEX ix_outbox_counts ON outbox (ap_type, visibility, is_deleted, is_transient, undone_by_outbox_object_id) WHERE is_deleted = 0 AND is_transient = 0 AND undone_by_outbox_object_id IS NULL;
CREATE INDEX ix_outbox_direct ON outbox (ap_published_at, id) WHERE visibility = 'DIRECT' AND is_deleted = 0 AND is_transient = 0;
CREATE INDEX ix_inbox_bookmarked ON inbox (ap_published_at, id) WHERE is_bookmarked = 1 AND is_deleted = 0 AND is_transient = 0;
CREATE INDEX ix_inbox_liked ON inbox (ap_published_at, id) WHERE liked_via_outbox_object_ap_id IS NOT NULL AND is_deleted = 0 AND is_transient = 0;
CREATE INDEX ix_inbox_direct ON inbox (ap_published_at, id) WHERE visibility = 'DIRECT' AND is_deleted = 0 AND is_transient = 0;
`;

const DOWNGRADE = `
DROP INDEX ix_inbox_direct;
DROP INDEX ix_inbox_liked;
DROP INDEX ix_inbox_bookmarked;
DROP INDEX ix_outbox_direct;
DROP INDEX ix_outbox_counts;
`;

export const listIndexes: Revision = {
  id: '4a475cedd483',
  parent: '5d0e8a3c71f4',
  description: 'indexes: own posts counted, bookmarks, favourites, direct posts',
  upgrade: (sqlite) => {
    sqlite.exec(UPGRADE);
  },
  downgrade: (sqlite) => {
    sqlite.exec(DOWNGRADE);
  },
};
