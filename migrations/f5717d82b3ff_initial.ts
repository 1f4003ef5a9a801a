// Revision f5717d82b3ff, the initial schema: creates the spec's fifteen records (all but
// oauth_client) with their indexes, unique constraints, foreign keys and the CHECK constraints
// that hold Tern's storage rules (see db/columns.ts).
//
// Frozen: this is literal SQL, never generated from db/schema.ts, so a later change of the
// schema cannot rewrite what this revision did. db/schema.test.ts proves that the chain still
// builds exactly the drizzle schema; a schema change needs a new revision, not an edit here.
// One edit was made, to say what the spec says: the optional JSON columns' CHECK reads
// `col IS NULL OR json_valid(col)` (it was a bare json_valid(col), which SQLite before 3.45 —
// Debian 12's sqlite3 shell and python3 — answers 0 for NULL, so a database built here refused
// the spec's "Opt" NULL to those tools). Databases built before the edit get that form from
// b3e1c5a7d902; the CHECK accepts exactly what the bare one accepts in SQLite 3.45 and later.
import type { Revision } from './revision';

const UPGRADE = `
CREATE TABLE actor (
  id INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  ap_id TEXT NOT NULL,
  ap_actor TEXT NOT NULL,
  ap_type TEXT NOT NULL,
  handle TEXT,
  PRIMARY KEY (id),
  CONSTRAINT ck_actor_created_at CHECK (created_at IS NULL OR (datetime(created_at) IS NOT NULL AND (created_at GLOB '*Z' OR created_at GLOB '*[+-][0-9][0-9]:[0-9][0-9]'))),
  CONSTRAINT ck_actor_updated_at CHECK (updated_at IS NULL OR (datetime(updated_at) IS NOT NULL AND (updated_at GLOB '*Z' OR updated_at GLOB '*[+-][0-9][0-9]:[0-9][0-9]'))),
  CONSTRAINT ck_actor_ap_actor CHECK (json_valid(ap_actor))
);
CREATE UNIQUE INDEX ix_actor_ap_id ON actor (ap_id);
CREATE INDEX ix_actor_handle ON actor (handle);
CREATE INDEX ix_actor_id ON actor (id);

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
  CONSTRAINT ck_inbox_created_at CHECK (created_at IS NULL OR (datetime(created_at) IS NOT NULL AND (created_at GLOB '*Z' OR created_at GLOB '*[+-][0-9][0-9]:[0-9][0-9]'))),
  CONSTRAINT ck_inbox_updated_at CHECK (updated_at IS NULL OR (datetime(updated_at) IS NOT NULL AND (updated_at GLOB '*Z' OR updated_at GLOB '*[+-][0-9][0-9]:[0-9][0-9]'))),
  CONSTRAINT ck_inbox_ap_published_at CHECK (ap_published_at IS NULL OR (datetime(ap_published_at) IS NOT NULL AND (ap_published_at GLOB '*Z' OR ap_published_at GLOB '*[+-][0-9][0-9]:[0-9][0-9]'))),
  CONSTRAINT ck_inbox_is_hidden_from_stream CHECK (is_hidden_from_stream IN (0, 1)),
  CONSTRAINT ck_inbox_is_bookmarked CHECK (is_bookmarked IN (0, 1)),
  CONSTRAINT ck_inbox_is_deleted CHECK (is_deleted IN (0, 1)),
  CONSTRAINT ck_inbox_is_transient CHECK (is_transient IN (0, 1)),
  CONSTRAINT ck_inbox_ap_object CHECK (json_valid(ap_object)),
  CONSTRAINT ck_inbox_voted_for_answers CHECK (voted_for_answers IS NULL OR json_valid(voted_for_answers)),
  CONSTRAINT ck_inbox_og_meta CHECK (og_meta IS NULL OR json_valid(og_meta)),
  CONSTRAINT ck_inbox_visibility CHECK (visibility IN ('PUBLIC', 'UNLISTED', 'FOLLOWERS_ONLY', 'DIRECT'))
);
CREATE INDEX ix_inbox_activity_object_ap_id ON inbox (activity_object_ap_id);
CREATE UNIQUE INDEX ix_inbox_ap_id ON inbox (ap_id);
CREATE INDEX ix_inbox_ap_type ON inbox (ap_type);
CREATE INDEX ix_inbox_id ON inbox (id);

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
  CONSTRAINT ck_incoming_activity_created_at CHECK (created_at IS NULL OR (datetime(created_at) IS NOT NULL AND (created_at GLOB '*Z' OR created_at GLOB '*[+-][0-9][0-9]:[0-9][0-9]'))),
  CONSTRAINT ck_incoming_activity_next_try CHECK (next_try IS NULL OR (datetime(next_try) IS NOT NULL AND (next_try GLOB '*Z' OR next_try GLOB '*[+-][0-9][0-9]:[0-9][0-9]'))),
  CONSTRAINT ck_incoming_activity_last_try CHECK (last_try IS NULL OR (datetime(last_try) IS NOT NULL AND (last_try GLOB '*Z' OR last_try GLOB '*[+-][0-9][0-9]:[0-9][0-9]'))),
  CONSTRAINT ck_incoming_activity_is_processed CHECK (is_processed IN (0, 1)),
  CONSTRAINT ck_incoming_activity_is_errored CHECK (is_errored IN (0, 1)),
  CONSTRAINT ck_incoming_activity_ap_object CHECK (ap_object IS NULL OR json_valid(ap_object))
);
CREATE INDEX ix_incoming_activity_ap_id ON incoming_activity (ap_id);
CREATE INDEX ix_incoming_activity_id ON incoming_activity (id);

CREATE TABLE indieauth_authorization_request (
  id INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  code TEXT NOT NULL,
  scope TEXT NOT NULL,
  redirect_uri TEXT NOT NULL,
  client_id TEXT NOT NULL,
  code_challenge TEXT,
  code_challenge_method TEXT,
  is_used INTEGER NOT NULL,
  PRIMARY KEY (id),
  CONSTRAINT ck_indieauth_authorization_request_created_at CHECK (created_at IS NULL OR (datetime(created_at) IS NOT NULL AND (created_at GLOB '*Z' OR created_at GLOB '*[+-][0-9][0-9]:[0-9][0-9]'))),
  CONSTRAINT ck_indieauth_authorization_request_is_used CHECK (is_used IN (0, 1))
);
CREATE UNIQUE INDEX ix_indieauth_authorization_request_code ON indieauth_authorization_request (code);
CREATE INDEX ix_indieauth_authorization_request_id ON indieauth_authorization_request (id);

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
  CONSTRAINT ck_outbox_created_at CHECK (created_at IS NULL OR (datetime(created_at) IS NOT NULL AND (created_at GLOB '*Z' OR created_at GLOB '*[+-][0-9][0-9]:[0-9][0-9]'))),
  CONSTRAINT ck_outbox_updated_at CHECK (updated_at IS NULL OR (datetime(updated_at) IS NOT NULL AND (updated_at GLOB '*Z' OR updated_at GLOB '*[+-][0-9][0-9]:[0-9][0-9]'))),
  CONSTRAINT ck_outbox_ap_published_at CHECK (ap_published_at IS NULL OR (datetime(ap_published_at) IS NOT NULL AND (ap_published_at GLOB '*Z' OR ap_published_at GLOB '*[+-][0-9][0-9]:[0-9][0-9]'))),
  CONSTRAINT ck_outbox_is_hidden_from_homepage CHECK (is_hidden_from_homepage IN (0, 1)),
  CONSTRAINT ck_outbox_is_pinned CHECK (is_pinned IN (0, 1)),
  CONSTRAINT ck_outbox_is_transient CHECK (is_transient IN (0, 1)),
  CONSTRAINT ck_outbox_is_deleted CHECK (is_deleted IN (0, 1)),
  CONSTRAINT ck_outbox_ap_object CHECK (json_valid(ap_object)),
  CONSTRAINT ck_outbox_revisions CHECK (revisions IS NULL OR json_valid(revisions)),
  CONSTRAINT ck_outbox_og_meta CHECK (og_meta IS NULL OR json_valid(og_meta)),
  CONSTRAINT ck_outbox_visibility CHECK (visibility IN ('PUBLIC', 'UNLISTED', 'FOLLOWERS_ONLY', 'DIRECT'))
);
CREATE INDEX ix_outbox_activity_object_ap_id ON outbox (activity_object_ap_id);
CREATE UNIQUE INDEX ix_outbox_ap_id ON outbox (ap_id);
CREATE INDEX ix_outbox_ap_type ON outbox (ap_type);
CREATE INDEX ix_outbox_id ON outbox (id);
CREATE INDEX ix_outbox_public_id ON outbox (public_id);

CREATE TABLE upload (
  id INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  content_type TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  has_thumbnail INTEGER NOT NULL,
  blurhash TEXT,
  width INTEGER,
  height INTEGER,
  PRIMARY KEY (id),
  UNIQUE (content_hash),
  CONSTRAINT ck_upload_created_at CHECK (created_at IS NULL OR (datetime(created_at) IS NOT NULL AND (created_at GLOB '*Z' OR created_at GLOB '*[+-][0-9][0-9]:[0-9][0-9]'))),
  CONSTRAINT ck_upload_has_thumbnail CHECK (has_thumbnail IN (0, 1))
);
CREATE INDEX ix_upload_id ON upload (id);

CREATE TABLE follower (
  id INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  actor_id INTEGER NOT NULL,
  inbox_object_id INTEGER NOT NULL,
  ap_actor_id TEXT NOT NULL,
  PRIMARY KEY (id),
  UNIQUE (actor_id),
  UNIQUE (ap_actor_id),
  FOREIGN KEY (actor_id) REFERENCES actor (id),
  FOREIGN KEY (inbox_object_id) REFERENCES inbox (id),
  CONSTRAINT ck_follower_created_at CHECK (created_at IS NULL OR (datetime(created_at) IS NOT NULL AND (created_at GLOB '*Z' OR created_at GLOB '*[+-][0-9][0-9]:[0-9][0-9]'))),
  CONSTRAINT ck_follower_updated_at CHECK (updated_at IS NULL OR (datetime(updated_at) IS NOT NULL AND (updated_at GLOB '*Z' OR updated_at GLOB '*[+-][0-9][0-9]:[0-9][0-9]')))
);
CREATE INDEX ix_follower_id ON follower (id);

CREATE TABLE following (
  id INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  actor_id INTEGER NOT NULL,
  outbox_object_id INTEGER NOT NULL,
  ap_actor_id TEXT NOT NULL,
  PRIMARY KEY (id),
  UNIQUE (actor_id),
  UNIQUE (ap_actor_id),
  FOREIGN KEY (actor_id) REFERENCES actor (id),
  FOREIGN KEY (outbox_object_id) REFERENCES outbox (id),
  CONSTRAINT ck_following_created_at CHECK (created_at IS NULL OR (datetime(created_at) IS NOT NULL AND (created_at GLOB '*Z' OR created_at GLOB '*[+-][0-9][0-9]:[0-9][0-9]'))),
  CONSTRAINT ck_following_updated_at CHECK (updated_at IS NULL OR (datetime(updated_at) IS NOT NULL AND (updated_at GLOB '*Z' OR updated_at GLOB '*[+-][0-9][0-9]:[0-9][0-9]')))
);
CREATE INDEX ix_following_id ON following (id);

CREATE TABLE indieauth_access_token (
  id INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  indieauth_authorization_request_id INTEGER,
  access_token TEXT NOT NULL,
  expires_in INTEGER NOT NULL,
  scope TEXT NOT NULL,
  is_revoked INTEGER NOT NULL,
  PRIMARY KEY (id),
  FOREIGN KEY (indieauth_authorization_request_id) REFERENCES indieauth_authorization_request (id),
  CONSTRAINT ck_indieauth_access_token_created_at CHECK (created_at IS NULL OR (datetime(created_at) IS NOT NULL AND (created_at GLOB '*Z' OR created_at GLOB '*[+-][0-9][0-9]:[0-9][0-9]'))),
  CONSTRAINT ck_indieauth_access_token_is_revoked CHECK (is_revoked IN (0, 1))
);
CREATE UNIQUE INDEX ix_indieauth_access_token_access_token ON indieauth_access_token (access_token);
CREATE INDEX ix_indieauth_access_token_id ON indieauth_access_token (id);

CREATE TABLE outbox_object_attachment (
  id INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  filename TEXT NOT NULL,
  alt TEXT,
  outbox_object_id INTEGER NOT NULL,
  upload_id INTEGER NOT NULL,
  PRIMARY KEY (id),
  FOREIGN KEY (outbox_object_id) REFERENCES outbox (id),
  FOREIGN KEY (upload_id) REFERENCES upload (id),
  CONSTRAINT ck_outbox_object_attachment_created_at CHECK (created_at IS NULL OR (datetime(created_at) IS NOT NULL AND (created_at GLOB '*Z' OR created_at GLOB '*[+-][0-9][0-9]:[0-9][0-9]')))
);
CREATE INDEX ix_outbox_object_attachment_id ON outbox_object_attachment (id);

CREATE TABLE outgoing_activity (
  id INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  recipient TEXT NOT NULL,
  outbox_object_id INTEGER,
  inbox_object_id INTEGER,
  webmention_target TEXT,
  tries INTEGER NOT NULL,
  next_try TEXT,
  last_try TEXT,
  last_status_code INTEGER,
  last_response TEXT,
  is_sent INTEGER NOT NULL,
  is_errored INTEGER NOT NULL,
  error TEXT,
  PRIMARY KEY (id),
  FOREIGN KEY (outbox_object_id) REFERENCES outbox (id),
  FOREIGN KEY (inbox_object_id) REFERENCES inbox (id),
  CONSTRAINT ck_outgoing_activity_created_at CHECK (created_at IS NULL OR (datetime(created_at) IS NOT NULL AND (created_at GLOB '*Z' OR created_at GLOB '*[+-][0-9][0-9]:[0-9][0-9]'))),
  CONSTRAINT ck_outgoing_activity_next_try CHECK (next_try IS NULL OR (datetime(next_try) IS NOT NULL AND (next_try GLOB '*Z' OR next_try GLOB '*[+-][0-9][0-9]:[0-9][0-9]'))),
  CONSTRAINT ck_outgoing_activity_last_try CHECK (last_try IS NULL OR (datetime(last_try) IS NOT NULL AND (last_try GLOB '*Z' OR last_try GLOB '*[+-][0-9][0-9]:[0-9][0-9]'))),
  CONSTRAINT ck_outgoing_activity_is_sent CHECK (is_sent IN (0, 1)),
  CONSTRAINT ck_outgoing_activity_is_errored CHECK (is_errored IN (0, 1))
);
CREATE INDEX ix_outgoing_activity_id ON outgoing_activity (id);

CREATE TABLE poll_answer (
  id INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  outbox_object_id INTEGER NOT NULL,
  poll_type TEXT NOT NULL,
  inbox_object_id INTEGER NOT NULL,
  actor_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  PRIMARY KEY (id),
  CONSTRAINT uix_outbox_object_id_name_actor_id UNIQUE (outbox_object_id, name, actor_id),
  FOREIGN KEY (outbox_object_id) REFERENCES outbox (id),
  FOREIGN KEY (inbox_object_id) REFERENCES inbox (id),
  FOREIGN KEY (actor_id) REFERENCES actor (id),
  CONSTRAINT ck_poll_answer_created_at CHECK (created_at IS NULL OR (datetime(created_at) IS NOT NULL AND (created_at GLOB '*Z' OR created_at GLOB '*[+-][0-9][0-9]:[0-9][0-9]')))
);
CREATE INDEX ix_poll_answer_id ON poll_answer (id);
CREATE UNIQUE INDEX uix_one_of_outbox_object_id_actor_id ON poll_answer (outbox_object_id, actor_id) WHERE poll_type = 'oneOf';

CREATE TABLE tagged_outbox_object (
  id INTEGER NOT NULL,
  outbox_object_id INTEGER NOT NULL,
  tag TEXT NOT NULL,
  PRIMARY KEY (id),
  CONSTRAINT uix_tagged_object UNIQUE (outbox_object_id, tag),
  FOREIGN KEY (outbox_object_id) REFERENCES outbox (id)
);
CREATE INDEX ix_tagged_outbox_object_id ON tagged_outbox_object (id);
CREATE INDEX ix_tagged_outbox_object_tag ON tagged_outbox_object (tag);

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
  CONSTRAINT ck_webmention_created_at CHECK (created_at IS NULL OR (datetime(created_at) IS NOT NULL AND (created_at GLOB '*Z' OR created_at GLOB '*[+-][0-9][0-9]:[0-9][0-9]'))),
  CONSTRAINT ck_webmention_is_deleted CHECK (is_deleted IN (0, 1)),
  CONSTRAINT ck_webmention_source_microformats CHECK (source_microformats IS NULL OR json_valid(source_microformats))
);
CREATE INDEX ix_webmention_id ON webmention (id);
CREATE UNIQUE INDEX ix_webmention_source ON webmention (source);
CREATE INDEX ix_webmention_target ON webmention (target);

CREATE TABLE notifications (
  id INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  notification_type TEXT,
  is_new INTEGER NOT NULL,
  actor_id INTEGER,
  outbox_object_id INTEGER,
  inbox_object_id INTEGER,
  webmention_id INTEGER,
  PRIMARY KEY (id),
  FOREIGN KEY (actor_id) REFERENCES actor (id),
  FOREIGN KEY (outbox_object_id) REFERENCES outbox (id),
  FOREIGN KEY (inbox_object_id) REFERENCES inbox (id),
  FOREIGN KEY (webmention_id) REFERENCES webmention (id),
  CONSTRAINT ck_notifications_created_at CHECK (created_at IS NULL OR (datetime(created_at) IS NOT NULL AND (created_at GLOB '*Z' OR created_at GLOB '*[+-][0-9][0-9]:[0-9][0-9]'))),
  CONSTRAINT ck_notifications_is_new CHECK (is_new IN (0, 1)),
  CONSTRAINT ck_notifications_notification_type CHECK (notification_type IN ('NEW_FOLLOWER', 'UNFOLLOW', 'FOLLOW_REQUEST_ACCEPTED', 'FOLLOW_REQUEST_REJECTED', 'LIKE', 'UNDO_LIKE', 'ANNOUNCE', 'UNDO_ANNOUNCE', 'MENTION', 'NEW_WEBMENTION', 'UPDATED_WEBMENTION', 'DELETED_WEBMENTION'))
);
CREATE INDEX ix_notifications_id ON notifications (id);
`;

