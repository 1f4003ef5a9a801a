// Export (the archive, following/followers CSV) and importing follows, against a real core
// (SQLite in a temp folder, listener on 127.0.0.1) and a Fedify peer that verifies our Follow.
import { readFileSync, statSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { actor, follower, following, inbox, outbox } from '../../../db/schema';
import { startPeer, type Peer } from '../../../test/peer/peer';
import { BadInputError } from '../errors';
import { createHandlers, dispatch } from '../ipc/handlers';
import { openAuthorRig, type AuthorRig } from '../federation/actions/test-rig';
import { csvField, exportArchive, exportFollowersCsv, exportFollowingCsv, exportsDir, FOLLOWING_CSV_HEADER } from './export';
import { importFollowing, parseFollowingCsv } from './import';
import { readTar } from './tar';

let rig: AuthorRig;
let bob: Peer;

beforeAll(async () => {
  [rig, bob] = await Promise.all([openAuthorRig(), startPeer({ name: 'bob' })]);
});
afterAll(async () => {
  await bob?.close();
  await rig?.close();
});

function readArchive(path: string): Record<string, Record<string, unknown>> {
  const entries = readTar(gunzipSync(readFileSync(path)), { maxEntryBytes: 1e8 });
  return Object.fromEntries(entries.map((e) => [e.name, JSON.parse(e.data.toString('utf8')) as Record<string, unknown>]));
}

describe('parseFollowingCsv', () => {
  it('reads Mastodon’s header format: first column, trimmed, deduplicated', () => {
    const csv = `${FOLLOWING_CSV_HEADER}\nalice@example.com,true,false,\n  @Bob@Example.org ,true,false,en\nALICE@example.com,true,false,\n"https://x.test/users/c",false,false,\n`;
    expect(parseFollowingCsv(csv)).toEqual({
      entries: [
        { line: 2, target: 'alice@example.com' },
        { line: 3, target: 'Bob@example.org' },
        { line: 5, target: 'https://x.test/users/c' },
      ],
      refused: [],
    });
  });

  it('reads a bare list and refuses, with reasons, what is neither a handle nor an http(s) URL', () => {
    const parsed = parseFollowingCsv('https://a.test/u/1\r\n\r\nnot a handle\nftp://a.test/u\n@x@y.test\njavascript:alert(1)\n');
    expect(parsed.entries.map((e) => e.target)).toEqual(['https://a.test/u/1', 'x@y.test']);
    expect(parsed.refused.map((r) => [r.line, r.text])).toEqual([
      [3, 'not a handle'],
      [4, 'ftp://a.test/u'],
      [6, 'javascript:alert(1)'],
    ]);
    expect(parsed.refused[0]!.reason).toMatch(/user@host/);
  });

  it('refuses lists over 5,000 lines or 1 MiB', () => {
    expect(() => parseFollowingCsv(Array.from({ length: 5001 }, (_, i) => `u${i}@a.test`).join('\n'))).toThrow(BadInputError);
    expect(() => parseFollowingCsv(`a@b.test\n${'x'.repeat(1024 * 1024)}`)).toThrow(/1 MiB/);
    expect(parseFollowingCsv(Array.from({ length: 5000 }, (_, i) => `u${i}@a.test`).join('\n')).entries).toHaveLength(5000);
  });
});

describe('import and export', () => {
  it('imports a CSV with the peer’s actor URL: the peer receives our Follow; a second import skips it', async () => {
    const result = await importFollowing(rig.core, `${FOLLOWING_CSV_HEADER}\n${bob.actorId},true,false,\nnope\n`);
    expect(result).toMatchObject({ followed: 1, skipped: 0, failed: [{ line: 3, text: 'nope' }] });
    const follow = await bob.waitFor((x) => x.type === 'Follow', 10_000);
    expect(follow.actorId?.replace(/\/$/, '')).toBe(rig.url);
    await vi.waitFor(() => expect(rig.core.db.select().from(following).where(eq(following.apActorId, bob.actorId)).get()).toBeTruthy(), {
      timeout: 10_000,
    });
    const again = await importFollowing(rig.core, `${bob.actorId}\n`);
    expect(again).toEqual({ followed: 0, skipped: 1, failed: [] });
    expect(bob.received.filter((x) => x.type === 'Follow')).toHaveLength(1);
  });

  it('an account already followed is skipped, and a failure does not stop the rest', async () => {
    const handlers = createHandlers(rig.core);
    rig.net.set(false); // offline: unknown accounts cannot be looked up
    try {
      const result = await dispatch(handlers, 'import.following', { csv: `unknown@nowhere.test\n${bob.actorId}\n` });
      expect(result).toMatchObject({ ok: true, value: { followed: 0, skipped: 1, failed: [{ line: 1, text: 'unknown@nowhere.test' }] } });
    } finally {
      rig.net.set(true);
    }
    const tooBig = await dispatch(handlers, 'import.following', { csv: 'x'.repeat(1024 * 1024 + 1) });
    expect(tooBig).toMatchObject({ ok: false, error: { code: 'bad_input' } });
  });

  it('the archive holds actor.json, every live post of ours in Create, likes and bookmarks', async () => {
    const kept = await Promise.all(
      (['PUBLIC', 'UNLISTED', 'FOLLOWERS_ONLY'] as const).map((visibility) => rig.author.createPost({ content: `kept ${visibility}`, visibility })),
    );
    const gone = await rig.author.createPost({ content: 'deleted', visibility: 'PUBLIC' });
    await rig.author.deletePost(gone.apId);
    const transient = await rig.author.createPost({ content: 'transient', visibility: 'PUBLIC' });
    rig.core.db.update(outbox).set({ isTransient: true }).where(eq(outbox.id, transient.id)).run();

    const { noteId } = await bob.createNote({ content: '<p>Bob writes</p>' });
    await vi.waitFor(() => expect(rig.core.db.select().from(inbox).where(eq(inbox.apId, noteId)).get()).toBeTruthy(), { timeout: 10_000 });
    await rig.author.like(noteId);
    await rig.author.bookmark(noteId, true);

    const { path, bytes } = await exportArchive(rig.core);
    expect(path.startsWith(exportsDir(rig.core))).toBe(true);
    expect(statSync(path).size).toBe(bytes);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const docs = readArchive(path);
    expect(Object.keys(docs).sort()).toEqual(['actor.json', 'bookmarks.json', 'likes.json', 'outbox.json']);
    expect(docs['actor.json']).toMatchObject({ id: rig.url, type: 'Person' });
    const items = docs['outbox.json']!.orderedItems as Record<string, unknown>[];
    expect(docs['outbox.json']).toMatchObject({ type: 'OrderedCollection', totalItems: items.length });
    expect(items.every((i) => i.type === 'Create' && i.actor === rig.url)).toBe(true);
    const objectIds = items.map((i) => (i.object as { id: string }).id);
    for (const post of kept) expect(objectIds).toContain(post.apId);
    expect(objectIds).not.toContain(gone.apId);
    expect(objectIds).not.toContain(transient.apId);
    expect(items).toHaveLength(kept.length);
    expect(docs['likes.json']!.orderedItems).toEqual([noteId]);
    expect(docs['bookmarks.json']!.orderedItems).toEqual([noteId]);
  });

  it('CSV exports use Mastodon’s columns, user@host (or the actor id), and quote commas and quotes', async () => {
    const bobHandle = rig.core.db.select({ handle: actor.handle }).from(actor).where(eq(actor.apId, bob.actorId)).get()?.handle ?? null;
    const lines = (await exportFollowingCsv(rig.core)).trimEnd().split('\n');
    expect(lines[0]).toBe(FOLLOWING_CSV_HEADER);
    expect(lines[1]).toBe(`${bobHandle ? bobHandle.replace(/^@/, '') : bob.actorId},true,false,`);

    // A follower with no handle and an id that needs quoting.
    const odd = 'https://odd.test/users/a,"b"';
    const now = new Date();
    const a = rig.core.db.insert(actor).values({ apId: odd, apActor: { id: odd }, apType: 'Person', handle: null }).returning().get();
    const anyInbox = rig.core.db.select().from(inbox).get()!;
    rig.core.db.insert(follower).values({ actorId: a.id, inboxObjectId: anyInbox.id, apActorId: odd, createdAt: now }).run();
    expect(await exportFollowersCsv(rig.core)).toBe(`Account address\n"https://odd.test/users/a,""b"""\n`);
    expect(csvField('plain@host')).toBe('plain@host');

    const handlers = createHandlers(rig.core);
    for (const channel of ['export.followingCsv', 'export.followersCsv'] as const) {
      const saved = await dispatch(handlers, channel, {});
      expect(saved.ok).toBe(true);
      const file = (saved as { ok: true; value: { path: string } }).value.path;
      expect(file.startsWith(exportsDir(rig.core))).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    }
    expect(readFileSync((await exportArchive(rig.core)).path).length).toBeGreaterThan(0);
  });
});
