// The reply tree of a thread, read in one recursive statement: order (depth first, siblings
// oldest first, whatever form the stored time has), what is left out (deleted, transient, our
// own non-posts), chains that loop back through the post shown, and the depth bound. Rows are
// written straight into a real core's database, as any writer (the processor, an import, the
// sqlite3 shell) may have left them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCore, type Core } from '../../core';
import { createHandlers, dispatch, type Handlers } from '../../ipc/handlers';

let dir: string;
let core: Core;
let handlers: Handlers;
let nextId = 1;
const RANDOM_TREES = 4;
const randomTrees: { root: string; parentOf: Map<string, string> }[] = [];

const ACTOR = 'https://peer.example/users/ann';
const post = (n: string) => `https://peer.example/notes/${n}`;

function insertInbox(apId: string, inReplyTo: unknown, published: string, extra: { deleted?: boolean; transient?: boolean } = {}) {
  const object = { id: apId, type: 'Note', attributedTo: ACTOR, content: `<p>text of ${apId}</p>`, published, ...(inReplyTo === undefined ? {} : { inReplyTo }) };
  core.sqlite
    .prepare(
      `INSERT INTO inbox (id, created_at, updated_at, actor_id, server, is_hidden_from_stream, ap_actor_id, ap_type, ap_id,
         ap_published_at, ap_object, visibility, is_bookmarked, is_deleted, is_transient, replies_count)
       VALUES (?, ?, ?, 1, 'peer.example', 0, ?, 'Note', ?, ?, ?, 'PUBLIC', 0, ?, ?, 0)`,
    )
    .run(nextId++, published, published, ACTOR, apId, published, JSON.stringify(object), extra.deleted ? 1 : 0, extra.transient ? 1 : 0);
}

function insertOwn(apId: string, type: string, inReplyTo: string, published: string) {
  const object = { id: apId, type, attributedTo: 'https://tern.example/users/me', content: `<p>mine ${apId}</p>`, inReplyTo, object: inReplyTo, published };
  core.sqlite
    .prepare(
      `INSERT INTO outbox (id, created_at, updated_at, is_hidden_from_homepage, public_id, ap_type, ap_id, ap_object,
         ap_published_at, visibility, likes_count, announces_count, replies_count, is_pinned, is_deleted)
       VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?, 'PUBLIC', 0, 0, 0, 0, 0)`,
    )
    .run(nextId, published, published, `own${nextId++}`, type, apId, JSON.stringify(object), published);
}

type Thread = {
  post: { apId: string };
  ancestors: { apId: string }[];
  replies: { apId: string; depth: number; id: number; published: string }[];
  totalReplies: number;
  nextCursor: string | null;
  missingParent: string | null;
};

