// One test per rule of the spec (../shared/spec/data-model.md, §2), against the database the
// migrations build: required and optional fields, indexes, defaults, uniques (webmention's two
// and poll_answer's partial one included), enumerations, booleans, JSON, datetimes with a time
// zone, foreign keys. The field list below is transcribed from the spec, not from schema.ts,
// so the two are checked against each other. Rows are written in raw SQL, as any writer
// could; datetimes are also read and written through drizzle.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { openSqlite, wrapDrizzle, type Sqlite } from './client';
import { NOTIFICATION_TYPES, VISIBILITIES, actor, inbox, outbox } from './schema';
import { upgrade } from '../migrations/runner';

type Kind = 'id' | 'integer' | 'string' | 'datetime' | 'boolean' | 'json' | 'visibility' | 'notification_type' | `ref:${string}`;
interface Field {
  table: string;
  name: string;
  kind: Kind;
  required: boolean;
}

// The spec's tables, field by field: `name kind req|opt`; `ref:<table>` references <table>.id.
const SPEC: Record<string, string> = {
  actor: `id id req; created_at datetime req; updated_at datetime req; ap_id string req; ap_actor json req;
    ap_type string req; handle string opt`,
  inbox: `id id req; created_at datetime req; updated_at datetime req; actor_id ref:actor req; server string req;
    is_hidden_from_stream boolean req; ap_actor_id string req; ap_type string req; ap_id string req;
    ap_context string opt; ap_published_at datetime req; ap_object json req; activity_object_ap_id string opt;
    visibility visibility req; relates_to_inbox_object_id ref:inbox opt; relates_to_outbox_object_id ref:outbox opt;
    undone_by_inbox_object_id ref:inbox opt; liked_via_outbox_object_ap_id string opt;
    announced_via_outbox_object_ap_id string opt; voted_for_answers json opt; is_bookmarked boolean req;
    is_deleted boolean req; is_transient boolean req; replies_count integer req; og_meta json opt`,
  incoming_activity: `id id req; created_at datetime req; webmention_source string opt; sent_by_ap_actor_id string opt;
    ap_id string opt; ap_object json opt; tries integer req; next_try datetime opt; last_try datetime opt;
    is_processed boolean req; is_errored boolean req; error string opt`,
  indieauth_authorization_request: `id id req; created_at datetime req; code string req; scope string req;
    redirect_uri string req; client_id string req; code_challenge string opt; code_challenge_method string opt;
    is_used boolean req`,
  outbox: `id id req; created_at datetime req; updated_at datetime req; is_hidden_from_homepage boolean req;
    public_id string req; ap_type string req; ap_id string req; ap_context string opt; ap_object json req;
    activity_object_ap_id string opt; source string opt; revisions json opt; ap_published_at datetime req;
    visibility visibility req; likes_count integer req; announces_count integer req; replies_count integer req;
    webmentions_count integer req; og_meta json opt; is_pinned boolean req; is_transient boolean req;
    is_deleted boolean req; relates_to_inbox_object_id ref:inbox opt; relates_to_outbox_object_id ref:outbox opt;
    relates_to_actor_id ref:actor opt; undone_by_outbox_object_id ref:outbox opt`,
  upload: `id id req; created_at datetime req; content_type string req; content_hash string req;
    has_thumbnail boolean req; blurhash string opt; width integer opt; height integer opt`,
  follower: `id id req; created_at datetime req; updated_at datetime req; actor_id ref:actor req;
    inbox_object_id ref:inbox req; ap_actor_id string req`,
  following: `id id req; created_at datetime req; updated_at datetime req; actor_id ref:actor req;
    outbox_object_id ref:outbox req; ap_actor_id string req`,
  indieauth_access_token: `id id req; created_at datetime req;
    indieauth_authorization_request_id ref:indieauth_authorization_request opt; access_token string req;
    expires_in integer req; scope string req; is_revoked boolean req`,
  outbox_object_attachment: `id id req; created_at datetime req; filename string req; alt string opt;
    outbox_object_id ref:outbox req; upload_id ref:upload req`,
  outgoing_activity: `id id req; created_at datetime req; recipient string req; outbox_object_id ref:outbox opt;
    inbox_object_id ref:inbox opt; webmention_target string opt; tries integer req; next_try datetime opt;
    last_try datetime opt; last_status_code integer opt; last_response string opt; is_sent boolean req;
    is_errored boolean req; error string opt`,
  poll_answer: `id id req; created_at datetime req; outbox_object_id ref:outbox req; poll_type string req;
    inbox_object_id ref:inbox req; actor_id ref:actor req; name string req`,
  tagged_outbox_object: `id id req; outbox_object_id ref:outbox req; tag string req`,
  webmention: `id id req; created_at datetime req; is_deleted boolean req; source string req;
    source_microformats json opt; target string req; outbox_object_id ref:outbox req`,
  notifications: `id id req; created_at datetime req; notification_type notification_type opt; is_new boolean req;
    actor_id ref:actor opt; outbox_object_id ref:outbox opt; inbox_object_id ref:inbox opt;
    webmention_id ref:webmention opt`,
  oauth_client: `id id req; created_at datetime req; client_name string req; redirect_uris json opt;
    client_uri string opt; logo_uri string opt; scope string opt; client_id string req; client_secret string req`,
};

