// The window learns of changes as they happen: the core's hints (core/changes.ts) reach a page
// following GET /ipc/events on the headless transport, served over real HTTP, from a core that
// runs as the apps run it (the inbox processor and the delivery loop on their worker threads)
// with an independent Fedify peer talking to its listener.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startPeer, type Peer } from '../../../test/peer/peer';
import { openCore, type Core } from '../core';
import { createSettingsService } from '../settings-service';
import { authorizeUrl, getManual, pkce, register, REDIRECT } from '../indieauth/test-flow';
import { CHANGES_HTTP_PATH, type ChangeKind } from './changes-contract';
import { createHandlers } from './handlers';
import { createUiApp, MAX_CHANGE_STREAMS } from './http-transport';

const TOKEN = 'change-stream-token-0123456789';
let dir: string;
let core: Core;
let peer: Peer;
let server: ServerType;
let ui: string;
let listener: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tern-changes-'));
  const staticDir = join(dir, 'static');
  mkdirSync(staticDir, { recursive: true });
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Tern</title>');
  core = await openCore({
    dataDir: join(dir, 'data'),
    mode: 'headless',
    allowPrivateAddresses: true,
    inboxWorker: true,
    deliveryWorker: true,
    listen: { host: '127.0.0.1', port: 0 },
  });
  listener = core.listener.status().url ?? '';
  await createSettingsService(core).update({ baseUrl: listener, username: 'ana' });
  core.loops.inbox.start();
  core.loops.delivery.start();
  peer = await startPeer({ name: 'bob' });
  let hosts: string[] = [];
  const app = createUiApp({ handlers: createHandlers(core), token: TOKEN, staticDir, allowedHosts: () => hosts, changes: core.changes });
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => resolve(info.port));
  });
  hosts = [`127.0.0.1:${port}`];
  ui = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

/** Streams a test opened: closed after it, passed or failed, so none holds a place in the next. */
const opened: Following[] = [];
afterEach(() => {
  for (const page of opened.splice(0)) page.close();
});

afterAll(async () => {
  if ('closeAllConnections' in server) server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await peer.close();
  await core.listener.stop();
  await core.loops.inbox.stop();
  await core.loops.delivery.stop({ graceMs: 0 });
  core.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Following {
  status: number;
  hints: ChangeKind[][];
  /** Resolves once a hint naming `kind` has come (rejects after `ms`). */
  heard(kind: ChangeKind, ms?: number): Promise<void>;
  /** Resolves once the stream's first line has come. */
  opened: Promise<void>;
  close(): void;
}

/** Follows the stream as the page does (renderer/changes.ts): reads each event's data line. */
async function follow(headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }): Promise<Following> {
  const controller = new AbortController();
  const response = await fetch(`${ui}${CHANGES_HTTP_PATH}`, { headers, signal: controller.signal });
  const hints: ChangeKind[][] = [];
  const waiters = new Set<() => void>();
  let markOpened = () => {};
  const opened = new Promise<void>((resolve) => (markOpened = resolve));
  if (response.ok && response.body) {
    void (async () => {
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      let pending = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          markOpened();
          pending += value;
          let end: number;
          while ((end = pending.indexOf('\n\n')) >= 0) {
            const data = pending.slice(0, end).split('\n').find((line) => line.startsWith('data: '));
            pending = pending.slice(end + 2);
            if (data) hints.push(JSON.parse(data.slice(6)) as ChangeKind[]);
            waiters.forEach((w) => w());
          }
        }
      } catch {
        // aborted by close()
      }
    })();
  } else await response.body?.cancel();
  return {
    status: response.status,
    hints,
    opened,
    heard: (kind, ms = 20_000) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!hints.some((h) => h.includes(kind))) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no "${kind}" hint in ${ms} ms; heard ${JSON.stringify(hints)}`));
        }, ms);
        waiters.add(check);
        check();
      }),
    close: () => controller.abort(),
  };
}

describe('the change stream of the headless transport', { timeout: 60_000 }, () => {
  it("tells a following page of a peer's Follow as it is processed, and of the Accept's delivery", async () => {
    const page = await follow();
    opened.push(page);
    expect(page.status).toBe(200);
    await page.opened;
    await peer.follow(listener);
    await page.heard('notifications');
    // The hint came because the row is done: asked now, the notification is there.
    const res = await fetch(`${ui}/ipc/notifications.unreadCount`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(((await res.json()) as { value: { count: number } }).value.count).toBe(1);
    expect(page.hints.find((h) => h.includes('notifications'))).toEqual(['timeline', 'notifications']);
    // The Accept goes out from the delivery worker: its rows in flight are told too.
    // (Told even when the delivery took less than the worker's 100 ms between reports.)
    await peer.waitFor((a) => a.type === 'Accept', 30_000);
    await page.heard('deliveries');
  });

  it('tells of a sign-in waiting for the author and of a settings change', async () => {
    const page = await follow();
    opened.push(page);
    await page.opened;
    const { client_id } = await register(listener);
    const response = await getManual(authorizeUrl(listener, { response_type: 'code', client_id, redirect_uri: REDIRECT, state: 's', code_challenge: pkce().challenge, code_challenge_method: 'S256' }));
    expect(response.status).toBe(303);
    await page.heard('sign-ins');
    await createSettingsService(core).update({ displayName: 'Ana Lima' });
    await page.heard('status');
  });

  it('refuses a page without the token (401) and a browser page of another origin (403)', async () => {
    const anonymous = await follow({});
    expect(anonymous.status).toBe(401);
    const foreign = await follow({ authorization: `Bearer ${TOKEN}`, 'sec-fetch-site': 'cross-site' });
    expect(foreign.status).toBe(403);
  });

  it(`keeps at most ${MAX_CHANGE_STREAMS} streams open, and a page that went away gives its place back`, async () => {
    // The places the earlier tests' pages held are given back as their sockets close: waited for.
    let pages: Following[] = [];
    for (let i = 0; i < 50; i++) {
      pages = await Promise.all(Array.from({ length: MAX_CHANGE_STREAMS }, () => follow()));
      opened.push(...pages);
      if (pages.every((p) => p.status === 200)) break;
      for (const p of pages) p.close();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(pages.map((p) => p.status)).toEqual(Array<number>(MAX_CHANGE_STREAMS).fill(200));
    await Promise.all(pages.map((p) => p.opened));
    const more = await follow();
    expect(more.status).toBe(429);
    pages[0]!.close();
    // The server notices the closed socket (the request's abort) and frees the place.
    let again: Following | null = null;
    for (let i = 0; i < 50 && again?.status !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      again = await follow();
      opened.push(again);
    }
    expect(again?.status).toBe(200);
    // Still told: the places left are alive.
    await createSettingsService(core).update({ displayName: 'Ana L.' });
    await again!.heard('status');
    await pages[1]!.heard('status');
  });

  it('answers HEAD with 405 and keeps no stream for it (Hono would run the GET and drop its body unread)', async () => {
    const heads = await Promise.all(
      Array.from({ length: MAX_CHANGE_STREAMS + 1 }, () => fetch(`${ui}${CHANGES_HTTP_PATH}`, { method: 'HEAD', headers: { authorization: `Bearer ${TOKEN}` } })),
    );
    expect(heads.map((r) => r.status)).toEqual(Array<number>(MAX_CHANGE_STREAMS + 1).fill(405));
    const page = await follow();
    opened.push(page);
    expect(page.status).toBe(200);
  });
});