async function thread(apId: string, extra: Record<string, unknown> = {}): Promise<Thread> {
  const result = await dispatch(handlers, 'thread.get', { apId, ...extra }, () => {});
  if (!result.ok) throw new Error(result.error.message);
  return result.value as Thread;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tern-thread-'));
  core = await openCore({ dataDir: dir, mode: 'headless' });
  core.sqlite
    .prepare(`INSERT INTO actor (id, created_at, updated_at, ap_id, ap_actor, ap_type, handle) VALUES (1, ?, ?, ?, ?, 'Person', '@ann@peer.example')`)
    .run('2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z', ACTOR, JSON.stringify({ id: ACTOR, type: 'Person', preferredUsername: 'ann', inbox: `${ACTOR}/inbox` }));
  core.settings.update({ baseUrl: 'https://tern.example', username: 'me', displayName: 'Me' });
  handlers = createHandlers(core);

  // root ← a (10:00) ← a1 (10:05), a2 (12:03+02:00, 10:03 UTC: earlier, though its text sorts later)
  //      ← b (09:00, the older sibling: shown first) ← b1 (our own reply)
  //      ← c (deleted) ← c1 (under a deleted reply: not reached)
  //      ← t (transient)
  //      ← our Like of root (not a post: never a reply)
  insertInbox(post('root'), undefined, '2025-01-01T08:00:00Z');
  insertInbox(post('a'), post('root'), '2025-01-01T10:00:00Z');
  insertInbox(post('a1'), { id: post('a'), type: 'Note' }, '2025-01-01T10:05:00+00:00');
  insertInbox(post('a2'), post('a'), '2025-01-01T12:03:00+02:00');
  insertInbox(post('b'), post('root'), '2025-01-01T09:00:00.000Z');
  insertOwn('https://tern.example/o/b1', 'Note', post('b'), '2025-01-01T09:30:00.000Z');
  insertInbox(post('c'), post('root'), '2025-01-01T11:00:00Z', { deleted: true });
  insertInbox(post('c1'), post('c'), '2025-01-01T11:30:00Z');
  insertInbox(post('t'), post('root'), '2025-01-01T11:00:00Z', { transient: true });
  insertOwn('https://tern.example/o/like', 'Like', post('root'), '2025-01-01T12:00:00.000Z');

  // A chain that loops back: x ← y ← z ← x (z answers y, x answers z).
  insertInbox(post('x'), post('z'), '2025-01-02T00:00:00Z');
  insertInbox(post('y'), post('x'), '2025-01-02T00:01:00Z');
  insertInbox(post('z'), post('y'), '2025-01-02T00:02:00Z');

  // Siblings at one moment, written three ways: by id (s3 was stored first). Under our own
  // reply s2o, a received reply, under which our own again: the walk goes through both boxes.
  insertInbox(post('same'), undefined, '2025-01-04T00:00:00Z');
  nextId = 1000;
  insertInbox(post('s3'), post('same'), '2025-01-04T01:00:00Z');
  nextId = 1002;
  insertInbox(post('s1'), post('same'), '2025-01-04T01:00:00.000Z');
  nextId = 1001;
  insertOwn('https://tern.example/o/s2o', 'Note', post('same'), '2025-01-04T03:00:00+02:00');
  nextId = 1003;
  insertInbox(post('s2o-r'), 'https://tern.example/o/s2o', '2025-01-04T01:30:00Z');
  insertOwn('https://tern.example/o/s2o-r-o', 'Note', post('s2o-r'), '2025-01-04T01:40:00Z');

  // Random trees: replies to random earlier posts of the tree, received or our own, many at the
  // same moment (written three ways), some deleted or transient (their replies not reached).
  nextId = 5000;
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let t = 0; t < RANDOM_TREES; t++) {
    const root = post(`r${t}`);
    insertInbox(root, undefined, '2025-02-01T00:00:00Z');
    const live = [root];
    const tree = new Map<string, string>();
    for (let k = 0; k < 80; k++) {
      const parent = live[Math.floor(random() * live.length)]!;
      const minute = String(Math.floor(random() * 15)).padStart(2, '0');
      const published = [`2025-02-01T01:${minute}:00Z`, `2025-02-01T01:${minute}:00.000Z`, `2025-02-01T02:${minute}:00+01:00`][k % 3]!;
      const own = random() < 0.2;
      const gone = !own && random() < 0.1;
      const apId = own ? `https://tern.example/o/r${t}-${k}` : post(`r${t}-${k}`);
      if (own) insertOwn(apId, 'Note', parent, published);
      else insertInbox(apId, parent, published, gone ? (random() < 0.5 ? { deleted: true } : { transient: true }) : {});
      if (gone) continue;
      live.push(apId);
      tree.set(apId, parent);
    }
    randomTrees.push({ root, parentOf: tree });
  }

  // A chain 40 replies deep under `deep`.
  insertInbox(post('deep'), undefined, '2025-01-03T00:00:00Z');
  for (let i = 1; i <= 40; i++) insertInbox(post(`deep${i}`), post(i === 1 ? 'deep' : `deep${i - 1}`), `2025-01-03T00:${String(i).padStart(2, '0')}:00Z`);
}, 60_000);

