// The terms of the partial indexes the author's and received posts are read by, written as the
// indexes state them: SQLite uses a partial index only for a query whose WHERE states the
// index's own terms (`is_deleted = ?` bound to 0 does not do), so these are literal SQL, never
// drizzle's eq(column, false). Type lists are checked row by row (`+`): read by ix_*_ap_type,
// SQLite read every post of those types and sorted them all for each page. The lists the
// listener answers anyone (the outbox, the Mastodon API's pages) read a page's rows this way
// however many posts there are (test/hostile/audit-*.test.ts check their query plans).
import { sql } from 'drizzle-orm';
import { inbox, outbox } from '../../../db/schema';

/** ix_inbox_stream's terms (revision d58a0b6c3e27): the home stream. */
export const IN_STREAM = sql`${inbox.isHiddenFromStream} = 0 AND ${inbox.isDeleted} = 0 AND ${inbox.isTransient} = 0`;
/** ix_outbox_published's terms (revision d58a0b6c3e27): the author's posts, newest first. */
export const OWN_SHOWN = sql`${outbox.isDeleted} = 0 AND ${outbox.isTransient} = 0`;
/** ix_outbox_counts' terms (revision 4a475cedd483): the author's posts counted from that index alone. */
export const OWN_COUNTED = sql`${outbox.isDeleted} = 0 AND ${outbox.isTransient} = 0 AND ${outbox.undoneByOutboxObjectId} IS NULL`;
/** A table's ap_type, checked row by row rather than read by its index. */
export const typeOf = (table: typeof inbox | typeof outbox) => sql`+${table.apType}`;
