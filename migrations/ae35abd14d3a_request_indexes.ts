// Revision ae35abd14d3a: Tern's own, after 4a475cedd483. An index for the window's list of
// follow requests, newest first, a page at a time (follow-requests.ts NEWEST): the Follows
// received and standing (not withdrawn nor deleted), in the order they arrived, each with who
// sent it. Remote actors decide how many Follows there are; a page walks this index from the
// newest and passes the followers' own Follows (a follower's Follow stays in the inbox) by their
// sender alone, no row read. Without it the list either walked every Follow received by the index
// on ap_type, each row read (100,000 followers' Follows passed: 100 ms), or sorted every request
// (100,000 waiting: 320 ms). And an index for the webmentions of each post (the Webmentions
// view, grouped by post, and each post's list, newest first): the spec indexes target only, so
// both read the whole table, and a flood of webmentions to one post was read again for every
// other post's group (100,000 webmentions: 310 ms).
// And an index of where each actor receives, beside its id: its shared inbox and its own, read
// out of its document (db/schema.ts SHARED_INBOX_SQL, OWN_INBOX_SQL), so the followers' inboxes
// of a post are read from the index, not by decoding every follower's document (remote actors
// decide how many follow, and how big their documents are: 10,000 followers with 4 KB documents
// held the thread 114–228 ms for each post, edit, boost and profile change; now 2–4 ms).
// And an index of the deliveries waiting, by activity, with their tries and their recipient (an
// address still to resolve: acct:, actor:, webmention:), which the tray, the status
// line and the Deliveries view count at every refresh: 200,000 waiting (ten posts written offline
// to 20,000 followers' inboxes) were each read and joined to their post, 60–80 ms a count.
// Indexes only: no table or row changes, and downgrading drops them.
//
// Frozen: literal SQL, never generated from db/schema.ts (see f5717d82b3ff_initial.ts). The
// partial index's WHERE clause is the very terms the query states (SQLite uses a partial index
// only for a query whose WHERE implies its own, term for term; a bound parameter does not do),
// and it holds in the sqlite3 3.40 shell of Debian 12 as in Tern's SQLite.
import type { Revision } from './revision';

const SHARED_INBOX =
  "CASE WHEN json_valid(ap_actor) THEN coalesce(CASE json_type(ap_actor, '$.endpoints.sharedInbox') WHEN 'text' THEN ap_actor ->> '$.endpoints.sharedInbox' WHEN 'object' THEN ap_actor ->> '$.endpoints.sharedInbox.id' END, CASE json_type(ap_actor, '$.endpoints[0].sharedInbox') WHEN 'text' THEN ap_actor ->> '$.endpoints[0].sharedInbox' WHEN 'object' THEN ap_actor ->> '$.endpoints[0].sharedInbox.id' END) END";
const OWN_INBOX =
  "CASE WHEN json_valid(ap_actor) THEN CASE json_type(ap_actor, '$.inbox') WHEN 'text' THEN ap_actor ->> '$.inbox' WHEN 'object' THEN coalesce(ap_actor ->> '$.inbox.id', ap_actor ->> '$.inbox.href') END END";

const UPGRADE = `
CREATE INDEX ix_inbox_follows_arrived ON inbox (id, actor_id) WHERE ap_type = 'Follow' AND is_deleted = 0 AND undone_by_inbox_object_id IS NULL;
CREATE INDEX ix_webmention_post ON webmention (outbox_object_id, id);
CREATE INDEX ix_actor_inboxes ON actor (id, ${SHARED_INBOX}, ${OWN_INBOX});
CREATE INDEX ix_outgoing_activity_waiting ON outgoing_activity (outbox_object_id, tries, recipient) WHERE is_sent = 0 AND is_errored = 0;
`;

const DOWNGRADE = `
DROP INDEX ix_outgoing_activity_waiting;
DROP INDEX ix_actor_inboxes;
DROP INDEX ix_webmention_post;
DROP INDEX ix_inbox_follows_arrived;
`;

export const requestIndexes: Revision = {
  id: 'ae35abd14d3a',
  parent: '4a475cedd483',
  description: 'indexes: follow requests newest first, webmentions by post, where actors receive, deliveries waiting',
  upgrade: (sqlite) => {
    sqlite.exec(UPGRADE);
  },
  downgrade: (sqlite) => {
    sqlite.exec(DOWNGRADE);
  },
};
