// Revision b3e1c5a7d902: Tern's own, after 9519a2c5ec87. The seven optional JSON columns were
// checked with a bare `json_valid(col)`. SQLite 3.45 and later answer NULL for json_valid(NULL),
// which a CHECK lets through; earlier ones (Debian 12's `sqlite3` shell and python3's sqlite3
// module, 3.40) answer 0, so a database Tern made refused a NULL in those optional columns to
// any other tool. The CHECK now says what the spec means: `col IS NULL OR json_valid(col)`.
// The required JSON columns (actor.ap_actor, inbox.ap_object, outbox.ap_object) keep the bare
// CHECK: NOT NULL already refuses NULL there.
//
// SQLite cannot alter a CHECK, so the five tables are rebuilt by its procedure for other schema
// changes (https://sqlite.org/lang_altertable.html#otheralter): the runner turns foreign keys off
// and runs foreign_key_check before the commit. One step differs: the old table is renamed
// away and the new one created under the real name, instead of the new one renamed into place,
// because SQLite stores a renamed table as `CREATE TABLE "inbox"` and the schema text must stay
// exactly what the chain writes (a downgrade restores it byte for byte). That order is safe only
// with legacy_alter_table on, under which the rename leaves the other tables' REFERENCES inbox
// alone. Each table keeps exactly its columns, keys, foreign keys, unique constraints and other
// CHECKs; rows keep their ids (id is the rowid), and every index the chain made on it is made
// again. Downgrading rebuilds with the old CHECK.
//
// Frozen: literal SQL, never generated from db/schema.ts (see f5717d82b3ff_initial.ts).
import type { Sqlite } from '../db/client';
import type { Revision } from './revision';

/** The CHECK of an optional JSON column, as this revision writes it (`json`) or as it was. */
type JsonCheck = (column: string) => string;
const nullable: JsonCheck = (c) => `${c} IS NULL OR json_valid(${c})`;
const bare: JsonCheck = (c) => `json_valid(${c})`;

const DT = (c: string) =>
  `${c} IS NULL OR (datetime(${c}) IS NOT NULL AND (${c} GLOB '*Z' OR ${c} GLOB '*[+-][0-9][0-9]:[0-9][0-9]'))`;

const INBOX_COLUMNS =
  'id, created_at, updated_at, actor_id, server, is_hidden_from_stream, ap_actor_id, ap_type, ap_id, ap_context, ap_published_at, ap_object, activity_object_ap_id, visibility, relates_to_inbox_object_id, relates_to_outbox_object_id, undone_by_inbox_object_id, liked_via_outbox_object_ap_id, announced_via_outbox_object_ap_id, voted_for_answers, is_bookmarked, is_deleted, is_transient, replies_count, og_meta';

