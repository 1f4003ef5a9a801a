// A microblog.pub data/ folder for tests: microblogpub.db at one of the spec's revisions,
// profile.toml, key.pem and uploads/, the way microblog.pub leaves them.
//
// The database is built by replaying the spec's revision chain (f5717d82b3ff → 9b404c47970a →
// 4ab54becec04) as Tern's frozen revisions write it, minus the CHECK constraints that are Tern's
// own storage rules (microblog.pub's SQLAlchemy tables have none), and stamped in
// alembic_version as Alembic does. microblog.pub's own revisions between and after the spec's
// (up to a209f0333f5a, its last) add the columns they add (REAL_CHAIN below, from their
// names and the reference notes); a209f0333f5a also gets a notification kind the spec lacks.
// The rows are in microblog.pub's formats: naive UTC datetimes
// with microseconds ("2022-07-01 10:00:00.123456"), enum names, JSON text, booleans as 0/1.
// key.pem is a PKCS#1 PEM, as microblog.pub's key generation writes it.
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { upgrade } from '../../migrations/runner';

type SpecRevision = 'f5717d82b3ff' | '9b404c47970a' | '4ab54becec04';

/** microblog.pub's chain from f5717d82b3ff: the spec's revision it holds, and what it adds. */
const REAL_CHAIN: { id: string; spec: SpecRevision; adds: string[] }[] = [
  { id: 'f5717d82b3ff', spec: 'f5717d82b3ff', adds: [] },
  { id: '50d26a370a65', spec: 'f5717d82b3ff', adds: ["ALTER TABLE actor ADD COLUMN is_blocked BOOLEAN DEFAULT '0' NOT NULL"] },
  { id: '1702e88016db', spec: 'f5717d82b3ff', adds: ['ALTER TABLE notifications ADD COLUMN is_accepted BOOLEAN', 'ALTER TABLE notifications ADD COLUMN is_rejected BOOLEAN'] },
  { id: '9bc69ed947e2', spec: 'f5717d82b3ff', adds: ['ALTER TABLE inbox ADD COLUMN conversation VARCHAR', 'ALTER TABLE outbox ADD COLUMN conversation VARCHAR'] },
  { id: '6286262bb466', spec: 'f5717d82b3ff', adds: [] },
  { id: '5d3e3f2b9b4e', spec: 'f5717d82b3ff', adds: ["ALTER TABLE actor ADD COLUMN is_deleted BOOLEAN DEFAULT '0' NOT NULL"] },
  { id: '604d125ea2fb', spec: 'f5717d82b3ff', adds: ["ALTER TABLE inbox ADD COLUMN has_local_mention BOOLEAN DEFAULT '0' NOT NULL"] },
  { id: 'b28c0551c236', spec: 'f5717d82b3ff', adds: ['ALTER TABLE outbox ADD COLUMN slug VARCHAR'] },
  { id: 'fadfd359ce78', spec: 'f5717d82b3ff', adds: ['ALTER TABLE webmention ADD COLUMN webmention_type VARCHAR(7)'] },
  { id: '9b404c47970a', spec: '9b404c47970a', adds: ["ALTER TABLE actor ADD COLUMN are_announces_hidden_from_stream BOOLEAN DEFAULT '0' NOT NULL"] },
  { id: '4ab54becec04', spec: '4ab54becec04', adds: [] },
  {
    id: 'a209f0333f5a',
    spec: '4ab54becec04',
    adds: ['ALTER TABLE indieauth_access_token ADD COLUMN refresh_token VARCHAR', "ALTER TABLE indieauth_access_token ADD COLUMN was_refreshed BOOLEAN DEFAULT '0' NOT NULL"],
  },
];
export type MicroblogPubRevision = (typeof REAL_CHAIN)[number]['id'];

export interface MicroblogPubFixture {
  folder: string;
  baseUrl: string;
  username: string;
  /** PKCS#1 PEM, as written to key.pem. */
  keyPem: string;
  /** Rows per table written. */
  counts: Record<string, number>;
  /** uploads/ files: relative name → content. */
  uploads: Record<string, Buffer>;
}

/** The spec's schema at `revision` without Tern's CHECK constraints: CREATE statements in order. */
function microblogPubDdl(revision: SpecRevision): string[] {
  const scratch = new Database(':memory:');
  try {
    upgrade(scratch, revision);
    const rows = scratch
      .prepare("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' AND name != 'alembic_version' ORDER BY CASE type WHEN 'table' THEN 0 ELSE 1 END, rowid")
      .all() as { type: string; name: string; sql: string }[];
    return rows.map((r) => (r.type === 'table' ? r.sql.replace(/,\s*CONSTRAINT ck_\w+ CHECK \([^\n]*\)(?=\s*[,)\n])/g, '') : r.sql));
  } finally {
    scratch.close();
  }
}

const BASE = 'https://mbp.example';

