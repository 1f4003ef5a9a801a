// Revision c41f7a2e9d15: Tern's own, after 9519a2c5ec87. Full-text search over posts (inbox and
// outbox), people (actor) and webmentions. The spec's tables are untouched: everything here is
// Tern's, named search_*, and dropped by the downgrade.
//
// Content is HTML inside JSON, and SQL alone cannot turn it into text, so the index is fed by
// the core (electron/core/search/indexer.ts), not by the triggers themselves. The triggers only note
// which row changed, in search_pending — one small insert per write, on every write path (the
// services, the inbox processor, the microblog.pub import, the sqlite3 shell) — and the indexer
// reads the row, extracts its text and updates the FTS table, in batches, off the write's path.
// Rows that exist when this revision runs are not queued here (a million inserts would hold up
// start-up): search_rebuild records, per kind, the last id to walk, and the indexer walks them in
// id order in the background, reporting how far it got. Its total is that last id (ids are
// dense, near enough for a percentage): count(*) would read the whole table at start-up.
//
// search_post's rowid is the post's publication time (seconds << 20, plus a free slot), so that
// "newest first" and before:/after: are rowid order and rowid ranges, which FTS5 serves without
// reading the matches' rows; search_post_ref maps each row (src 0 inbox, 1 outbox; id) to it.
// Posts' filters (has:media, is:reply, from:, visibility:) are words of the `facets` column.
//
// Only SQL that SQLite 3.40 (Debian's sqlite3) has: FTS5 with its own content (contentless
// deletion is newer), plain triggers.
//
// Frozen: literal SQL, never generated from db/schema.ts (see f5717d82b3ff_initial.ts).
import type { Revision } from './revision';

/** Kinds of search_pending and search_rebuild rows: the table a row id belongs to. */
export const SEARCH_KINDS = { inbox: 0, outbox: 1, actor: 2, webmention: 3 } as const;

/** A sqlite_master condition that leaves these tables out (and their FTS5 shadow tables): places
 * that list the spec's tables (the schema check, the microblog.pub import's copy) use it. */
export const NOT_SEARCH_TABLE = "name NOT LIKE 'search\\_%' ESCAPE '\\'";

const TOKENIZE = "tokenize = 'unicode61 remove_diacritics 2'";

// Columns whose change can change what is indexed: counters and flags that Tern updates often
// (replies_count, likes_count, is_bookmarked…) are left out, so they queue nothing.
const WATCHED: Record<keyof typeof SEARCH_KINDS, string> = {
  inbox: 'ap_object, ap_type, is_deleted, visibility, ap_published_at, actor_id',
  outbox: 'ap_object, ap_type, is_deleted, visibility, ap_published_at',
  actor: 'ap_actor, handle',
  webmention: 'source, source_microformats, is_deleted',
};

function triggers(table: keyof typeof SEARCH_KINDS): string {
  const kind = SEARCH_KINDS[table];
  const queue = (row: 'NEW' | 'OLD') => `INSERT OR IGNORE INTO search_pending (kind, id) VALUES (${kind}, ${row}.id);`;
  return `
CREATE TRIGGER search_${table}_insert AFTER INSERT ON ${table} BEGIN ${queue('NEW')} END;
CREATE TRIGGER search_${table}_update AFTER UPDATE OF ${WATCHED[table]} ON ${table} BEGIN ${queue('NEW')} END;
CREATE TRIGGER search_${table}_delete AFTER DELETE ON ${table} BEGIN ${queue('OLD')} END;
`;
}

const TABLES = Object.keys(SEARCH_KINDS) as (keyof typeof SEARCH_KINDS)[];

const UPGRADE = `
CREATE TABLE search_pending (kind INTEGER NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (kind, id)) WITHOUT ROWID;
CREATE TABLE search_rebuild (
  kind INTEGER NOT NULL PRIMARY KEY,
  next_id INTEGER NOT NULL,
  last_id INTEGER NOT NULL,
  total INTEGER NOT NULL,
  done INTEGER NOT NULL
);
CREATE TABLE search_post_ref (src INTEGER NOT NULL, id INTEGER NOT NULL, fts_rowid INTEGER NOT NULL, PRIMARY KEY (src, id)) WITHOUT ROWID;
CREATE VIRTUAL TABLE search_post USING fts5(body, facets, ref UNINDEXED, ${TOKENIZE});
CREATE VIRTUAL TABLE search_person USING fts5(name, handle, bio, ${TOKENIZE});
CREATE VIRTUAL TABLE search_webmention USING fts5(body, author, source, ${TOKENIZE});
${TABLES.map(triggers).join('')}
${TABLES.map((t) => `INSERT INTO search_rebuild (kind, next_id, last_id, total, done) SELECT ${SEARCH_KINDS[t]}, 0, coalesce(max(id), 0), coalesce(max(id), 0), 0 FROM ${t};`).join('\n')}
`;

const DOWNGRADE = `
${TABLES.flatMap((t) => ['insert', 'update', 'delete'].map((w) => `DROP TRIGGER search_${t}_${w};`)).join('\n')}
DROP TABLE search_webmention;
DROP TABLE search_person;
DROP TABLE search_post;
DROP TABLE search_post_ref;
DROP TABLE search_rebuild;
DROP TABLE search_pending;
`;

export const fullTextSearch: Revision = {
  id: 'c41f7a2e9d15',
  parent: 'b3e1c5a7d902',
  description: 'full-text search',
  upgrade: (sqlite) => {
    sqlite.exec(UPGRADE);
  },
  downgrade: (sqlite) => {
    sqlite.exec(DOWNGRADE);
  },
};
