// The followers' inboxes are read from the index of where actors receive (SQL over the stored
// document), not by decoding each document (ap.ts inboxOf): both must give the same inbox for
// every actor document the fixtures hold (servers' documents as they serve them) and for the
// shapes peers send (`endpoints` as a string, an array of one, `sharedInbox` as an object, an
// inbox that is no URL), and the query must read that index alone.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlite, wrapDrizzle } from '../../../db/client';
import { upgrade } from '../../../migrations/runner';
import { inboxOf, type Json } from './ap';
import { FOLLOWER_INBOXES, followerInboxes } from './recipients';

function fixtureActors(): Json[] {
  const root = join(__dirname, '../../../test/fixtures');
  const files = (dir: string): string[] => readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : name.endsWith('.json') ? [join(dir, name)] : []));
  const found: Json[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (typeof value !== 'object' || value === null) return;
    const doc = value as Json;
    if (typeof doc.id === 'string' && 'inbox' in doc) found.push(doc);
    Object.values(doc).forEach(visit);
  };
  for (const file of files(root)) {
    try {
      visit(JSON.parse(readFileSync(file, 'utf8')));
    } catch {
      // not JSON: not an actor
    }
  }
  return found;
}

const SHAPES: Json[] = [
  { id: 'https://a.example/u/1', inbox: 'https://a.example/u/1/inbox', endpoints: { sharedInbox: 'https://a.example/inbox' } },
  { id: 'https://b.example/u/1', inbox: 'https://b.example/u/1/inbox', endpoints: 'https://b.example/u/1#endpoints' },
  { id: 'https://c.example/u/1', inbox: 'https://c.example/u/1/inbox', endpoints: [{ sharedInbox: 'https://c.example/inbox' }] },
  { id: 'https://d.example/u/1', inbox: 'https://d.example/u/1/inbox', endpoints: { sharedInbox: { id: 'https://d.example/inbox' } } },
  { id: 'https://e.example/u/1', inbox: { id: 'https://e.example/u/1/inbox' } },
  { id: 'https://f.example/u/1', inbox: { href: 'https://f.example/u/1/inbox' } },
  { id: 'https://g.example/u/1', inbox: 'https://g.example/u/1/inbox', endpoints: { sharedInbox: 'not a url' } },
  { id: 'https://h.example/u/1', inbox: 'https://h.example/u/1/inbox', endpoints: { sharedInbox: 'ftp://h.example/inbox' } },
  { id: 'https://i.example/u/1', inbox: 'https://I.EXAMPLE:443/u/1/inbox', endpoints: { sharedInbox: 'HTTPS://I.example' } },
  { id: 'https://j.example/u/1', inbox: 7, endpoints: { sharedInbox: null } },
  { id: 'https://k.example/u/1', inbox: 'https://k.example/u/1/inbox', endpoints: null },
  { id: 'https://m.example/u/1' },
  { id: 'https://n.example/u/1', inbox: ['https://n.example/u/1/inbox'] },
];

describe('the followers’ inboxes, from the index of where actors receive', () => {
  const sqlite = openSqlite(':memory:');
  upgrade(sqlite);
  const db = wrapDrizzle(sqlite);
  afterAll(() => sqlite.close());
  const follow = sqlite.prepare(
    "INSERT INTO follower (created_at, updated_at, actor_id, inbox_object_id, ap_actor_id) VALUES ('2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z', ?, ?, ?)",
  );
  let n = 0;
  /** An actor (its document as stored: `raw`), its Follow, and it as a follower. */
  function addFollower(apId: string, raw: string): void {
    const id = ++n;
    sqlite.prepare("INSERT INTO actor (id, created_at, updated_at, ap_id, ap_actor, ap_type) VALUES (?, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z', ?, ?, 'Person')").run(id, `${apId}#${id}`, raw);
    sqlite
      .prepare(
        `INSERT INTO inbox (id, created_at, updated_at, actor_id, server, is_hidden_from_stream, ap_actor_id, ap_type, ap_id, ap_published_at, ap_object, visibility, is_bookmarked, is_deleted, is_transient, replies_count)
         VALUES (?, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z', ?, 'x.example', 1, ?, 'Follow', ?, '2025-01-01T00:00:00.000Z', '{}', 'PUBLIC', 0, 0, 0, 0)`,
      )
      .run(id, id, apId, `https://x.example/follow/${id}`);
    follow.run(id, id, apId);
  }
  function asOnlyFollower(doc: Json): string[] {
    sqlite.exec('DELETE FROM follower');
    addFollower(String(doc.id), JSON.stringify(doc));
    return followerInboxes(db);
  }

  it('the same inbox as inboxOf for every actor of the fixtures and every shape peers send', () => {
    const actors = [...fixtureActors(), ...SHAPES];
    expect(actors.length).toBeGreaterThan(200);
    const differ = actors
      .map((doc) => ({ id: doc.id, expected: [inboxOf(doc)].filter((x) => x !== null), got: asOnlyFollower(doc) }))
      .filter((r) => JSON.stringify(r.expected) !== JSON.stringify(r.got));
    expect(differ).toEqual([]);
  });

  it('one per shared inbox, the own inbox otherwise; a document that is not JSON gives none and is still stored', () => {
    sqlite.exec('DELETE FROM follower');
    const rows: Json[] = [
      { id: 'https://p.example/u/1', inbox: 'https://p.example/u/1/inbox', endpoints: { sharedInbox: 'https://p.example/inbox' } },
      { id: 'https://p.example/u/2', inbox: 'https://p.example/u/2/inbox', endpoints: { sharedInbox: 'https://p.example/inbox' } },
      { id: 'https://q.example/u/1', inbox: 'https://q.example/u/1/inbox' },
    ];
    for (const doc of rows) addFollower(String(doc.id), JSON.stringify(doc));
    // A tool with CHECKs off may store a document that is not JSON: the index takes the row.
    sqlite.pragma('ignore_check_constraints = ON');
    addFollower('https://r.example/u/1', '{not json');
    sqlite.pragma('ignore_check_constraints = OFF');
    expect(followerInboxes(db).sort()).toEqual(['https://p.example/inbox', 'https://q.example/u/1/inbox']);
  });

  it('reads the index alone, one look-up per follower', () => {
    const plan = (sqlite.prepare(`EXPLAIN QUERY PLAN ${FOLLOWER_INBOXES}`).all() as { detail: string }[]).map((r) => r.detail);
    expect(plan).toContain('SEARCH actor USING COVERING INDEX ix_actor_inboxes (id=?)');
  });
});
