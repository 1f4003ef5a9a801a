// Audit (IPC): the people Tern knows, whom remote actors add (each actor that follows, mentions,
// likes or boosts is stored, with the name it chose), and the author's followers.
//  - search.query ranks every person whose name or handle holds the words (search/service.ts
//    people: ORDER BY bm25(...) LIMIT, FTS5 computing and sorting the rank of every match) for
//    both kind 'people' and kind 'all' (five people beside the posts). Actors named "User n", a
//    search for "user": 20,000: 35 ms; 50,000: 94 ms; 60,000: 102 ms (linear in the matches).
//  - export.followersCsv read every follower (and its actor's handle) at once and built the CSV
//    in one turn (data/export.ts exportFollowersCsv): 60,000 followers: 93-99 ms; 80,000: 169 ms.
//    Now read 5,000 at a time, the thread let go between.
// Each handler is called through dispatch (what both transports call) on a real core; the main
// thread's longest hold is measured around the call, best of three (a shared, loaded machine).
import { readFileSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScaleOptions } from '../../bench/scale-fixture';
import type { Core } from '../../electron/core/core';
import { dispatch, type Handlers } from '../../electron/core/ipc/handlers';
import { planOf as planFor, SMALL, scaledCore, type ScaledCore } from './audit-fixture';
import { STALL_LIMIT_MS } from './rig';

const PEOPLE = 80_000;
const SIZES: ScaleOptions = { ...SMALL, actors: PEOPLE, followers: PEOPLE, inboxRows: PEOPLE + 10_000 };

let t: ScaledCore;
let core: Core;
let handlers: Handlers;
beforeAll(async () => {
  t = await scaledCore(SIZES, { searchIndex: true });
  ({ core, handlers } = t);
}, 300_000);
afterAll(() => t?.close());
const bestStallOf: ScaledCore['bestStallOf'] = (channel, input, reset) => t.bestStallOf(channel, input, reset);

describe(`${PEOPLE.toLocaleString('en')} actors named "User n", all following the author`, () => {
  it.each([
    ['search.query', { text: 'user', kind: 'people' }],
    ['search.query', { text: 'user' }],
    ['search.query', { text: 'user 12345', kind: 'people' }],
  ])('%s %j: the main thread free', async (channel, input) => {
    const stallMs = await bestStallOf(channel, input);
    expect(stallMs, 'main-thread stall').toBeLessThan(STALL_LIMIT_MS);
  });

  it('the people search ranks a window of its newest matches, not every match (no sort of all of them)', () => {
    // The statements search/field-search.ts prepares when the core opens (before any recorder):
    // the window, newest first (read up to FIELD_WINDOW matches, then left), and the matches
    // below it. Before, ORDER BY bm25(...) LIMIT: a TEMP B-TREE of every match.
    const marked = [0, 1, 2].map((column) => `highlight(search_person, ${column}, char(2), char(3))`).join(', ');
    const statements = [
      { source: `SELECT rowid, ${marked} FROM search_person WHERE search_person MATCH ? ORDER BY rowid DESC`, args: ['"user" *'] },
      { source: 'SELECT rowid FROM search_person WHERE search_person MATCH ? AND rowid < ? ORDER BY rowid DESC LIMIT ? OFFSET ?', args: ['"user" *', 5_000n, 21, 0] },
    ];
    for (const statement of statements) {
      const plan = planFor(core.sqlite as InstanceType<typeof Database>, statement);
      expect(plan.filter((line) => line.includes('TEMP B-TREE'))).toEqual([]);
    }
  });

  it('export.followersCsv: the main thread free, and every follower in the file once, oldest first', async () => {
    const stallMs = await bestStallOf('export.followersCsv', {});
    expect(stallMs, 'main-thread stall').toBeLessThan(STALL_LIMIT_MS);
    const saved = await dispatch(handlers, 'export.followersCsv', {});
    if (!saved.ok) throw new Error(saved.error.message);
    const lines = readFileSync((saved.value as { path: string }).path, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(PEOPLE + 1);
    expect(new Set(lines).size).toBe(PEOPLE + 1);
    const oldest = core.sqlite.prepare('SELECT a.handle FROM follower f JOIN actor a ON a.id = f.actor_id ORDER BY f.created_at, f.id LIMIT 1').pluck().get() as string;
    expect(lines[1]).toBe(oldest.replace(/^@/, ''));
  });

  it.each([
    ['people.list', { limit: 200 }],
    ['people.page', { list: 'followers', limit: 200 }],
    ['app.status', {}],
    ['lookup.resolve', { query: 'https://remote5.example/users/u5' }],
  ])('%s %j: the main thread free', async (channel, input) => {
    const stallMs = await bestStallOf(channel, input);
    expect(stallMs, 'main-thread stall').toBeLessThan(STALL_LIMIT_MS);
  });
});
