// The listener names the caller in its log lines: the socket's peer, or — only when the author
// said it is behind a proxy — the address the proxy appended last to X-Forwarded-For.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCore, type Core } from '../core';
import { forwardedFor } from './client-address';

describe('forwardedFor', () => {
  it('takes the last entry (what the proxy appended), not what the caller claimed before it', () => {
    expect(forwardedFor('10.0.0.1, 203.0.113.7')).toBe('203.0.113.7');
    expect(forwardedFor('[2001:db8::1]')).toBe('2001:db8::1');
    expect(forwardedFor('')).toBeNull();
    expect(forwardedFor(undefined)).toBeNull();
  });
});

describe('the listener’s log lines', () => {
  let core: Core;
  let dir: string;
  let url: string;
  const lines: string[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tern-xff-'));
    core = await openCore({ dataDir: dir, mode: 'headless', log: (l) => lines.push(l), listen: { host: '127.0.0.1', port: 0 } });
    url = core.listener.status().url!;
    core.settings.update({ baseUrl: 'https://tern.example', username: 'ana' });
  });
  afterAll(async () => {
    await core.listener.stop();
    core.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const post = () =>
    fetch(`${url}/inbox`, {
      method: 'POST',
      headers: { 'content-type': 'application/activity+json', 'x-forwarded-for': '10.9.9.9, 203.0.113.7', 'x-forwarded-host': 'evil.example' },
      body: JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', id: 'https://peer.example/f/1', type: 'Follow', actor: 'https://peer.example/u', object: 'https://tern.example' }),
    });

  it('name the socket’s peer when not behind a proxy, whatever X-Forwarded-For says', async () => {
    core.settings.update({ listener: { ...core.settings.get().listener, behindProxy: false } });
    expect((await post()).status).toBe(401);
    expect(lines.at(-1)).toBe('inbox: 401 unsigned (from 127.0.0.1)');
  });

  it('name the forwarded address behind a proxy', async () => {
    core.settings.update({ listener: { ...core.settings.get().listener, behindProxy: true } });
    expect((await post()).status).toBe(401);
    expect(lines.at(-1)).toBe('inbox: 401 unsigned (from 203.0.113.7)');
  });
});
