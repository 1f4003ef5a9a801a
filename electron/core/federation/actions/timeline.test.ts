// The profile and the stream, read from rows other tools wrote: a datetime with an offset
// (stored by the sqlite3 shell) is paged in time order, one post at a time as well as in one
// page; a row that cannot be read (written past the CHECKs) is left out and reported, and the
// rest of the page is shown.
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { setSkipLog } from '../../../../db/readable-rows';
import { versionOf } from '../../../../migrations/test-tools';
import { openRig, START, type Rig } from '../process/test-rig';
import { saveActor } from '../actors';
import { persistInboxObject } from '../process/store';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const HOUR = 3_600_000;
const shellVersion = versionOf('shell');
if (shellVersion === null) console.log('skipped: the sqlite3 shell is not installed, so no other tool can write the rows');

/** Four posts an hour apart, a to d (12:00 to 15:00 UTC). */
async function fourPosts(): Promise<Rig> {
  const r = await openRig();
  for (const id of ['a', 'b', 'c', 'd']) {
    r.ourPost(id);
    r.advance(HOUR);
  }
  return r;
}

type Page = { items: { apId: string }[]; nextCursor: string | null };
/** Every item, page after page. */
function pageThrough(read: (cursor: string | null) => Page): string[] {
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 20; i++) {
    const page = read(cursor);
    seen.push(...page.items.map((p) => p.apId.split('/').at(-1)!));
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  return seen;
}

describe('paging rows another tool wrote', () => {
  it.skipIf(shellVersion === null)('a post the sqlite3 shell dated with an offset (+02:00) takes its place in time, one post a page as in one page', async () => {
    rig = await fourPosts();
    const author = rig.core.services.author;
    // a is moved to 16:30+02:00, i.e. 14:30 UTC: between c (14:00) and d (15:00). Compared as
    // written, '2025-01-10T16:30:00+02:00' sorted first, and paging one at a time skipped posts.
    const r = spawnSync('sqlite3', [rig.core.sqlite.name, "UPDATE outbox SET ap_published_at = '2025-01-10T16:30:00+02:00' WHERE public_id = 'a'"], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    const wanted = ['d', 'a', 'c', 'b'];
    for (const limit of [1, 2, 100]) {
      expect(pageThrough((cursor) => author.profile({ cursor, limit })), `profile, ${limit} a page`).toEqual(wanted);
      expect(pageThrough((cursor) => author.stream({ cursor, limit })), `stream, ${limit} a page`).toEqual(wanted);
    }
    expect(author.profile({ limit: 1 }).items[0]!.published).toBe('2025-01-10T15:00:00.000Z');
    expect(author.profile({ limit: 4 }).items[1]!.published).toBe('2025-01-10T14:30:00.000Z');
  });
});

describe('a row that cannot be read', () => {
  it('is left out of the profile and the stream, and reported; the others are shown and paged', async () => {
    rig = await fourPosts();
    const author = rig.core.services.author;
    const skipped: string[] = [];
    const previous = setSkipLog((m) => skipped.push(m));
    try {
      // Past the CHECKs, as only a tool that turns them off can: b's object is JSON null, c's
      // date is of the stored shape but no date at all.
      rig.core.sqlite.pragma('ignore_check_constraints = ON');
      rig.core.sqlite.exec("UPDATE outbox SET ap_object = 'null' WHERE public_id = 'b'");
      rig.core.sqlite.exec("UPDATE outbox SET ap_published_at = '2025-01-xxT14:00:00.000Z' WHERE public_id = 'c'");
      rig.core.sqlite.pragma('ignore_check_constraints = OFF');

      expect(author.profile({ limit: 10 }).items.map((p) => p.apId.split('/').at(-1))).toEqual(['d', 'a']);
      expect(author.stream({ limit: 10 }).items.map((p) => p.apId.split('/').at(-1))).toEqual(['d', 'a']);
      expect(pageThrough((cursor) => author.profile({ cursor, limit: 2 }))).toEqual(['d', 'a']);
      expect(skipped.some((m) => /^skipped outbox row \d+, which cannot be read: /.test(m))).toBe(true);
    } finally {
      setSkipLog(previous);
    }
  });
});

describe('the stream’s pages (prepared queries, bound at each page)', () => {
  it('page after page, at every size, in key order: newest first, the author’s own before received ones at the same instant, then the later row', async () => {
    rig = await openRig();
    const { db } = rig.core;
    const peer = saveActor(db, { id: 'https://peer.example/users/u', type: 'Person', preferredUsername: 'u', inbox: 'https://peer.example/users/u/inbox' }, '@u@peer.example', rig.now());
    const at = (minutes: number) => new Date(START.getTime() + minutes * 60_000);
    const received = (id: string, minutes: number) => {
      const apId = `${peer.apId}/statuses/${id}`;
      const object = { id: apId, type: 'Note', attributedTo: peer.apId, content: `<p>${id}</p>`, published: at(minutes).toISOString(), to: ['https://www.w3.org/ns/activitystreams#Public'] };
      persistInboxObject(db, { object, apId, actor: peer, now: rig!.now(), hidden: false });
    };
    const own = (id: string, minutes: number) => {
      rig!.setNow(at(minutes));
      rig!.ourPost(id);
    };
    // Ties at every instant but one: across the two tables, and within each.
    received('x1', 30);
    own('o1', 30);
    received('x2', 20);
    received('x3', 20);
    own('o2', 10);
    own('o3', 10);
    own('o4', 0);
    received('x4', 0);
    received('x5', 40);
    rig.setNow(at(60));
    const author = rig.core.services.author;
    const wanted = ['x5', 'o1', 'x1', 'x3', 'x2', 'o3', 'o2', 'o4', 'x4'];
    for (const limit of [1, 2, 3, 4, 100]) {
      expect(pageThrough((cursor) => author.stream({ cursor, limit })), `${limit} a page`).toEqual(wanted);
    }
    // A post written between two pages shows on the first page asked again, not in the next.
    const first = author.stream({ limit: 3 });
    received('x6', 50);
    expect(pageThrough((cursor) => author.stream({ cursor: cursor ?? first.nextCursor, limit: 3 }))).toEqual(wanted.slice(3));
    expect(author.stream({ limit: 2 }).items.map((p) => p.apId.split('/').at(-1))).toEqual(['x6', 'x5']);
  });
});
