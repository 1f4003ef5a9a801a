// The People view as the rows make it: followers and followed people newest first, a page at a
// time by cursor (ties on the time broken by id), the counts, our Follows still waiting (the
// newest one of each person not answered by a Reject, not undone or deleted, not followed yet)
// and the follow requests waiting for the author (each person's newest Follow, when we have not
// answered it and they do not follow already). Rows are written straight into a real core's
// database, as any writer (the processor, an import, the sqlite3 shell) may have left them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setSkipLog } from '../../../../db/readable-rows';
import { openCore, type Core } from '../../core';
import { createHandlers, dispatch, type Handlers } from '../../ipc/handlers';
import type { PeopleView, PersonView, PageOf } from '../../ipc/author-contract';
import { countPendingFollowRequests, listPendingFollowRequests, pendingFollowRequestFrom, pendingFollowRequestsPage, type FollowRequestPage } from '../follow-requests';
import { listPeople, listPeopleKnown, relationOf } from './people';

let dir: string;
let core: Core;
let handlers: Handlers;
let nextInbox = 1;
let nextOutbox = 1;

const ME = 'https://tern.example/users/me';
const person = (n: number) => `https://peer${n % 3}.example/users/p${n}`;
const at = (minutes: number) => new Date(Date.UTC(2025, 0, 1) + minutes * 60_000).toISOString();

function insertActor(n: number) {
  core.sqlite
    .prepare(`INSERT INTO actor (id, created_at, updated_at, ap_id, ap_actor, ap_type, handle) VALUES (?, ?, ?, ?, ?, 'Person', ?)`)
    .run(n, at(0), at(0), person(n), JSON.stringify({ id: person(n), type: 'Person', name: `P ${n}`, preferredUsername: `p${n}` }), `@p${n}@peer${n % 3}.example`);
}

/** A received activity of actor `n` (a Follow of us, or a Reject of our Follow `relatesTo`). */
function insertInbox(n: number, type: string, minutes: number, extra: { relatesTo?: number; undoneBy?: number; deleted?: boolean } = {}): number {
  const id = nextInbox++;
  const apId = `${person(n)}/activities/${id}`;
  core.sqlite
    .prepare(
      `INSERT INTO inbox (id, created_at, updated_at, actor_id, server, is_hidden_from_stream, ap_actor_id, ap_type, ap_id,
         ap_published_at, ap_object, visibility, is_bookmarked, is_deleted, is_transient, replies_count,
         relates_to_outbox_object_id, undone_by_inbox_object_id)
       VALUES (?, ?, ?, ?, 'peer.example', 1, ?, ?, ?, ?, ?, 'PUBLIC', 0, ?, 0, 0, ?, ?)`,
    )
    .run(id, at(minutes), at(minutes), n, person(n), type, apId, at(minutes), JSON.stringify({ id: apId, type, actor: person(n), object: ME }), extra.deleted ? 1 : 0, extra.relatesTo ?? null, extra.undoneBy ?? null);
  return id;
}

/** An activity of ours: a Follow of actor `n`, or an Accept/Reject of their Follow `answers`, or an Undo. */
function insertOutbox(type: string, minutes: number, extra: { actor?: number; answers?: number; undoneBy?: number; deleted?: boolean } = {}): number {
  const id = nextOutbox++;
  const apId = `https://tern.example/o/${id}`;
  core.sqlite
    .prepare(
      `INSERT INTO outbox (id, created_at, updated_at, is_hidden_from_homepage, public_id, ap_type, ap_id, ap_object, ap_published_at,
         visibility, likes_count, announces_count, replies_count, is_pinned, is_deleted, relates_to_actor_id, relates_to_inbox_object_id,
         undone_by_outbox_object_id)
       VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, 'PUBLIC', 0, 0, 0, 0, ?, ?, ?, ?)`,
    )
    .run(id, at(minutes), at(minutes), `p${id}`, type, apId, JSON.stringify({ id: apId, type, actor: ME }), at(minutes), extra.deleted ? 1 : 0, extra.actor ?? null, extra.answers ?? null, extra.undoneBy ?? null);
  return id;
}

const undo = (minutes: number) => insertOutbox('Undo', minutes);

async function call<T>(channel: string, input: Record<string, unknown> = {}): Promise<T> {
  const result = await dispatch(handlers, channel, input, (error) => {
    throw error;
  });
  if (!result.ok) throw new Error(result.error.message);
  return result.value as T;
}