export function writeMicroblogPubFolder(
  folder: string,
  options: { revision?: MicroblogPubRevision; baseUrl?: string; username?: string; https?: boolean } = {},
): MicroblogPubFixture {
  const revision: MicroblogPubRevision = options.revision ?? '4ab54becec04';
  const baseUrl = options.baseUrl ?? BASE;
  const username = options.username ?? 'mo';
  const domain = new URL(baseUrl).host;
  mkdirSync(join(folder, 'uploads'), { recursive: true });

  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  writeFileSync(join(folder, 'key.pem'), keyPem);
  writeFileSync(
    join(folder, 'profile.toml'),
    [
      `domain = "${domain}"`,
      `username = "${username}"`,
      `name = "Mo \\"the mover\\""`,
      `summary = """`,
      `Writing from *my own* server.`,
      `Now moving house."""`,
      `https = ${options.https ?? true}`,
      `icon_url = "${baseUrl}/static/nopic.png"`,
      `secret = "0123456789abcdef"`,
      `manually_approves_followers = true`,
      `trusted_hosts = ["127.0.0.1"]`,
      '',
      '[[metadata]]',
      'key = "Web"',
      `value = "${baseUrl}"`,
      '',
    ].join('\n'),
  );

  const uploads: Record<string, Buffer> = {
    'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00': Buffer.from('\x89PNG fake image bytes'),
    'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00_resized': Buffer.from('RIFF fake webp'),
  };
  for (const [name, data] of Object.entries(uploads)) writeFileSync(join(folder, 'uploads', name), data);

  const db = new Database(join(folder, 'microblogpub.db'));
  try {
    db.pragma('journal_mode = WAL');
    const at = REAL_CHAIN.findIndex((r) => r.id === revision);
    if (at === -1) throw new Error(`not a microblog.pub revision: ${revision}`);
    for (const statement of microblogPubDdl(REAL_CHAIN[at]!.spec)) db.exec(statement);
    for (const step of REAL_CHAIN.slice(0, at + 1)) step.adds.forEach((sql) => db.exec(sql));
    db.exec('CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL, CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num))');
    db.prepare('INSERT INTO alembic_version (version_num) VALUES (?)').run(revision);

    const t = (s: number) => `2022-07-01 10:00:${String(s).padStart(2, '0')}.123456`;
    const insert = (table: string, row: Record<string, unknown>) =>
      db.prepare(`INSERT INTO ${table} (${Object.keys(row).join(', ')}) VALUES (${Object.keys(row).map(() => '?').join(', ')})`).run(...Object.values(row));
    const person = (id: string, name: string) =>
      JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', id, type: 'Person', name, preferredUsername: name.toLowerCase(), inbox: `${id}/inbox` });

    insert('actor', { id: 1, created_at: t(1), updated_at: t(1), ap_id: 'https://remote.example/users/ada', ap_actor: person('https://remote.example/users/ada', 'Ada'), ap_type: 'Person', handle: '@ada@remote.example' });
    insert('actor', { id: 2, created_at: t(2), updated_at: t(2), ap_id: 'https://other.example/users/bo', ap_actor: person('https://other.example/users/bo', 'Bo'), ap_type: 'Person', handle: '@bo@other.example' });

    const note = (publicId: string, content: string, published: string) =>
      JSON.stringify({
        '@context': 'https://www.w3.org/ns/activitystreams',
        id: `${baseUrl}/o/${publicId}`,
        type: 'Note',
        attributedTo: baseUrl,
        content,
        published,
        to: ['https://www.w3.org/ns/activitystreams#Public'],
        cc: [`${baseUrl}/followers`],
        url: `${baseUrl}/o/${publicId}`,
      });
    const outbox = (id: number, publicId: string, apType: string, apObject: string, extra: Record<string, unknown> = {}) =>
      insert('outbox', {
        id,
        created_at: t(10 + id),
        updated_at: t(10 + id),
        is_hidden_from_homepage: apType === 'Note' ? 0 : 1,
        public_id: publicId,
        ap_type: apType,
        ap_id: `${baseUrl}/o/${publicId}`,
        ap_context: `${baseUrl}/contexts/${publicId}`,
        ap_object: apObject,
        activity_object_ap_id: null,
        source: null,
        revisions: null,
        ap_published_at: t(10 + id),
        visibility: 'PUBLIC',
        likes_count: 0,
        announces_count: 0,
        replies_count: 0,
        webmentions_count: 0,
        og_meta: null,
        is_pinned: 0,
        is_transient: 0,
        is_deleted: 0,
        ...extra,
      });
    outbox(1, 'aa01', 'Note', note('aa01', '<p>Hello from microblog.pub</p>', '2022-07-01T10:00:11Z'), { source: 'Hello from microblog.pub', likes_count: 1, webmentions_count: 1, is_pinned: 1 });
    outbox(2, 'aa02', 'Note', note('aa02', '<p>A picture</p>', '2022-07-01T10:00:12Z'), { source: 'A picture' });
    outbox(3, 'aa03', 'Follow', JSON.stringify({ id: `${baseUrl}/o/aa03`, type: 'Follow', actor: baseUrl, object: 'https://other.example/users/bo' }), {
      activity_object_ap_id: 'https://other.example/users/bo',
      relates_to_actor_id: 2,
    });

    const inbox = (id: number, actorId: number, apType: string, apId: string, apObject: string, extra: Record<string, unknown> = {}) =>
      insert('inbox', {
        id,
        created_at: t(20 + id),
        updated_at: t(20 + id),
        actor_id: actorId,
        server: actorId === 1 ? 'remote.example' : 'other.example',
        is_hidden_from_stream: apType === 'Note' ? 0 : 1,
        ap_actor_id: actorId === 1 ? 'https://remote.example/users/ada' : 'https://other.example/users/bo',
        ap_type: apType,
        ap_id: apId,
        ap_context: null,
        ap_published_at: t(20 + id),
        ap_object: apObject,
        activity_object_ap_id: null,
        visibility: 'PUBLIC',
        is_bookmarked: 0,
        is_deleted: 0,
        is_transient: 0,
        replies_count: 0,
        og_meta: null,
        ...extra,
      });
    inbox(1, 1, 'Follow', 'https://remote.example/follows/1', JSON.stringify({ id: 'https://remote.example/follows/1', type: 'Follow', actor: 'https://remote.example/users/ada', object: baseUrl }), { activity_object_ap_id: baseUrl });
    inbox(2, 1, 'Like', 'https://remote.example/likes/1', JSON.stringify({ id: 'https://remote.example/likes/1', type: 'Like', actor: 'https://remote.example/users/ada', object: `${baseUrl}/o/aa01` }), {
      activity_object_ap_id: `${baseUrl}/o/aa01`,
      relates_to_outbox_object_id: 1,
    });
    inbox(3, 2, 'Note', 'https://other.example/notes/1', JSON.stringify({ id: 'https://other.example/notes/1', type: 'Note', attributedTo: 'https://other.example/users/bo', content: '<p>Hi from Bo</p>', published: '2022-07-01T10:00:23Z', to: ['https://www.w3.org/ns/activitystreams#Public'] }));

    insert('follower', { id: 1, created_at: t(30), updated_at: t(30), actor_id: 1, inbox_object_id: 1, ap_actor_id: 'https://remote.example/users/ada' });
    insert('following', { id: 1, created_at: t(31), updated_at: t(31), actor_id: 2, outbox_object_id: 3, ap_actor_id: 'https://other.example/users/bo' });
    insert('upload', { id: 1, created_at: t(32), content_type: 'image/png', content_hash: 'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00', has_thumbnail: 1, blurhash: 'LEHV6nWB2yk8pyo0adR*.7kCMdnj', width: 640, height: 480 });
    insert('outbox_object_attachment', { id: 1, created_at: t(33), filename: 'picture.png', alt: 'A test picture', outbox_object_id: 2, upload_id: 1 });
    insert('tagged_outbox_object', { id: 1, outbox_object_id: 1, tag: 'hello' });
    insert('webmention', { id: 1, created_at: t(34), is_deleted: 0, source: 'https://blog.example/post', source_microformats: JSON.stringify({ items: [] }), target: `${baseUrl}/o/aa01`, outbox_object_id: 1 });
    insert('notifications', { id: 1, created_at: t(35), notification_type: 'NEW_FOLLOWER', is_new: 0, actor_id: 1 });
    insert('notifications', { id: 2, created_at: t(36), notification_type: 'LIKE', is_new: 1, actor_id: 1, outbox_object_id: 1, inbox_object_id: 2 });
    insert('notifications', { id: 3, created_at: t(37), notification_type: 'NEW_WEBMENTION', is_new: 1, outbox_object_id: 1, webmention_id: 1 });
    insert('indieauth_authorization_request', { id: 1, created_at: t(41), code: 'mbp-code-1', scope: 'create', redirect_uri: 'https://app.example/cb', client_id: 'https://app.example/', code_challenge: null, code_challenge_method: null, is_used: 1 });
    insert('indieauth_access_token', { id: 1, created_at: t(42), indieauth_authorization_request_id: 1, access_token: 'mbp-access-token-1', expires_in: 5184000, scope: 'create', is_revoked: 0 });
    insert('outgoing_activity', { id: 1, created_at: t(38), recipient: 'https://other.example/inbox', outbox_object_id: 3, tries: 1, next_try: null, last_try: t(38), last_status_code: 202, is_sent: 1, is_errored: 0 });
    if (revision === 'a209f0333f5a') {
      // A follow request waiting, as microblog.pub 2.x records it: a kind the spec does not list.
      insert('notifications', { id: 4, created_at: t(40), notification_type: 'PENDING_INCOMING_FOLLOWER', is_new: 1, actor_id: 2 });
    }
    if (REAL_CHAIN[at]!.spec === '4ab54becec04') {
      insert('oauth_client', { id: 1, created_at: t(39), client_name: 'Some app', redirect_uris: JSON.stringify(['https://app.example/cb']), client_id: 'a'.repeat(32), client_secret: 'b'.repeat(64) });
    }
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'alembic_version'").pluck().all() as string[];
    const counts = Object.fromEntries(tables.map((name) => [name, db.prepare(`SELECT count(*) FROM "${name}"`).pluck().get() as number]));
    return { folder, baseUrl, username, keyPem, counts, uploads };
  } finally {
    db.close();
  }
}
