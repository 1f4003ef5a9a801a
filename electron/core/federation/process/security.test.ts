// Regression tests for attacks found in a security review of the federation code: each attack
// is staged against real loopback servers and must now fail.
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type LoopbackServer } from '../../net/test-server';
import { findActorByHandle, lookup } from '../lookup';
import { resolveMentions } from '../actions/mentions';
import { openRig, type Rig } from './test-rig';

let rig: Rig | undefined;
let evil: LoopbackServer | undefined;
afterEach(async () => {
  await rig?.close();
  await evil?.close();
  rig = undefined;
  evil = undefined;
});

function actorDoc(origin: string, name: string) {
  return {
    '@context': ['https://www.w3.org/ns/activitystreams'],
    id: `${origin}/users/${name}`,
    type: 'Person',
    preferredUsername: name,
    inbox: `${origin}/users/${name}/inbox`,
    followers: `${origin}/users/${name}/followers`,
  };
}

/** An actor `name` served at `evil` (its document with `extra` members; `other` may serve other
 * paths), and the rig opened. */
async function evilActorAndRig(name: string, extra: Record<string, unknown> = {}, other?: (path: string, origin: string) => unknown): Promise<{ origin: string; rig: Rig }> {
  let origin = '';
  evil = await startServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    res.setHeader('content-type', 'application/activity+json');
    if (path === `/users/${name}`) return res.end(JSON.stringify({ ...actorDoc(origin, name), ...extra }));
    const doc = other?.(path, origin);
    if (doc !== undefined) return res.end(JSON.stringify(doc));
    res.statusCode = 404;
    res.end();
  });
  origin = evil.origin;
  rig = await openRig();
  return { origin, rig };
}

describe('handles are believed only when their own server points back to the actor', () => {
  it('an actor whose WebFinger claims @gargron@mastodon.social is cached under its own host, and the mention does not resolve to it', async () => {
    let origin = '';
    evil = await startServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      res.setHeader('content-type', 'application/activity+json');
      if (path === '/users/mallory') return res.end(JSON.stringify(actorDoc(origin, 'mallory')));
      if (path === '/.well-known/webfinger') {
        // Claims someone else's acct on someone else's server.
        return res.end(JSON.stringify({ subject: 'acct:gargron@mastodon.social', links: [{ rel: 'self', type: 'application/activity+json', href: `${origin}/users/mallory` }] }));
      }
      res.statusCode = 404;
      res.end();
    });
    origin = evil.origin;
    rig = await openRig();
    rig.ourPost('abc');
    // Any signed activity from mallory makes Tern fetch and cache the actor.
    const row = await rig.receive({ id: `${origin}/likes/1`, type: 'Like', actor: `${origin}/users/mallory`, object: 'https://tern.example/o/abc' });
    expect(row.isProcessed).toBe(true);
    expect(findActorByHandle(rig.core.db, '@gargron@mastodon.social')).toBeUndefined();
    expect(findActorByHandle(rig.core.db, `@mallory@${new URL(origin).host}`)?.apId).toBe(`${origin}/users/mallory`);
    // Offline, so the mention is not looked up over the network: it must simply stay unresolved.
    const deps = { db: rig.core.db, fed: rig.core.fed, clock: rig.core.clock, isOnline: () => false } as never;
    const resolved = await resolveMentions(deps, rig.local, { textHandles: ['@gargron@mastodon.social'], explicit: [] });
    expect(resolved.resolved).toEqual([]);
  });
});

describe('WebFinger goes through the safe client', () => {
  it('a WebFinger endpoint that never finishes its answer does not stall the inbox processor past the client timeout', async () => {
    let origin = '';
    evil = await startServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/users/slow') {
        res.setHeader('content-type', 'application/activity+json');
        return res.end(JSON.stringify(actorDoc(origin, 'slow')));
      }
      if (path === '/.well-known/webfinger') {
        res.writeHead(200, { 'content-type': 'application/jrd+json' });
        res.write('{'); // ...and never finishes
        return;
      }
      res.statusCode = 404;
      res.end();
    });
    origin = evil.origin;
    rig = await openRig();
    rig.queue({ id: `${origin}/likes/1`, type: 'Like', actor: `${origin}/users/slow`, object: 'https://tern.example/o/x' });
    const drained = rig.core.loops.inbox.drain().then(() => 'drained');
    const after = await Promise.race([drained, new Promise((r) => setTimeout(() => r('still stuck'), 14_000))]);
    // net/http-client's overall timeout is 10 s; the handle falls back to the actor's own host.
    expect(after).toBe('drained');
    expect(findActorByHandle(rig.core.db, `@slow@${new URL(origin).host}`)?.apId).toBe(`${origin}/users/slow`);
  }, 30_000);
});