const names = (people: PersonView[]) => people.map((p) => p.actor.name);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tern-people-'));
  core = await openCore({ dataDir: dir, mode: 'headless' });
  core.settings.update({ baseUrl: 'https://tern.example', username: 'me', displayName: 'Me' });
  handlers = createHandlers(core);
  for (let n = 1; n <= 60; n++) insertActor(n);

  // Followers 1–25, each from their Follow (accepted); 11 and 12 at the same time (the larger
  // id first), 25 the newest.
  for (let n = 1; n <= 25; n++) {
    const minutes = n === 12 ? 11 : n;
    const follow = insertInbox(n, 'Follow', minutes);
    insertOutbox('Accept', minutes, { answers: follow });
    core.sqlite
      .prepare('INSERT INTO follower (id, created_at, updated_at, actor_id, inbox_object_id, ap_actor_id) VALUES (?, ?, ?, ?, ?, ?)')
      .run(n, at(minutes), at(minutes), n, follow, person(n));
  }
  // A follower who sent a second Follow later, unanswered: not a request (they follow already).
  insertInbox(3, 'Follow', 500);

  // Followed: 26–32, by our accepted Follows.
  for (let n = 26; n <= 32; n++) {
    const follow = insertOutbox('Follow', 100 + n, { actor: n });
    core.sqlite
      .prepare('INSERT INTO following (id, created_at, updated_at, actor_id, outbox_object_id, ap_actor_id) VALUES (?, ?, ?, ?, ?, ?)')
      .run(n, at(100 + n), at(100 + n), n, follow, person(n));
  }

  // Our Follows waiting: 40 (one Follow), 41 (two: the newer one shown), 42 (the newer one
  // refused: the older one waits still), 43 (refused), 44 (undone), 45 (deleted), 46 (two,
  // both refused); 26 asked again though followed already.
  insertOutbox('Follow', 200, { actor: 40 });
  insertOutbox('Follow', 201, { actor: 41 });
  insertOutbox('Follow', 205, { actor: 41 });
  insertOutbox('Follow', 202, { actor: 42 });
  insertInbox(42, 'Reject', 207, { relatesTo: insertOutbox('Follow', 206, { actor: 42 }) });
  insertInbox(43, 'Reject', 209, { relatesTo: insertOutbox('Follow', 208, { actor: 43 }) });
  insertOutbox('Follow', 210, { actor: 44, undoneBy: undo(211) });
  insertOutbox('Follow', 212, { actor: 45, deleted: true });
  insertInbox(46, 'Reject', 214, { relatesTo: insertOutbox('Follow', 213, { actor: 46 }) });
  insertInbox(46, 'Reject', 216, { relatesTo: insertOutbox('Follow', 215, { actor: 46 }) });
  insertOutbox('Follow', 217, { actor: 26 });

  // Follow requests: 50 (one Follow), 51 (an older answered Follow, a newer one not: asks
  // again), 52 (a newer Follow answered: the older one is no request), 53 (withdrawn: Undo),
  // 54 (deleted), 55 and 56 at the same time (the larger id first), 57 (the oldest request).
  insertInbox(57, 'Follow', 290);
  insertInbox(50, 'Follow', 300);
  insertOutbox('Reject', 302, { answers: insertInbox(51, 'Follow', 301) });
  insertInbox(51, 'Follow', 303);
  insertInbox(52, 'Follow', 304);
  insertOutbox('Accept', 306, { answers: insertInbox(52, 'Follow', 305) });
  const withdrawn = insertInbox(53, 'Follow', 307);
  core.sqlite.prepare('UPDATE inbox SET undone_by_inbox_object_id = ? WHERE id = ?').run(insertInbox(53, 'Undo', 308), withdrawn);
  insertInbox(54, 'Follow', 309, { deleted: true });
  insertInbox(55, 'Follow', 310);
  insertInbox(56, 'Follow', 310);
}, 60_000);

