// Search after moving in from microblog.pub (the import copies rows with INSERT … SELECT; the
// triggers queue each one), and search.query through the IPC contract (dispatch: the same path
// Electron's ipcMain and the headless HTTP transport take), its zod input and its errors.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openCore } from '../core';
import { createCoreHost, type CoreHost } from '../core-host';
import { importMicroblogPub } from '../data/microblogpub-import';
import { writeMicroblogPubFolder } from '../../../test/microblogpub/fixture';
import { createHandlers, dispatch } from '../ipc/handlers';
import type { SearchResults } from '../ipc/search-contract';

const dirs: string[] = [];
const hosts: CoreHost[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'tern-search-'));
  dirs.push(d);
  return d;
};
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});
async function hostOn(dataDir: string): Promise<CoreHost> {
  const host = await createCoreHost({ open: () => openCore({ dataDir, mode: 'headless' }), run: () => async () => {} });
  hosts.push(host);
  return host;
}

describe('after moving in from microblog.pub', () => {
  it('the imported posts, received posts and people are found; the spec’s tables came over, the index was built here', async () => {
    const fixture = writeMicroblogPubFolder(join(tempDir(), 'data'));
    const host = await hostOn(tempDir());
    await importMicroblogPub(host.current(), host.reopen, fixture.folder, true);
    const core = host.current();
    // Queued by the triggers as the rows were copied, none indexed yet.
    expect(core.sqlite.prepare('SELECT count(*) FROM search_pending').pluck().get()).toBe(3 + 3 + 2 + 1);
    const search = (text: string, kind: 'all' | 'people' = 'all') => core.services.search.query({ text, sort: 'relevance', kind, limit: 20 });

    const own = search('hello');
    expect(own.posts.map((h) => [h.post.origin, h.post.apId])).toEqual([['outbox', 'https://mbp.example/o/aa01']]);
    expect(own.indexing).toBeNull();
    expect(search('bo').posts.map((h) => h.post.apId)).toEqual(['https://other.example/notes/1']);
    expect(search('from:@bo@other.example').posts).toHaveLength(1);
    expect(search('from:me').posts.map((h) => h.post.apId).sort()).toEqual(['https://mbp.example/o/aa01', 'https://mbp.example/o/aa02']);
    expect(search('ada', 'people').people.map((p) => p.actor.handle)).toEqual(['@ada@remote.example']);
    // A Follow and a Like are not posts: not in the index.
    expect(core.sqlite.prepare('SELECT count(*) FROM search_post').pluck().get()).toBe(3);
  });
});

describe('search.query through the IPC contract', () => {
  it('answers typed results; bad syntax and bad input are bad_input with a sentence, and change nothing', async () => {
    const host = await hostOn(tempDir());
    const core = host.current();
    core.settings.update({ baseUrl: 'https://tern.example', username: 'me' });
    const handlers = createHandlers(core);
    await core.services.author.createPost({ content: 'Notes on *terns* and gulls', visibility: 'FOLLOWERS_ONLY' });

    const ok = await dispatch(handlers, 'search.query', { text: 'terns visibility:followers', sort: 'date' });
    expect(ok.ok).toBe(true);
    const results = (ok as { ok: true; value: SearchResults }).value;
    expect(results.posts).toHaveLength(1);
    expect(results.posts[0]!.post).toMatchObject({ origin: 'outbox', visibility: 'FOLLOWERS_ONLY', author: { handle: '@me@tern.example' } });
    expect(results.posts[0]!.snippet).toBe('Notes on \u0002terns\u0003 and gulls');
    expect(results).toMatchObject({ people: [], webmentions: [], nextCursor: null, indexing: null });

    const syntax = await dispatch(handlers, 'search.query', { text: 'terns has:video' });
    expect(syntax).toEqual({ ok: false, error: { code: 'bad_input', message: 'has: takes media or poll, not “video”.' } });
    const empty = await dispatch(handlers, 'search.query', { text: '   ' });
    expect(empty).toMatchObject({ ok: false, error: { code: 'bad_input', message: 'text must say what to look for.' } });
    const cursor = await dispatch(handlers, 'search.query', { text: 'terns', cursor: "d1; DROP TABLE outbox" });
    expect(cursor).toMatchObject({ ok: false, error: { code: 'bad_input', message: 'cursor is not a cursor this channel gave.' } });
    const extra = await dispatch(handlers, 'search.query', { text: 'terns', match: 'x' });
    expect(extra).toMatchObject({ ok: false, error: { code: 'bad_input', message: 'Unexpected field match.' } });
    const kind = await dispatch(handlers, 'search.query', { text: 'terns', kind: 'everything' });
    expect(kind).toMatchObject({ ok: false, error: { code: 'bad_input' } });
    expect(core.sqlite.prepare('SELECT count(*) FROM outbox').pluck().get()).toBe(1);
  });

  it('pages by cursor, newest first and by relevance, without repeats', async () => {
    const host = await hostOn(tempDir());
    const core = host.current();
    core.settings.update({ baseUrl: 'https://tern.example', username: 'me' });
    for (let i = 0; i < 7; i++) await core.services.author.createPost({ content: `tern sighting ${i}${i % 3 === 0 ? ' tern tern' : ''}`, visibility: 'PUBLIC' });
    const handlers = createHandlers(core);
    for (const sort of ['date', 'relevance'] as const) {
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 5; page++) {
        const r = await dispatch(handlers, 'search.query', { text: 'tern', sort, kind: 'posts', limit: 3, ...(cursor ? { cursor } : {}) });
        const value = (r as { ok: true; value: SearchResults }).value;
        seen.push(...value.posts.map((h) => h.post.contentHtml));
        cursor = value.nextCursor;
        if (!cursor) break;
      }
      expect(seen, sort).toHaveLength(7);
      expect(new Set(seen).size).toBe(7);
      if (sort === 'date') expect(seen[0]).toContain('sighting 6');
      // bm25: the posts saying "tern" three times rank above the others.
      else expect(seen.slice(0, 3).every((c) => c.includes('tern tern'))).toBe(true);
    }
  });
});