const inbox = (json: JsonCheck) => `
ALTER TABLE inbox RENAME TO _rebuild_inbox;
CREATE TABLE inbox (
  id INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  actor_id INTEGER NOT NULL,
  server TEXT NOT NULL,
  is_hidden_from_stream INTEGER NOT NULL,
  ap_actor_id TEXT NOT NULL,
  ap_type TEXT NOT NULL,
  ap_id TEXT NOT NULL,
  ap_context TEXT,
  ap_published_at TEXT NOT NULL,
  ap_object TEXT NOT NULL,
  activity_object_ap_id TEXT,
  visibility TEXT NOT NULL,
  relates_to_inbox_object_id INTEGER,
  relates_to_outbox_object_id INTEGER,
  undone_by_inbox_object_id INTEGER,
  liked_via_outbox_object_ap_id TEXT,
  announced_via_outbox_object_ap_id TEXT,
  voted_for_answers TEXT,
  is_bookmarked INTEGER NOT NULL,
  is_deleted INTEGER NOT NULL,
  is_transient INTEGER NOT NULL DEFAULT 0,
  replies_count INTEGER NOT NULL,
  og_meta TEXT,
  PRIMARY KEY (id),
  FOREIGN KEY (actor_id) REFERENCES actor (id),
  FOREIGN KEY (relates_to_inbox_object_id) REFERENCES inbox (id),
  FOREIGN KEY (relates_to_outbox_object_id) REFERENCES outbox (id),
  FOREIGN KEY (undone_by_inbox_object_id) REFERENCES inbox (id),
  CONSTRAINT ck_inbox_created_at CHECK (${DT('created_at')}),
  CONSTRAINT ck_inbox_updated_at CHECK (${DT('updated_at')}),
  CONSTRAINT ck_inbox_ap_published_at CHECK (${DT('ap_published_at')}),
  CONSTRAINT ck_inbox_is_hidden_from_stream CHECK (is_hidden_from_stream IN (0, 1)),
  CONSTRAINT ck_inbox_is_bookmarked CHECK (is_bookmarked IN (0, 1)),
  CONSTRAINT ck_inbox_is_deleted CHECK (is_deleted IN (0, 1)),
  CONSTRAINT ck_inbox_is_transient CHECK (is_transient IN (0, 1)),
  CONSTRAINT ck_inbox_ap_object CHECK (json_valid(ap_object)),
  CONSTRAINT ck_inbox_voted_for_answers CHECK (${json('voted_for_answers')}),
  CONSTRAINT ck_inbox_og_meta CHECK (${json('og_meta')}),
  CONSTRAINT ck_inbox_visibility CHECK (visibility IN ('PUBLIC', 'UNLISTED', 'FOLLOWERS_ONLY', 'DIRECT'))
);
INSERT INTO inbox (${INBOX_COLUMNS}) SELECT ${INBOX_COLUMNS} FROM _rebuild_inbox;
DROP TABLE _rebuild_inbox;
CREATE INDEX ix_inbox_activity_object_ap_id ON inbox (activity_object_ap_id);
CREATE UNIQUE INDEX ix_inbox_ap_id ON inbox (ap_id);
CREATE INDEX ix_inbox_ap_type ON inbox (ap_type);
CREATE INDEX ix_inbox_id ON inbox (id);
CREATE INDEX ix_inbox_in_reply_to ON inbox (coalesce(json_extract(ap_object, '$.inReplyTo.id'), json_extract(ap_object, '$.inReplyTo')));
CREATE INDEX ix_inbox_relates_to_outbox_object_counts ON inbox (relates_to_outbox_object_id, ap_type, is_deleted, actor_id);
`;

const INCOMING_COLUMNS =
  'id, created_at, webmention_source, sent_by_ap_actor_id, ap_id, ap_object, tries, next_try, last_try, is_processed, is_errored, error';

const incomingActivity = (json: JsonCheck) => `
ALTER TABLE incoming_activity RENAME TO _rebuild_incoming_activity;
CREATE TABLE incoming_activity (
  id INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  webmention_source TEXT,
  sent_by_ap_actor_id TEXT,
  ap_id TEXT,
  ap_object TEXT,
  tries INTEGER NOT NULL,
  next_try TEXT,
  last_try TEXT,
  is_processed INTEGER NOT NULL,
  is_errored INTEGER NOT NULL,
  error TEXT,
  PRIMARY KEY (id),
  CONSTRAINT ck_incoming_activity_created_at CHECK (${DT('created_at')}),
  CONSTRAINT ck_incoming_activity_next_try CHECK (${DT('next_try')}),
  CONSTRAINT ck_incoming_activity_last_try CHECK (${DT('last_try')}),
  CONSTRAINT ck_incoming_activity_is_processed CHECK (is_processed IN (0, 1)),
  CONSTRAINT ck_incoming_activity_is_errored CHECK (is_errored IN (0, 1)),
  CONSTRAINT ck_incoming_activity_ap_object CHECK (${json('ap_object')})
);
INSERT INTO incoming_activity (${INCOMING_COLUMNS}) SELECT ${INCOMING_COLUMNS} FROM _rebuild_incoming_activity;
DROP TABLE _rebuild_incoming_activity;
CREATE INDEX ix_incoming_activity_ap_id ON incoming_activity (ap_id);
CREATE INDEX ix_incoming_activity_id ON incoming_activity (id);
CREATE INDEX ix_incoming_activity_due ON incoming_activity (next_try, id) WHERE is_processed = 0 AND is_errored = 0;
`;

