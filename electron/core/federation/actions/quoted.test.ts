// posts.quoted: the post another post quotes. A stored one is given at once; one not stored is
// fetched only when the quoting post is the author's own or from someone they follow; for a
// stranger's quote Tern asks first and contacts no one. Real core, real SQLite, a loopback
// server standing for the quoted post's server (what it saw is checked).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openCore, type Core } from '../../core';
import { startServer, type LoopbackServer } from '../../net/test-server';
import { storeRemotePost } from '../test-remote-post';

let dir: string;
let core: Core;
let server: LoopbackServer;
let docs: Record<string, Record<string, unknown>>;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tern-quoted-'));
  core = await openCore({ dataDir: dir, mode: 'headless', allowPrivateAddresses: true });
  core.settings.update({ baseUrl: 'http://127.0.0.1:9', username: 'alice' });
  docs = {};
  server = await startServer((req, res) => {
    const doc = docs[(req.url ?? '/').split('?')[0]!];
    if (!doc) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/activity+json' }).end(JSON.stringify(doc));
  });
});

afterEach(async () => {
  await server.close();
  core.close();
  rmSync(dir, { recursive: true, force: true });
});

const url = (path: string) => `${server.origin}${path}`;

/** A remote author (followed or not) and one post of theirs that quotes `quoted`. */
const quotingPost = (name: string, quoted: string, followed: boolean): string => storeRemotePost(core, name, { content: '<p>Look at this</p>', quote: quoted }, { followed }).apId;

function serveQuoted(path: string, text: string): string {
  docs['/users/heron'] = { '@context': 'https://www.w3.org/ns/activitystreams', id: url('/users/heron'), type: 'Person', preferredUsername: 'heron', name: 'Heron', inbox: url('/users/heron/inbox') };
  docs[path] = { '@context': 'https://www.w3.org/ns/activitystreams', id: url(path), type: 'Note', attributedTo: url('/users/heron'), content: `<p>${text}</p>`, published: '2026-11-01T10:00:00Z', to: ['https://www.w3.org/ns/activitystreams#Public'] };
  return url(path);
}

describe('posts.quoted', () => {
  it('a followed author’s quote of a post Tern does not have: fetched, sanitized, then stored', async () => {
    const quoted = serveQuoted('/notes/1', 'The original <script>alert(1)</script>words');
    const by = quotingPost('friend', quoted, true);
    const view = await core.services.author.quoted(quoted, by);
    expect(view.kind).toBe('post');
    if (view.kind !== 'post') return;
    expect(view.post.apId).toBe(quoted);
    expect(view.post.author.name).toBe('Heron');
    expect(view.post.contentHtml).toContain('The original');
    expect(view.post.contentHtml).not.toContain('script');
    // Stored: asked again, it is answered without the network.
    const seen = server.seen.length;
    expect((await core.services.author.quoted(quoted, by)).kind).toBe('post');
    expect(server.seen.length).toBe(seen);
  });

  it('a stranger’s quote: Tern asks first and contacts no server', async () => {
    const quoted = serveQuoted('/notes/2', 'Not fetched');
    const by = quotingPost('stranger', quoted, false);
    expect(await core.services.author.quoted(quoted, by)).toEqual({ kind: 'ask' });
    expect(server.seen).toEqual([]);
  });

  it('the author’s own quote of a post that is gone: "gone"', async () => {
    const own = await core.services.author.createPost({ content: 'Quoting', visibility: 'PUBLIC' });
    expect(await core.services.author.quoted(url('/notes/missing'), own.apId)).toEqual({ kind: 'gone' });
    expect(server.seen.map((r) => r.path)).toContain('/notes/missing');
  });

  it('a stored post is given whoever quotes it, with no request', async () => {
    const mine = await core.services.author.createPost({ content: 'My words', visibility: 'PUBLIC' });
    const by = quotingPost('stranger', mine.apId, false);
    const view = await core.services.author.quoted(mine.apId, by);
    expect(view.kind === 'post' && view.post.contentHtml).toContain('My words');
    expect(server.seen).toEqual([]);
  });
});