afterAll(() => {
  core?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the People view', () => {
  it('followers and followed people newest first, ties on the time by id, with their counts', async () => {
    const view = await call<PeopleView>('people.list', { limit: 5 });
    expect(view.counts).toEqual({ followers: 25, following: 7 });
    expect(names(view.followers)).toEqual(['P 25', 'P 24', 'P 23', 'P 22', 'P 21']);
    expect(view.followers[0]!.since).toBe(at(25));
    expect(names(view.following)).toEqual(['P 32', 'P 31', 'P 30', 'P 29', 'P 28']);
    expect(view.nextCursor.followers).not.toBeNull();
    expect(view.nextCursor.following).not.toBeNull();
  });

  it('the pages of each list follow one another without a gap or a repeat, to the end', async () => {
    const view = await call<PeopleView>('people.list', { limit: 4 });
    for (const list of ['followers', 'following'] as const) {
      const seen = names(view[list]);
      let cursor = view.nextCursor[list];
      while (cursor) {
        const page = await call<PageOf<PersonView>>('people.page', { list, cursor, limit: 4 });
        seen.push(...names(page.items));
        cursor = page.nextCursor;
      }
      const all = await call<PeopleView>('people.list', { limit: 200 });
      expect(seen).toEqual(names(all[list]));
      expect(all.nextCursor[list]).toBeNull();
    }
    const followers = names((await call<PeopleView>('people.list', { limit: 200 })).followers);
    expect(followers).toHaveLength(25);
    // 12 came at 11's time with a larger id: shown first.
    expect(followers.slice(13, 16)).toEqual(['P 12', 'P 11', 'P 10']);
  });

  it('our Follows waiting: each person once, by their newest Follow not refused, undone or deleted; none for people followed', async () => {
    // In the order our Follows were written (42's older Follow was written after 41's second).
    const view = await call<PeopleView>('people.list');
    expect(view.pendingFollows.map((p) => [p.actor.name, p.since])).toEqual([
      ['P 42', at(202)],
      ['P 41', at(205)],
      ['P 40', at(200)],
    ]);
  });

  it('follow requests: each person’s newest Follow not answered, newest first; none from followers or withdrawn', async () => {
    const view = { requests: listPendingFollowRequests(core.db) };
    const requests = view.requests.map((r) => [r.actor.name, r.requestedAt]);
    expect(requests).toEqual([
      ['P 56', at(310)],
      ['P 55', at(310)],
      ['P 51', at(303)],
      ['P 50', at(300)],
      ['P 57', at(290)],
    ]);
    expect(view.requests[0]!.followApId).toBe(`${person(56)}/activities/${view.requests[0]!.inboxObjectId}`);
  });

  it('the window’s list: newest first as the Follows arrived, a page at a time, with the count; the People view counts them', async () => {
    const all = [...listPendingFollowRequests(core.db)].sort((a, b) => b.inboxObjectId - a.inboxObjectId);
    expect(all).toHaveLength(5);
    expect((await call<PeopleView>('people.list')).requestCount).toBe(5);
    expect(await call('follow-requests.list')).toEqual({ items: all, nextCursor: null, count: 5 });
    const walked: number[] = [];
    let cursor: string | null = null;
    do {
      const page: FollowRequestPage = await call('follow-requests.list', { limit: 2, ...(cursor ? { cursor } : {}) });
      expect(page.count).toBe(5);
      expect(page.items.length).toBeLessThanOrEqual(2);
      walked.push(...page.items.map((r) => r.inboxObjectId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(walked).toEqual(all.map((r) => r.inboxObjectId));
    await expect(call('follow-requests.list', { cursor: 'abc' })).rejects.toThrow(/cursor/);
  });
});

describe('rows other tools wrote', () => {
  const followersOf = async () => names((await call<PeopleView>('people.list', { limit: 200 })).followers);
  const restore = (n: number, minutes: number) => {
    core.sqlite.pragma('ignore_check_constraints = ON');
    core.sqlite.prepare('UPDATE follower SET created_at = ? WHERE id = ?').run(at(minutes), n);
    core.sqlite.prepare('UPDATE actor SET ap_actor = ? WHERE id = ?').run(JSON.stringify({ id: person(n), type: 'Person', name: `P ${n}`, preferredUsername: `p${n}` }), n);
    core.sqlite.pragma('ignore_check_constraints = OFF');
  };

  it('a follower dated with an offset (+01:00) is listed at its time, not its local one', async () => {
    try {
      // 01:10+01:00 is 00:10 UTC: between followers 10 and 11, not before 24 (00:24).
      core.sqlite.prepare("UPDATE follower SET created_at = '2025-01-01T01:10:30+01:00' WHERE id = 25").run();
      const followers = await followersOf();
      expect(followers.slice(0, 2)).toEqual(['P 24', 'P 23']);
      expect(followers.slice(12, 16)).toEqual(['P 12', 'P 11', 'P 25', 'P 10']);
    } finally {
      restore(25, 25);
    }
  });

  it('one that cannot be read (past the CHECKs: a date Date cannot read, an actor of JSON null) is left out and reported; the others are listed and paged', async () => {
    const skipped: string[] = [];
    const previous = setSkipLog((m) => skipped.push(m));
    try {
      core.sqlite.pragma('ignore_check_constraints = ON');
      core.sqlite.exec("UPDATE follower SET created_at = '2025-01-01T00:xx:00.000Z' WHERE id = 20");
      core.sqlite.exec("UPDATE actor SET ap_actor = 'null' WHERE id = 21");
      core.sqlite.pragma('ignore_check_constraints = OFF');
      const followers = await followersOf();
      expect(followers).toHaveLength(23);
      expect(followers).not.toContain('P 20');
      expect(followers).not.toContain('P 21');
      expect(skipped.filter((m) => m.startsWith('skipped followers row'))).toHaveLength(2);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: PageOf<PersonView> = await call<PageOf<PersonView>>('people.page', { list: 'followers', cursor, limit: 4 });
        seen.push(...names(page.items));
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toEqual(followers);
    } finally {
      setSkipLog(previous);
      restore(20, 20);
      restore(21, 21);
    }
  });
});

// The Mastodon client API reads the requests a page at a time, counts them and looks one up
// (follow-requests.ts), never the whole list: remote actors decide how long it is.
describe('follow requests a page at a time, counted, one by one', () => {
  const byActor = () => [...listPendingFollowRequests(core.db)].sort((a, b) => b.actor.id - a.actor.id);
  const ids = (requests: { actor: { id: number } }[]) => requests.map((r) => r.actor.id);

  it('the same requests as the list, by account id, highest first; pages follow one another, from either end', () => {
    const all = byActor();
    expect(ids(all)).toEqual([57, 56, 55, 51, 50]);
    expect(pendingFollowRequestsPage(core.db, { limit: 40 })).toEqual(all);
    const seen: number[] = [];
    let page = pendingFollowRequestsPage(core.db, { limit: 2 });
    while (page.length > 0) {
      seen.push(...ids(page));
      page = pendingFollowRequestsPage(core.db, { below: page.at(-1)!.actor.id, limit: 2 });
    }
    expect(seen).toEqual(ids(all));
    expect(ids(pendingFollowRequestsPage(core.db, { above: 50, closestToAbove: true, limit: 2 }))).toEqual([55, 51]);
    expect(ids(pendingFollowRequestsPage(core.db, { above: 50, limit: 2 }))).toEqual([57, 56]);
    expect(ids(pendingFollowRequestsPage(core.db, { below: 56, above: 50, limit: 40 }))).toEqual([55, 51]);
    expect(pendingFollowRequestsPage(core.db, { limit: 0 })).toEqual([]);
  });

  it('counted as the list counts them; looked up alone, none from a follower, a withdrawn or an answered Follow', () => {
    expect(countPendingFollowRequests(core.db)).toBe(listPendingFollowRequests(core.db).length);
    expect(countPendingFollowRequests(core.db)).toBe(5);
    expect(pendingFollowRequestFrom(core.db, 51)).toEqual(byActor().find((r) => r.actor.id === 51));
    for (const n of [3, 52, 53, 54, 60, 0]) expect(pendingFollowRequestFrom(core.db, n)).toBeNull();
  });

  it('two Follows of one time: the larger id is the newest, as in the list', () => {
    // 58: the later-written one answered (no request); 59: the earlier-written one answered (the other asks).
    insertInbox(58, 'Follow', 320);
    insertOutbox('Reject', 321, { answers: insertInbox(58, 'Follow', 320) });
    insertOutbox('Reject', 321, { answers: insertInbox(59, 'Follow', 320) });
    const asking = insertInbox(59, 'Follow', 320);
    expect(ids(byActor())).toEqual([59, 57, 56, 55, 51, 50]);
    expect(pendingFollowRequestsPage(core.db, { limit: 40 })).toEqual(byActor());
    expect(countPendingFollowRequests(core.db)).toBe(6);
    expect(pendingFollowRequestFrom(core.db, 58)).toBeNull();
    expect(pendingFollowRequestFrom(core.db, 59)?.inboxObjectId).toBe(asking);
  });

  it('the view without the requests (the Mastodon API’s) is the People view less them; a relationship looks each one up alone', () => {
    const { requestCount, ...rest } = listPeople(core.db, 50);
    expect(requestCount).toBe(listPendingFollowRequests(core.db).length);
    expect(listPeopleKnown(core.db)).toEqual(rest);
    expect('requestCount' in listPeopleKnown(core.db)).toBe(false);
    expect(relationOf(core.db, 51)).toEqual({ following: false, followedBy: false, requestedBy: true });
    expect(relationOf(core.db, 52).requestedBy).toBe(false);
    expect(relationOf(core.db, 0)).toEqual({ following: false, followedBy: false, requestedBy: false });
  });
});
