// Settings through the IPC contract (dispatch → handlers → settings service), on a real core:
// what settings.get shows, how settings.update refuses bad values and silent identity changes,
// announces profile edits to followers, and starts and stops the listener.
import { createHash, createPublicKey } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { outbox, outgoingActivity } from '../../db/schema';
import { openCore, type Core } from './core';
import { createHandlers, dispatch, type Handlers } from './ipc/handlers';
import type { IpcResult } from './ipc/contract';
import { exportPublicKeyPem } from './net/signatures';
import { addFollower } from './listener/test-support';
import type { SettingsUpdateResult, SettingsView } from './settings-service';

let dir: string;
let core: Core;
let handlers: Handlers;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tern-settings-'));
  core = await openCore({ dataDir: dir, mode: 'headless' });
  handlers = createHandlers(core);
});

afterEach(async () => {
  await core.listener.stop();
  core.close();
  rmSync(dir, { recursive: true, force: true });
});

const call = (channel: string, input: unknown) => dispatch(handlers, channel, input, () => {});
async function ok<T>(result: Promise<IpcResult<unknown>>): Promise<T> {
  const r = await result;
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value as T;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('settings.get', () => {
  it('shows the settings, the key fingerprint, and no actor before the first run', async () => {
    const view = await ok<SettingsView>(call('settings.get', {}));
    expect(view).toMatchObject({ baseUrl: null, username: null, actorId: null, handle: null, listener: { host: '127.0.0.1' } });
    expect(view.listenerStatus).toEqual({ running: false, url: null, error: null });
    const der = createPublicKey(await exportPublicKeyPem(core.fed.keys.rsa.publicKey)).export({ type: 'spki', format: 'der' });
    const hex = createHash('sha256').update(der).digest('hex');
    expect(view.publicKeyFingerprint).toMatch(/^([0-9a-f]{2}:){31}[0-9a-f]{2}$/);
    expect(view.publicKeyFingerprint.replaceAll(':', '')).toBe(hex);
  });

  it('shows the actor id and handle once base URL and user name are set', async () => {
    await ok(call('settings.update', { baseUrl: 'https://tern.example/', username: 'alice' }));
    const view = await ok<SettingsView>(call('settings.get', {}));
    expect(view).toMatchObject({ baseUrl: 'https://tern.example', actorId: 'https://tern.example', handle: '@alice@tern.example' });
    expect(view.actorPublishedAt).not.toBeNull();
  });
});

describe('settings.update', () => {
  it('takes U+0000 out of the profile’s text (Postgres-based peers refuse it)', async () => {
    await ok(call('settings.update', { baseUrl: 'https://tern.example/', username: 'alice', displayName: 'Al\u0000ice', summary: 'I write\u0000 here' }));
    const view = await ok<SettingsView>(call('settings.get', {}));
    expect([view.displayName, view.summary]).toEqual(['Alice', 'I write here']);
    expect(JSON.stringify(core.settings.get())).not.toContain('\\u0000');
  });

  it.each([
    [{ baseUrl: 'ftp://tern.example' }, 'baseUrl must be an http(s) URL.'],
    [{ baseUrl: 'not a url' }, 'baseUrl must be a URL such as https://example.com.'],
    [{ username: 'two words' }, 'username must be 1–30 letters, digits or _.'],
    [{ listener: { port: 70000 } }, 'listener.port must be between 1 and 65535.'],
    [{ listener: { host: 'a host' } }, 'listener.host must be a host name or an IP address.'],
    [{ displayName: 'x'.repeat(101) }, 'displayName must be at most 100 characters.'],
    [{ blockedServers: ['x'] }, 'Unexpected field blockedServers.'],
  ])('refuses %j with bad_input: “%s”', async (input, message) => {
    const before = core.settings.get();
    const result = await call('settings.update', input);
    expect(result).toMatchObject({ ok: false, error: { code: 'bad_input', message } });
    expect(core.settings.get()).toEqual(before);
  });

  it('refuses to change the base URL once people follow it, unless confirmed', async () => {
    await ok(call('settings.update', { baseUrl: 'https://old.example', username: 'alice' }));
    // Without followers the URL is nobody's business yet.
    await ok(call('settings.update', { baseUrl: 'https://older.example' }));
    addFollower(core, 'https://remote.example/users/bob');
    const refused = await call('settings.update', { baseUrl: 'https://new.example' });
    expect(refused).toMatchObject({ ok: false, error: { code: 'conflict' } });
    if (!refused.ok) expect(refused.error.message).toMatch(/One person follows you as https:\/\/older\.example.*confirm/);
    expect(core.settings.get().baseUrl).toBe('https://older.example');
    const moved = await ok<SettingsView>(call('settings.update', { baseUrl: 'https://new.example', confirmIdentityChange: true }));
    expect(moved.actorId).toBe('https://new.example');
  });

  it('announces a profile edit to followers: one Update of the actor per shared inbox', async () => {
    await ok(call('settings.update', { baseUrl: 'https://tern.example', username: 'alice' }));
    addFollower(core, 'https://big.example/users/a', 'https://big.example/users/a/inbox', 'https://big.example/inbox');
    addFollower(core, 'https://big.example/users/b', 'https://big.example/users/b/inbox', 'https://big.example/inbox');
    addFollower(core, 'https://small.example/ann', 'https://small.example/ann/inbox');
    const result = await ok<SettingsUpdateResult>(
      call('settings.update', { displayName: 'Alice A.', summary: 'Hello **fediverse**', manuallyApprovesFollowers: true }),
    );
    expect(result.profileUpdate).toMatchObject({ recipients: 2 });
    const row = core.db.select().from(outbox).where(eq(outbox.id, result.profileUpdate!.outboxObjectId)).get()!;
    expect(row).toMatchObject({ apType: 'Update', visibility: 'PUBLIC', activityObjectApId: 'https://tern.example' });
    expect(row.apObject).toMatchObject({
      type: 'Update',
      actor: 'https://tern.example',
      to: ['https://www.w3.org/ns/activitystreams#Public'],
      cc: ['https://tern.example/followers'],
      object: {
        id: 'https://tern.example',
        type: 'Person',
        name: 'Alice A.',
        summary: '<p>Hello <strong>fediverse</strong></p>',
        manuallyApprovesFollowers: true,
        updated: result.profileUpdatedAt,
      },
    });
    const deliveries = core.db.select().from(outgoingActivity).where(eq(outgoingActivity.outboxObjectId, row.id)).all();
    expect(deliveries.map((d) => d.recipient).sort()).toEqual(['https://big.example/inbox', 'https://small.example/ann/inbox']);
    expect(deliveries.every((d) => d.tries === 0 && !d.isSent && !d.isErrored)).toBe(true);
  });

  it('stores no Update when nobody follows, or when nothing in the profile changed', async () => {
    await ok(call('settings.update', { baseUrl: 'https://tern.example', username: 'alice', displayName: 'A' }));
    expect((await ok<SettingsUpdateResult>(call('settings.update', { displayName: 'B' }))).profileUpdate).toBeNull();
    addFollower(core, 'https://remote.example/users/bob');
    expect((await ok<SettingsUpdateResult>(call('settings.update', { displayName: 'B', workOffline: true }))).profileUpdate).toBeNull();
    expect(core.db.select().from(outbox).all()).toHaveLength(0);
  });

  it('starts, moves and stops the listener', async () => {
    await ok(call('settings.update', { baseUrl: 'https://tern.example', username: 'alice' }));
    const port = await freePort();
    const on = await ok<SettingsView>(call('settings.update', { listener: { enabled: true, host: '127.0.0.1', port } }));
    expect(on.listenerStatus).toEqual({ running: true, url: `http://127.0.0.1:${port}`, error: null });
    expect((await fetch(`http://127.0.0.1:${port}/.well-known/nodeinfo`)).status).toBe(200);
    const off = await ok<SettingsView>(call('settings.update', { listener: { enabled: false } }));
    expect(off.listenerStatus.running).toBe(false);
    await expect(fetch(`http://127.0.0.1:${port}/.well-known/nodeinfo`)).rejects.toThrow();
  });

  it('reports a port in use in listenerStatus, keeping the settings', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const view = await ok<SettingsView>(call('settings.update', { listener: { enabled: true, port } }));
      expect(view.listener).toMatchObject({ enabled: true, port });
      expect(view.listenerStatus.running).toBe(false);
      expect(view.listenerStatus.error).toContain(`Port ${port} is already in use`);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });
});
