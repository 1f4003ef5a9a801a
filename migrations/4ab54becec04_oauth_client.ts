// Revision 4ab54becec04: creates oauth_client, the registered OAuth clients, with its indexes.
//
// Frozen: literal SQL, never generated from db/schema.ts (see f5717d82b3ff_initial.ts). Its
// redirect_uris CHECK says `IS NULL OR` for the reason given there (the one edit).
import type { Revision } from './revision';

const UPGRADE = `
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
  CONSTRAINT ck_oauth_client_created_at CHECK (created_at IS NULL OR (datetime(created_at) IS NOT NULL AND (created_at GLOB '*Z' OR created_at GLOB '*[+-][0-9][0-9]:[0-9][0-9]'))),
  CONSTRAINT ck_oauth_client_redirect_uris CHECK (redirect_uris IS NULL OR json_valid(redirect_uris))
);
CREATE UNIQUE INDEX ix_oauth_client_client_id ON oauth_client (client_id);
CREATE INDEX ix_oauth_client_id ON oauth_client (id);
`;

const DOWNGRADE = `
DROP INDEX ix_oauth_client_id;
DROP INDEX ix_oauth_client_client_id;
DROP TABLE oauth_client;
`;

export const oauthClient: Revision = {
  id: '4ab54becec04',
  parent: '9b404c47970a',
  description: 'oauth_client',
  upgrade: (sqlite) => {
    sqlite.exec(UPGRADE);
  },
  downgrade: (sqlite) => {
    sqlite.exec(DOWNGRADE);
  },
};
