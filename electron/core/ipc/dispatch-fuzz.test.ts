// Odd inputs on every channel through dispatch (what both transports call), over a real core:
// none gets past the schema to fail inside a handler (an 'internal' error), and no refusal
// carries a stack trace or a file path. The core works offline, so no input reaches the network.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openCore, type Core } from '../core';
import { CHANNELS } from './contract';
import { createHandlers, dispatch } from './handlers';

let dir: string;
let core: Core;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tern-fuzz-'));
  core = await openCore({ dataDir: join(dir, 'data'), mode: 'headless' });
  const handlers = createHandlers(core);
  await handlers['settings.update']({ baseUrl: 'https://me.example', username: 'ana' } as never);
  await handlers['connectivity.setWorkOffline']({ workOffline: true } as never);
});
afterAll(() => {
  core.close();
  rmSync(dir, { recursive: true, force: true });
});

const deep = (n: number): unknown => (n === 0 ? {} : { a: deep(n - 1) });
const ODD: unknown[] = [
  null, undefined, 0, 'x', [], { __proto__: { x: 1 } }, JSON.parse('{"__proto__":{"limit":1}}'),
  { limit: Infinity }, { limit: NaN }, { limit: -1 }, { limit: 1e9 }, { offset: -5 }, { cursor: "' OR 1=1 --" }, { cursor: 'x'.repeat(300) },
  { cursor: '-1' }, { cursor: '9'.repeat(19) }, { cursor: 'r9999999999999999999' }, { cursor: 'd-1' },
  { apId: 'file:///etc/passwd' }, { apId: 'javascript:alert(1)' }, { apId: 'https://x.example/' + 'a'.repeat(2000) },
  { apId: 'https://x.example/1', cursor: '999999' }, { actorApId: 'gopher://x' }, { target: '@a@localhost' }, { query: 'file:///etc/passwd' },
  { ids: [1, 2] }, { ids: [2 ** 53] }, { inboxObjectId: 2 ** 53 }, { id: 2 ** 53 }, { id: 'AAAAAAAAAAAAAAAA', approve: true },
  { uploadId: '00000000-0000-4000-8000-000000000000', offset: 2 ** 53, data: 'AAAA' },
  { contentType: 'image/svg+xml', size: 10 }, { contentType: 'text/html', size: 10 },
  { text: '"' }, { text: 'NEAR(' }, { text: '*' }, { text: '^' }, { text: 'a OR' }, { text: '(' }, { text: '-' }, { text: 'x', cursor: 'r99999999999999999' },
  { text: 'x', kind: 'posts', cursor: 'd9999999999999999999' },
  { backup: '../../../../etc/passwd' }, { backup: '/etc/passwd' }, { folder: '/etc' },
  { csv: 'Account address,Show boosts\n@a@b.example,true\n' + ',,,,\n'.repeat(10) },
  { content: 'x', inReplyTo: 'javascript:alert(1)' }, { content: 'x', mentions: ['@@@'] },
  { listener: { host: '0.0.0.0' } }, { osNotifications: { __proto__: true } }, { alsoKnownAs: ['@x@127.0.0.1'] },
  { choices: ['a'], apId: 'https://x.example/q' }, { postApId: 'https://x' + '.example'.repeat(10000) },
  deep(200),
];

it('no odd input fails inside a handler, and no refusal carries a stack trace or a file path', async () => {
  const internal: string[] = [];
  const leaks: string[] = [];
  const handlers = createHandlers(core);
  for (const channel of CHANNELS) {
    for (const input of ODD) {
      let captured: unknown = null;
      const result = await dispatch(handlers, channel, input, (e) => (captured = e));
      const shown = `${channel} ${JSON.stringify(input)?.slice(0, 100)}`;
      // Answers may name files on purpose (a backup's path); refusals never should.
      if (!result.ok && /\bat .*\.(ts|js):\d+|node:internal|\/work\/|\/tmp\//.test(JSON.stringify(result))) leaks.push(`${shown} -> ${JSON.stringify(result).slice(0, 300)}`);
      if (!result.ok && result.error.code === 'internal') internal.push(`${shown} -> ${String((captured as Error)?.stack ?? captured).split('\n').slice(0, 3).join(' | ')}`);
    }
  }
  expect(internal).toEqual([]);
  expect(leaks).toEqual([]);
}, 120_000);