const OUTBOX_COLUMNS =
  'id, created_at, updated_at, is_hidden_from_homepage, public_id, ap_type, ap_id, ap_context, ap_object, activity_object_ap_id, source, revisions, ap_published_at, visibility, likes_count, announces_count, replies_count, webmentions_count, og_meta, is_pinned, is_transient, is_deleted, relates_to_inbox_object_id, relates_to_outbox_object_id, relates_to_actor_id, undone_by_outbox_object_id';

const outbox = (json: JsonCheck) => `
ALTER TABLE outbox RENAME TO _rebuild_outbox;
CREATE TABLE outbox (
  id INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  is_hidden_from_homepage INTEGER NOT NULL,
  public_id TEXT NOT NULL,
  ap_type TEXT NOT NULL,
  ap_id TEXT NOT NULL,
  ap_context TEXT,
  ap_object TEXT NOT NULL,
  activity_object_ap_id TEXT,
  source TEXT,
  revisions TEXT,
  ap_published_at TEXT NOT NULL,
  visibility TEXT NOT NULL,
  likes_count INTEGER NOT NULL,
  announces_count INTEGER NOT NULL,
  replies_count INTEGER NOT NULL,
  webmentions_count INTEGER NOT NULL DEFAULT 0,
  og_meta TEXT,
  is_pinned INTEGER NOT NULL,
  is_transient INTEGER NOT NULL DEFAULT 0,
  is_deleted INTEGER NOT NULL,
  relates_to_inbox_object_id INTEGER,
  relates_to_outbox_object_id INTEGER,
  relates_to_actor_id INTEGER,
  undone_by_outbox_object_id INTEGER,
  PRIMARY KEY (id),
  FOREIGN KEY (relates_to_inbox_object_id) REFERENCES inbox (id),
  FOREIGN KEY (relates_to_outbox_object_id) REFERENCES outbox (id),
  FOREIGN KEY (relates_to_actor_id) REFERENCES actor (id),
  FOREIGN KEY (undone_by_outbox_object_id) REFERENCES outbox (id),
  CONSTRAINT ck_outbox_created_at CHECK (${DT('created_at')}),
  CONSTRAINT ck_outbox_updated_at CHECK (${DT('updated_at')}),
  CONSTRAINT ck_outbox_ap_published_at CHECK (${DT('ap_published_at')}),
  CONSTRAINT ck_outbox_is_hidden_from_homepage CHECK (is_hidden_from_homepage IN (0, 1)),
  CONSTRAINT ck_outbox_is_pinned CHECK (is_pinned IN (0, 1)),
  CONSTRAINT ck_outbox_is_transient CHECK (is_transient IN (0, 1)),
  CONSTRAINT ck_outbox_is_deleted CHECK (is_deleted IN (0, 1)),
  CONSTRAINT ck_outbox_ap_object CHECK (json_valid(ap_object)),
  CONSTRAINT ck_outbox_revisions CHECK (${json('revisions')}),
  CONSTRAINT ck_outbox_og_meta CHECK (${json('og_meta')}),
  CONSTRAINT ck_outbox_visibility CHECK (visibility IN ('PUBLIC', 'UNLISTED', 'FOLLOWERS_ONLY', 'DIRECT'))
);
INSERT INTO outbox (${OUTBOX_COLUMNS}) SELECT ${OUTBOX_COLUMNS} FROM _rebuild_outbox;
DROP TABLE _rebuild_outbox;
CREATE INDEX ix_outbox_activity_object_ap_id ON outbox (activity_object_ap_id);
CREATE UNIQUE INDEX ix_outbox_ap_id ON outbox (ap_id);
CREATE INDEX ix_outbox_ap_type ON outbox (ap_type);
CREATE INDEX ix_outbox_id ON outbox (id);
CREATE INDEX ix_outbox_public_id ON outbox (public_id);
CREATE INDEX ix_outbox_in_reply_to ON outbox (coalesce(json_extract(ap_object, '$.inReplyTo.id'), json_extract(ap_object, '$.inReplyTo')));
`;

const WEBMENTION_COLUMNS = 'id, created_at, is_deleted, source, source_microformats, target, outbox_object_id';