afterAll(() => {
  core?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a thread’s replies', () => {
  it('depth first, siblings oldest first (any stored time form), our own replies among them; deleted, transient and non-posts left out', async () => {
    const t = await thread(post('root'));
    expect(t.replies.map((r) => [r.apId.replace(/^.*\//, ''), r.depth])).toEqual([
      ['b', 1],
      ['b1', 2],
      ['a', 1],
      ['a2', 2],
      ['a1', 2],
    ]);
    expect(t.totalReplies).toBe(5);
    expect(t.nextCursor).toBeNull();
  });

  it('pages follow one another in the same order', async () => {
    const first = await thread(post('root'), { limit: 2 });
    expect(first.replies.map((r) => r.apId)).toEqual([post('b'), 'https://tern.example/o/b1']);
    const second = await thread(post('root'), { limit: 2, cursor: first.nextCursor });
    expect(second.replies.map((r) => r.apId)).toEqual([post('a'), post('a2')]);
    const third = await thread(post('root'), { limit: 2, cursor: second.nextCursor });
    expect(third.replies.map((r) => r.apId)).toEqual([post('a1')]);
    expect(third.nextCursor).toBeNull();
  });

  it('a chain that loops back through the post shown ends there: each post once', async () => {
    const t = await thread(post('x'));
    expect(t.ancestors.map((p) => p.apId)).toEqual([post('y'), post('z')]);
    // y and z are x's ancestors: not shown again below it.
    expect(t.replies).toEqual([]);
    const fromY = await thread(post('y'));
    expect(fromY.post.apId).toBe(post('y'));
    expect(fromY.ancestors.map((p) => p.apId)).toEqual([post('z'), post('x')]);
    expect(fromY.replies).toEqual([]);
  });

  it('siblings at the same moment, however the time is written, by id; replies under our own replies and theirs', async () => {
    const t = await thread(post('same'));
    expect(t.replies.map((r) => [r.apId.replace(/^.*\//, ''), r.depth])).toEqual([
      ['s3', 1],
      ['s2o', 1],
      ['s2o-r', 2],
      ['s2o-r-o', 3],
      ['s1', 1],
    ]);
    const later = await thread(post('same'), { cursor: '2', limit: 2 });
    expect(later.replies.map((r) => r.apId.replace(/^.*\//, ''))).toEqual(['s2o-r', 's2o-r-o']);
    expect(later.totalReplies).toBe(5);
    expect(later.nextCursor).toBe('4');
  });

  it('random trees: every reply reached once, depth first, siblings oldest first then by id; pages of 7 follow one another to the same list', async () => {
    for (const { root, parentOf } of randomTrees) {
      const whole = await thread(root, { limit: 500 });
      expect(whole.replies.map((r) => r.apId).sort()).toEqual([...parentOf.keys()].sort());
      expect(whole.totalReplies).toBe(parentOf.size);
      // Depth first: a reply's parent is the post shown (depth 1) or the last reply before it one
      // level up; siblings in order of time, then id.
      const path: string[] = [root];
      const last = new Map<string, { time: number; id: number }>();
      for (const r of whole.replies) {
        expect(r.depth).toBeLessThanOrEqual(path.length);
        path.length = r.depth;
        expect(parentOf.get(r.apId)).toBe(path[r.depth - 1]);
        path.push(r.apId);
        const parent = parentOf.get(r.apId)!;
        const before = last.get(parent);
        const now = { time: Date.parse(r.published), id: r.id };
        if (before) expect(before.time < now.time || (before.time === now.time && before.id < now.id)).toBe(true);
        last.set(parent, now);
      }
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const page: Thread = await thread(root, { limit: 7, ...(cursor ? { cursor } : {}) });
        expect(page.totalReplies).toBe(parentOf.size);
        paged.push(...page.replies.map((r) => r.apId));
        cursor = page.nextCursor;
      } while (cursor);
      expect(paged).toEqual(whole.replies.map((r) => r.apId));
    }
  });

  it('replies are read 30 levels deep', async () => {
    const t = await thread(post('deep'), { limit: 100 });
    expect(t.totalReplies).toBe(30);
    expect(t.replies.at(-1)).toMatchObject({ apId: post('deep30'), depth: 30 });
  });
});

describe('a parent that cannot be found', () => {
  it('is offered as a link to open only when it is an http(s) URL (a remote server chooses inReplyTo)', async () => {
    await dispatch(handlers, 'connectivity.setWorkOffline', { workOffline: true }, () => {});
    try {
      nextId = 9000;
      insertInbox(post('orphan'), post('gone'), '2025-03-01T00:00:00Z');
      expect((await thread(post('orphan'))).missingParent).toBe(post('gone'));
      const odd = ['search-ms:query=invoice&crumb=location:\\\\evil.example\\share', 'javascript:alert(1)', 'file:///etc/passwd', 'ms-msdt:/id PCWDiagnostic'];
      for (const [i, inReplyTo] of odd.entries()) {
        insertInbox(post(`odd${i}`), inReplyTo, '2025-03-01T00:00:00Z');
        expect((await thread(post(`odd${i}`))).missingParent, inReplyTo).toBeNull();
      }
    } finally {
      await dispatch(handlers, 'connectivity.setWorkOffline', { workOffline: false }, () => {});
    }
  });
});