const FIELDS: Field[] = Object.entries(SPEC).flatMap(([table, text]) =>
  text.split(';').map((part) => {
    const [name, kind, req] = part.trim().split(/\s+/) as [string, Kind, string];
    return { table, name, kind, required: req === 'req' };
  }),
);
const TABLES = Object.keys(SPEC);
const fieldsOf = (table: string) => FIELDS.filter((f) => f.table === table && f.kind !== 'id');
const ofKind = (predicate: (f: Field) => boolean) => FIELDS.filter(predicate).map((f) => [`${f.table}.${f.name}`, f] as const);

type Row = Record<string, string | number | null>;

/** A valid row: every field filled; strings unique by `n`; references point at row `parent`. */
function validRow(table: string, n: number, parent = 1): Row {
  const row: Row = {};
  for (const f of fieldsOf(table)) {
    row[f.name] = f.kind.startsWith('ref:')
      ? parent
      : {
          integer: 0,
          string: `${table}.${f.name}.${n}`,
          datetime: '2024-05-01T12:00:00Z',
          boolean: 0,
          json: '{"n": 1}',
          visibility: 'PUBLIC',
          notification_type: 'MENTION',
        }[f.kind as string]!;
  }
  return row;
}

function insert(sqlite: Sqlite, table: string, row: Row): number {
  const columns = Object.keys(row);
  const statement = `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
  return Number(sqlite.prepare(statement).run(...columns.map((c) => row[c])).lastInsertRowid);
}

// The tables other rows reference, two rows each (ids 1 and 2), references left empty.
const PARENTS = ['actor', 'indieauth_authorization_request', 'upload', 'inbox', 'outbox', 'webmention'];

// One migrated, seeded database; each test runs in a transaction rolled back after it.
let sqlite: Sqlite;
beforeAll(() => {
  sqlite = openSqlite(':memory:');
  upgrade(sqlite);
  for (const n of [1, 2]) {
    for (const table of PARENTS) {
      const row = validRow(table, 100 + n, n);
      for (const f of fieldsOf(table)) if (f.kind.startsWith('ref:') && !f.required) row[f.name] = null;
      expect(insert(sqlite, table, row)).toBe(n);
    }
  }
});
afterAll(() => sqlite.close());
beforeEach(() => sqlite.exec('BEGIN'));
afterEach(() => sqlite.exec('ROLLBACK'));

const refusal = (table: string, row: Row) => () => insert(sqlite, table, row);

describe('fields', () => {
  it.each(TABLES)('a complete, valid %s row is accepted', (table) => {
    expect(insert(sqlite, table, validRow(table, 2))).toBeGreaterThan(0);
  });

  it.each(TABLES)('%s.id is the integer primary key: assigned when omitted, a duplicate refused', (table) => {
    const id = insert(sqlite, table, validRow(table, 2));
    expect(Number.isInteger(id)).toBe(true);
    expect(refusal(table, { ...validRow(table, 3), id })).toThrow(`UNIQUE constraint failed: ${table}.id`);
  });

  it.each(ofKind((f) => f.required && f.kind !== 'id'))('%s is required: NULL is refused', (_, f) => {
    expect(refusal(f.table, { ...validRow(f.table, 2), [f.name]: null })).toThrow(`NOT NULL constraint failed: ${f.table}.${f.name}`);
  });

  it.each(ofKind((f) => !f.required))('%s is optional: NULL is accepted', (_, f) => {
    expect(insert(sqlite, f.table, { ...validRow(f.table, 2), [f.name]: null })).toBeGreaterThan(0);
  });

  it('tagged_outbox_object has no created_at field', () => {
    const columns = (sqlite.pragma('table_info(tagged_outbox_object)') as { name: string }[]).map((c) => c.name);
    expect(columns).toEqual(['id', 'outbox_object_id', 'tag']);
  });
});

describe('indexes', () => {
  // The spec's "indexed" notes (every id too); true where the index is unique.
  const INDEXED: [string, boolean][] = [
    ...TABLES.map((t): [string, boolean] => [`${t}.id`, false]),
    ['actor.ap_id', true],
    ['actor.handle', false],
    ['inbox.ap_type', false],
    ['inbox.ap_id', true],
    ['inbox.activity_object_ap_id', false],
    ['incoming_activity.ap_id', false],
    ['indieauth_authorization_request.code', true],
    ['outbox.public_id', false],
    ['outbox.ap_type', false],
    ['outbox.ap_id', true],
    ['outbox.activity_object_ap_id', false],
    ['indieauth_access_token.access_token', true],
    ['tagged_outbox_object.tag', false],
    ['webmention.source', true],
    ['webmention.target', false],
    ['oauth_client.client_id', true],
  ];

  it.each(INDEXED)('%s has an index of its own (unique: %s)', (field, unique) => {
    const [table, column] = field.split('.') as [string, string];
    const indexes = (sqlite.pragma(`index_list(${table})`) as { name: string; unique: number; origin: string }[])
      .filter((i) => i.origin === 'c')
      .filter((i) => {
        const columns = (sqlite.pragma(`index_info(${i.name})`) as { name: string }[]).map((c) => c.name);
        return columns.length === 1 && columns[0] === column;
      });
    expect(indexes.map((i) => ({ name: i.name, unique: i.unique === 1 }))).toEqual([{ name: `ix_${table}_${column}`, unique }]);
  });
});

describe('defaults', () => {
  const omit = (row: Row, name: string) => Object.fromEntries(Object.entries(row).filter(([k]) => k !== name));

  it('inbox.is_transient defaults to false', () => {
    const id = insert(sqlite, 'inbox', omit(validRow('inbox', 2), 'is_transient'));
    const row = wrapDrizzle(sqlite).select().from(inbox).where(eq(inbox.id, id)).get();
    expect(row?.isTransient).toBe(false);
  });

  it('outbox.is_transient defaults to false', () => {
    const id = insert(sqlite, 'outbox', omit(validRow('outbox', 2), 'is_transient'));
    const row = wrapDrizzle(sqlite).select().from(outbox).where(eq(outbox.id, id)).get();
    expect(row?.isTransient).toBe(false);
  });

  it('outbox.webmentions_count defaults to 0', () => {
    const id = insert(sqlite, 'outbox', omit(validRow('outbox', 2), 'webmentions_count'));
    const row = wrapDrizzle(sqlite).select().from(outbox).where(eq(outbox.id, id)).get();
    expect(row?.webmentionsCount).toBe(0);
  });
});

describe('uniques', () => {
  // A second row that differs in everything (references point at the other parent row) except
  // the unique columns is refused.
  const UNIQUES: [string, string[]][] = [
    ['actor', ['ap_id']],
    ['inbox', ['ap_id']],
    ['outbox', ['ap_id']],
    ['upload', ['content_hash']],
    ['follower', ['actor_id']],
    ['follower', ['ap_actor_id']],
    ['following', ['actor_id']],
    ['following', ['ap_actor_id']],
    ['indieauth_authorization_request', ['code']],
    ['indieauth_access_token', ['access_token']],
    ['oauth_client', ['client_id']],
    ['oauth_client', ['client_secret']],
    ['tagged_outbox_object', ['outbox_object_id', 'tag']],
    ['poll_answer', ['outbox_object_id', 'name', 'actor_id']],
    ['webmention', ['source', 'target']],
  ];

  it.each(UNIQUES)('%s (%s) is unique: a second row with the same value is refused', (table, columns) => {
    const first = validRow(table, 2, 1);
    insert(sqlite, table, first);
    const second = { ...validRow(table, 3, 2), ...Object.fromEntries(columns.map((c) => [c, first[c]!])) };
    expect(refusal(table, second)).toThrow(`UNIQUE constraint failed: ${table}.${columns[0]}`);
  });

  it('webmention.source is unique on its own: the same source with another target is refused', () => {
    insert(sqlite, 'webmention', { ...validRow('webmention', 2), source: 'https://a.example/post', target: 'https://me.example/1' });
    const second = { ...validRow('webmention', 3, 2), source: 'https://a.example/post', target: 'https://me.example/2' };
    expect(refusal('webmention', second)).toThrow('UNIQUE constraint failed: webmention.source');
  });

  const answer = (n: number, pollType: string, poll = 1) => ({ ...validRow('poll_answer', n), poll_type: pollType, outbox_object_id: poll });

  it('poll_answer: one actor cannot give two oneOf answers to one poll', () => {
    insert(sqlite, 'poll_answer', answer(2, 'oneOf'));
    expect(refusal('poll_answer', answer(3, 'oneOf'))).toThrow(
      'UNIQUE constraint failed: poll_answer.outbox_object_id, poll_answer.actor_id',
    );
  });

  it('poll_answer: one actor may give several anyOf answers to one poll', () => {
    insert(sqlite, 'poll_answer', answer(2, 'anyOf'));
    expect(insert(sqlite, 'poll_answer', answer(3, 'anyOf'))).toBeGreaterThan(0);
  });

  it('poll_answer: one actor may give a oneOf answer to each of two polls', () => {
    insert(sqlite, 'poll_answer', answer(2, 'oneOf', 1));
    expect(insert(sqlite, 'poll_answer', answer(3, 'oneOf', 2))).toBeGreaterThan(0);
  });
});

describe('enumerations', () => {
  const visibilityFields = ofKind((f) => f.kind === 'visibility');

  it.each(visibilityFields)('%s refuses a name outside the visibility enumeration', (_, f) => {
    expect(refusal(f.table, { ...validRow(f.table, 2), [f.name]: 'public' })).toThrow(`CHECK constraint failed: ck_${f.table}_${f.name}`);
  });

  it.each(visibilityFields.flatMap(([label, f]) => VISIBILITIES.map((v) => [label, v, f] as const)))(
    '%s accepts %s',
    (_, value, f) => {
      expect(insert(sqlite, f.table, { ...validRow(f.table, 2), [f.name]: value })).toBeGreaterThan(0);
    },
  );

  it('notifications.notification_type refuses a name outside the notification_type enumeration', () => {
    expect(refusal('notifications', { ...validRow('notifications', 2), notification_type: 'REPORTED' })).toThrow(
      'CHECK constraint failed: ck_notifications_notification_type',
    );
  });

  it.each(NOTIFICATION_TYPES)('notifications.notification_type accepts %s', (value) => {
    expect(insert(sqlite, 'notifications', { ...validRow('notifications', 2), notification_type: value })).toBeGreaterThan(0);
  });

  it('the enumerations in columns.ts are the spec\'s', () => {
    expect([...VISIBILITIES]).toEqual(['PUBLIC', 'UNLISTED', 'FOLLOWERS_ONLY', 'DIRECT']);
    expect([...NOTIFICATION_TYPES]).toEqual([
      'NEW_FOLLOWER', 'UNFOLLOW', 'FOLLOW_REQUEST_ACCEPTED', 'FOLLOW_REQUEST_REJECTED', 'LIKE', 'UNDO_LIKE',
      'ANNOUNCE', 'UNDO_ANNOUNCE', 'MENTION', 'NEW_WEBMENTION', 'UPDATED_WEBMENTION', 'DELETED_WEBMENTION',
    ]);
  });
});

describe('booleans', () => {
  it.each(ofKind((f) => f.kind === 'boolean'))('%s holds 0 or 1: 1 is accepted, 2 refused', (_, f) => {
    expect(insert(sqlite, f.table, { ...validRow(f.table, 2), [f.name]: 1 })).toBeGreaterThan(0);
    expect(refusal(f.table, { ...validRow(f.table, 3), [f.name]: 2 })).toThrow(`CHECK constraint failed: ck_${f.table}_${f.name}`);
  });
});

describe('JSON', () => {
  it.each(ofKind((f) => f.kind === 'json'))('%s holds valid JSON: {bad is refused', (_, f) => {
    expect(refusal(f.table, { ...validRow(f.table, 2), [f.name]: '{bad' })).toThrow(`CHECK constraint failed: ck_${f.table}_${f.name}`);
  });
});

describe('datetimes carry a time zone', () => {
  it.each(ofKind((f) => f.kind === 'datetime'))('%s refuses a datetime without an offset', (_, f) => {
    expect(refusal(f.table, { ...validRow(f.table, 2), [f.name]: '2024-05-01T12:00:00' })).toThrow(
      `CHECK constraint failed: ck_${f.table}_${f.name}`,
    );
  });

  it('a datetime that is not a date is refused even with an offset', () => {
    expect(refusal('actor', { ...validRow('actor', 2), created_at: '2024-13-45T99:00:00Z' })).toThrow(
      'CHECK constraint failed: ck_actor_created_at',
    );
  });

  it('a datetime with a +02:00 offset is accepted and read back through drizzle as the same instant', () => {
    const id = insert(sqlite, 'actor', { ...validRow('actor', 2), created_at: '2024-05-01T12:00:00+02:00' });
    const row = wrapDrizzle(sqlite).select().from(actor).where(eq(actor.id, id)).get();
    expect(row?.createdAt.toISOString()).toBe('2024-05-01T10:00:00.000Z');
  });

  it('a Date written through drizzle reads back equal', () => {
    const db = wrapDrizzle(sqlite);
    const when = new Date('2023-11-05T01:30:15.250Z');
    const [written] = db
      .insert(actor)
      .values({ createdAt: when, updatedAt: when, apId: 'https://a.example/users/x', apActor: { type: 'Person' }, apType: 'Person' })
      .returning()
      .all();
    const read = db.select().from(actor).where(eq(actor.id, written!.id)).get();
    expect(read?.createdAt).toEqual(when);
    expect(read?.updatedAt.getTime()).toBe(when.getTime());
  });
});

describe('foreign keys', () => {
  it.each(ofKind((f) => f.kind.startsWith('ref:')))('%s must reference an existing row: a missing one is refused', (_, f) => {
    expect(refusal(f.table, { ...validRow(f.table, 2), [f.name]: 999 })).toThrow('FOREIGN KEY constraint failed');
  });
});
