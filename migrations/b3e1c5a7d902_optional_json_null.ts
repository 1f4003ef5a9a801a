// Revision b3e1c5a7d902: Tern's own, after 9519a2c5ec87. The seven optional JSON columns were
// checked with a bare `json_valid(col)`. SQLite 3.45 and later answer NULL for json_valid(NULL),
// which a CHECK lets through; earlier ones (Debian 12's `sqlite3` shell and python3's sqlite3
// module, 3.40) answer 0, so a database Tern made refused a NULL in those optional columns to
// any other tool. The CHECK now says what the spec means: `col IS NULL OR json_valid(col)`.
// The required JSON columns (actor.ap_actor, inbox.ap_object, outbox.ap_object) keep the bare
// CHECK: NOT NULL already refuses NULL there.
//
// SQLite cannot alter a CHECK, so the tables are rebuilt (migrations/rebuild.ts): each keeps
// exactly its columns, keys, foreign keys, unique constraints, other CHECKs, indexes and rows.
// A stored value one of those CHECKs refuses (an og_meta that is not JSON, a visibility
// 'PRIVATE', a datetime 'soon', written past them) is replaced by one it takes, its value kept
// in replaced_value or replaced_datetime (migrations/replaced-values.ts); it aborted the rebuild.
// A table whose CHECK is already `IS NULL OR` is left as it is: since the spec's revisions
// (f5717d82b3ff, 4ab54becec04) write that form themselves, so that a database built at them
// takes NULL in 3.40 as the spec says, only databases made before that change are rebuilt here.
//
// Downgrading keeps the `IS NULL OR` CHECK: putting the bare one back (as this revision's
// downgrade first did) made every NULL already stored in those columns a CHECK failure under
// SQLite 3.40 — 29 lines of "CHECK constraint failed" in PRAGMA integrity_check after
// `npm run db -- downgrade 4ab54becec04` on a filled database — and refused NULL again to the
// sqlite3 shell and python3, against the spec's "Opt". The older revisions' own text is that
// form now, so the downgraded schema is the one they build.
//
// Frozen: the edit is literal, never generated from db/schema.ts (see f5717d82b3ff_initial.ts).
import type { Revision } from './revision';
import { rebuildTables } from './rebuild';

/** Each table's optional JSON columns. */
const OPTIONAL: Readonly<Record<string, readonly string[]>> = {
  inbox: ['voted_for_answers', 'og_meta'],
  incoming_activity: ['ap_object'],
  outbox: ['revisions', 'og_meta'],
  webmention: ['source_microformats'],
  oauth_client: ['redirect_uris'],
};

/** The table's text with each optional JSON column's bare CHECK in the `IS NULL OR` form. */
function nullable(table: string, sql: string): string {
  let out = sql;
  for (const c of OPTIONAL[table] ?? []) {
    out = out.replace(`CONSTRAINT ck_${table}_${c} CHECK (json_valid(${c}))`, `CONSTRAINT ck_${table}_${c} CHECK (${c} IS NULL OR json_valid(${c}))`);
  }
  return out;
}

export const optionalJsonNull: Revision = {
  id: 'b3e1c5a7d902',
  parent: '9519a2c5ec87',
  description: 'optional JSON columns take NULL',
  upgrade: (sqlite) => {
    rebuildTables(sqlite, Object.keys(OPTIONAL), nullable, 'upgrade to b3e1c5a7d902');
  },
  // Keeps the CHECK that takes NULL (see above): nothing to undo.
  downgrade: () => {},
};