// Each table's indexes, then the table, children before parents. inbox and outbox reference
// each other, so one of them must go first: the runner runs revisions with foreign keys off.
const DOWNGRADE = `
DROP INDEX ix_notifications_id;
DROP TABLE notifications;

DROP INDEX ix_webmention_target;
DROP INDEX ix_webmention_source;
DROP INDEX ix_webmention_id;
DROP TABLE webmention;

DROP INDEX ix_tagged_outbox_object_tag;
DROP INDEX ix_tagged_outbox_object_id;
DROP TABLE tagged_outbox_object;

DROP INDEX uix_one_of_outbox_object_id_actor_id;
DROP INDEX ix_poll_answer_id;
DROP TABLE poll_answer;

DROP INDEX ix_outgoing_activity_id;
DROP TABLE outgoing_activity;

DROP INDEX ix_outbox_object_attachment_id;
DROP TABLE outbox_object_attachment;

DROP INDEX ix_indieauth_access_token_id;
DROP INDEX ix_indieauth_access_token_access_token;
DROP TABLE indieauth_access_token;

DROP INDEX ix_following_id;
DROP TABLE following;

DROP INDEX ix_follower_id;
DROP TABLE follower;

DROP INDEX ix_upload_id;
DROP TABLE upload;

DROP INDEX ix_outbox_public_id;
DROP INDEX ix_outbox_id;
DROP INDEX ix_outbox_ap_type;
DROP INDEX ix_outbox_ap_id;
DROP INDEX ix_outbox_activity_object_ap_id;
DROP TABLE outbox;

DROP INDEX ix_indieauth_authorization_request_id;
DROP INDEX ix_indieauth_authorization_request_code;
DROP TABLE indieauth_authorization_request;

DROP INDEX ix_incoming_activity_id;
DROP INDEX ix_incoming_activity_ap_id;
DROP TABLE incoming_activity;

DROP INDEX ix_inbox_id;
DROP INDEX ix_inbox_ap_type;
DROP INDEX ix_inbox_ap_id;
DROP INDEX ix_inbox_activity_object_ap_id;
DROP TABLE inbox;

DROP INDEX ix_actor_id;
DROP INDEX ix_actor_handle;
DROP INDEX ix_actor_ap_id;
DROP TABLE actor;
`;

export const initial: Revision = {
  id: 'f5717d82b3ff',
  parent: null,
  description: 'initial: the fifteen records of the spec',
  upgrade: (sqlite) => {
    sqlite.exec(UPGRADE);
  },
  downgrade: (sqlite) => {
    sqlite.exec(DOWNGRADE);
  },
};