const webmention = (json: JsonCheck) => `
ALTER TABLE webmention RENAME TO _rebuild_webmention;
CREATE TABLE webmention (
  id INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  is_deleted INTEGER NOT NULL,
  source TEXT NOT NULL,
  source_microformats TEXT,
  target TEXT NOT NULL,
  outbox_object_id INTEGER NOT NULL,
  PRIMARY KEY (id),
  CONSTRAINT uix_source_target UNIQUE (source, target),
  FOREIGN KEY (outbox_object_id) REFERENCES outbox (id),
  CONSTRAINT ck_webmention_created_at CHECK (${DT('created_at')}),
  CONSTRAINT ck_webmention_is_deleted CHECK (is_deleted IN (0, 1)),
  CONSTRAINT ck_webmention_source_microformats CHECK (${json('source_microformats')})
);
INSERT INTO webmention (${WEBMENTION_COLUMNS}) SELECT ${WEBMENTION_COLUMNS} FROM _rebuild_webmention;
DROP TABLE _rebuild_webmention;
CREATE INDEX ix_webmention_id ON webmention (id);
CREATE UNIQUE INDEX ix_webmention_source ON webmention (source);
CREATE INDEX ix_webmention_target ON webmention (target);
`;

const OAUTH_COLUMNS = 'id, created_at, client_name, redirect_uris, client_uri, logo_uri, scope, client_id, client_secret';

const oauthClient = (json: JsonCheck) => `
ALTER TABLE oauth_client RENAME TO _rebuild_oauth_client;
CREATE TABLE oauth_client (
  id INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  client_name TEXT NOT NULL,
  redirect_uris TEXT,
  client_uri TEXT,
  logo_uri TEXT,
  scope TEXT,
  client_id TEXT NOT NULL,
  client_secret TEXT NOT NULL,
  PRIMARY KEY (id),
  UNIQUE (client_secret),
  CONSTRAINT ck_oauth_client_created_at CHECK (${DT('created_at')}),
  CONSTRAINT ck_oauth_client_redirect_uris CHECK (${json('redirect_uris')})
);
INSERT INTO oauth_client (${OAUTH_COLUMNS}) SELECT ${OAUTH_COLUMNS} FROM _rebuild_oauth_client;
DROP TABLE _rebuild_oauth_client;
CREATE UNIQUE INDEX ix_oauth_client_client_id ON oauth_client (client_id);
CREATE INDEX ix_oauth_client_id ON oauth_client (id);
`;

/** Each rebuilt table, with one of its optional JSON columns (whose CHECK tells which form it has). */
const TABLES: [name: string, column: string, sql: (json: JsonCheck) => string][] = [
  ['inbox', 'og_meta', inbox],
  ['incoming_activity', 'ap_object', incomingActivity],
  ['outbox', 'og_meta', outbox],
  ['webmention', 'source_microformats', webmention],
  ['oauth_client', 'redirect_uris', oauthClient],
];

/**
 * Rebuilds the tables whose CHECK has the form `from` into the form `to`. A table without it is
 * left as it is: a microblog.pub database being moved in (migrations are run on its copy, see
 * electron/core/data/microblogpub-import.ts) has its own tables, with no CHECK at all, naive
 * datetimes and columns of its own, which a rebuild into Tern's shape would refuse or lose.
 */
function rebuild(sqlite: Sqlite, from: JsonCheck, to: JsonCheck): void {
  const statements = TABLES.filter(([name, column]) => {
    const sql = sqlite.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(name) as string | undefined;
    return sql?.includes(`CONSTRAINT ck_${name}_${column} CHECK (${from(column)})`) ?? false;
  }).map(([, , table]) => table(to));
  sqlite.pragma('legacy_alter_table = ON');
  try {
    sqlite.exec(statements.join(''));
  } finally {
    sqlite.pragma('legacy_alter_table = OFF');
  }
}

export const optionalJsonNull: Revision = {
  id: 'b3e1c5a7d902',
  parent: '9519a2c5ec87',
  description: 'optional JSON columns take NULL',
  upgrade: (sqlite) => rebuild(sqlite, bare, nullable),
  downgrade: (sqlite) => rebuild(sqlite, nullable, bare),
};