describe('looked-up objects are believed only from their own server', () => {
  it('a Create on one server embedding a post under another server’s id is refetched from that id, and nothing forged is stored', async () => {
    let origin = '';
    const victim: LoopbackServer = await startServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/users/alice') {
        res.setHeader('content-type', 'application/activity+json');
        return res.end(JSON.stringify(actorDoc(victim.origin, 'alice')));
      }
      res.statusCode = 404;
      res.end();
    });
    evil = await startServer((req, res) => {
      res.setHeader('content-type', 'application/activity+json');
      // The outer Create lives on evil; the object inside claims the victim's id and author.
      res.end(JSON.stringify({
        id: `${origin}/create/1`, type: 'Create', actor: `${origin}/users/mallory`,
        object: { id: `${victim.origin}/users/alice/statuses/1`, type: 'Note', attributedTo: `${victim.origin}/users/alice`, content: '<p>I endorse evil.example</p>' },
      }));
    });
    origin = evil.origin;
    rig = await openRig();
    // The victim's server has no such status (404): the look-up fails and stores nothing.
    await expect(lookup({ db: rig.core.db, fed: rig.core.fed, clock: rig.core.clock, local: rig.local }, `${origin}/create/1`)).rejects.toThrow();
    expect(rig.inboxRow(`${victim.origin}/users/alice/statuses/1`)).toBeUndefined();
    await victim.close();
  });
});

describe('every stored remote row is sanitized', () => {
  it('a Like carrying HTML (a Misskey reaction) is stored without scripts or handlers', async () => {
    const { origin, rig } = await evilActorAndRig('mk');
    rig.ourPost('liked');
    const row = await rig.receive({
      id: `${origin}/likes/xss`,
      type: 'Like',
      actor: `${origin}/users/mk`,
      object: 'https://tern.example/o/liked',
      content: '<img src=x onerror="alert(1)"><script>alert(2)</script>❤',
      summary: '<a href="javascript:alert(3)">hi</a>',
    });
    expect(row.isProcessed).toBe(true);
    const stored = JSON.stringify(rig.inboxRow(`${origin}/likes/xss`)?.apObject);
    expect(stored).toContain('❤');
    expect(stored).not.toMatch(/onerror|<script|javascript:/i);
  });
});

describe('what is kept of remote documents is bounded (views parse each row they show, on the app’s thread)', () => {
  it('a reply of 300 KiB (12,000 addresses) is dropped with the reason; the same reply of a normal size is kept', async () => {
    const { origin, rig } = await evilActorAndRig('mallory');
    rig.ourPost('abc');
    const reply = (n: number, cc: string[]) => ({
      id: `${origin}/creates/${n}`,
      type: 'Create',
      actor: `${origin}/users/mallory`,
      to: ['https://www.w3.org/ns/activitystreams#Public'],
      object: { id: `${origin}/notes/${n}`, type: 'Note', attributedTo: `${origin}/users/mallory`, inReplyTo: 'https://tern.example/o/abc', content: '<p>hi</p>', to: ['https://www.w3.org/ns/activitystreams#Public'], cc },
    });
    const many = Array.from({ length: 12_000 }, (_, i) => `https://elsewhere.example/users/u${i}`);
    const big = await rig.receive(reply(1, many));
    expect(big).toMatchObject({ isProcessed: true });
    expect(big.error).toMatch(/too large to keep \(\d+ characters of JSON, at most 262144\)/);
    expect(rig.inboxRow(`${origin}/notes/1`)).toBeUndefined();
    expect(rig.inboxRow(`${origin}/creates/1`)).toBeUndefined();
    const small = await rig.receive(reply(2, many.slice(0, 20)));
    expect(small).toMatchObject({ isProcessed: true, error: null });
    expect(rig.inboxRow(`${origin}/notes/2`)).toBeDefined();
  });

  it('a look-up reads no document past 1 MiB: refused, saying why', async () => {
    const big = (path: string, origin: string) =>
      path === '/notes/big' ? { id: `${origin}/notes/big`, type: 'Note', attributedTo: `${origin}/users/mallory`, content: '<p>x</p>', zz: 'x'.repeat(1024 * 1024) } : undefined;
    const { origin, rig } = await evilActorAndRig('mallory', {}, big);
    const deps = { db: rig.core.db, fed: rig.core.fed, clock: rig.core.clock, local: rig.local };
    await expect(lookup(deps, `${origin}/notes/big`)).rejects.toThrow(/is larger than an ActivityPub document may be \(1048576 bytes\)/);
  });

  it('an actor whose document is past 256 KiB is not kept: its activities are dropped, saying why', async () => {
    const { origin, rig } = await evilActorAndRig('mallory', { zz: 'x'.repeat(300 * 1024) });
    rig.ourPost('abc');
    const row = await rig.receive({ id: `${origin}/likes/1`, type: 'Like', actor: `${origin}/users/mallory`, object: 'https://tern.example/o/abc' });
    expect(row.isProcessed).toBe(true);
    expect(row.error).toMatch(/users\/mallory is larger than Tern keeps \(\d+ characters of JSON, at most 262144\)/);
    expect(findActorByHandle(rig.core.db, `@mallory@${new URL(origin).host}`)).toBeUndefined();
    expect(rig.notificationsOf('LIKE')).toEqual([]);
  });
});
