// Hostile corpus, what a fuzzer found on the listener: every route sent odd headers, framings,
// percent-encodings, methods and bodies; each case here is one input that misbehaved (a 500, no
// answer, a 2xx for garbage) before its fix, checked with the corpus's rules.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openListeningCore, type ListeningCore } from '../../electron/core/listener/test-support';
import { issueToken } from '../../electron/core/indieauth/test-flow';
import { reportStalls, runCase } from './rig';
import { rawHttp } from './peers';

let t: ListeningCore;
let port: number;
let token: string;

beforeAll(async () => {
  t = await openListeningCore();
  port = Number(new URL(t.url).port);
  token = await issueToken(t.url, t.core, ['read', 'write']);
});
afterAll(async () => {
  await t?.close();
  reportStalls('fuzz-findings');
});

const h = { sqlite: () => t.core.sqlite };
/** A request line as sent, for what fetch would normalise (a lone %, bytes that are not UTF-8). */
const raw = (line: string, headers: string[] = [], body: string[] = []) => () =>
  rawHttp(port, [line, `Host: 127.0.0.1:${port}`, 'Connection: close', `Authorization: Bearer ${token}`, ...headers].join('\r\n'), body);

describe('a hashtag timeline named with odd percent-encoding', () => {
  // Hono decodes the tag once; the route decoded it again, and threw on what was left.
  const tags: [string, string][] = [
    ['a lone %', '%'],
    ['an encoded % (%25)', '%25'],
    ['%ff (not UTF-8)', 'x%ff'],
    ['an overlong / (%c0%af)', '%c0%af'],
    ['a lone surrogate (%ed%a0%80)', '%ed%a0%80'],
    ['%zz', '%zz'],
  ];
  it.each(tags)('%s is a tag nobody used: an empty page, not a 500', (name, tag) =>
    runCase(h, { name: `tag ${name}`, send: raw(`GET /api/v1/timelines/tag/${tag} HTTP/1.1`), status: 200, reason: /^\[\]$/ }),
  );
});

describe('a body whose framing breaks after the request line and headers were read', () => {
  // node:http reports these once a request is in flight; the socket was dropped without a word.
  const chunked = ['Content-Type: application/json', 'Transfer-Encoding: chunked'];
  const framings: [string, string, string[], string[]][] = [
    ['a chunk size that is not hex, to /token', 'POST /token HTTP/1.1', chunked, ['zz\r\n{}\r\n0\r\n\r\n']],
    ['a chunk size that is not hex, to the inbox', 'POST /inbox HTTP/1.1', chunked, ['zz\r\n{}\r\n0\r\n\r\n']],
    ['a chunk size that is not hex, to the Mastodon API', 'POST /api/v1/statuses HTTP/1.1', chunked, ['zz\r\n{}\r\n0\r\n\r\n']],
    ['Transfer-Encoding: gzip (not chunked), to /register', 'POST /register HTTP/1.1', ['Content-Type: application/json', 'Transfer-Encoding: gzip'], ['{}']],
    ['Transfer-Encoding: gzip on a GET', 'GET / HTTP/1.1', ['Transfer-Encoding: gzip'], ['{}']],
  ];
  it.each(framings)('%s: 400 saying why', (name, line, headers, body) =>
    runCase(h, { name, send: raw(line, headers, body), status: 400, reason: /could not be read \(HPE_INVALID_(CHUNK_SIZE|TRANSFER_ENCODING)\)/ }),
  );
});

describe('a post edited over and over through the Mastodon API', () => {
  // Every edit kept the whole previous version; every read of the post parses them all, the
  // public outbox's pages too: the row grew without bound and each read held the main thread.
  it('is refused with 422 once its earlier versions would pass 2 MiB, the post kept as it was', async () => {
    const api = (method: string, path: string, body?: unknown) =>
      fetch(`${t.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = (n: number) => `Version ${n}:${' long words'.repeat(9_000)}`;
    const { id } = (await (await api('POST', '/api/v1/statuses', { status: text(0) })).json()) as { id: string };
    let accepted = 0;
    for (let n = 1; n <= 40; n++) {
      const res = await api('PUT', `/api/v1/statuses/${id}`, { status: text(n) });
      await res.text();
      if (res.status !== 200) break;
      accepted = n;
    }
    expect(accepted, 'edits of a 99 KB post accepted').toBeLessThan(40);
    await runCase(h, { name: 'one edit more', send: () => api('PUT', `/api/v1/statuses/${id}`, { status: 'short now' }), status: 422, reason: /edited too often/ });
    const source = (await (await api('GET', `/api/v1/statuses/${id}/source`)).json()) as { text: string };
    expect(source.text).toBe(text(accepted));
  });
});

describe('Mastodon API parameters with odd brackets', () => {
  const form = (path: string, body: string) => () =>
    fetch(`${t.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' }, body });
  // A key of `[` and no `]`: each was scanned to the key's end, the square of its length (6 s of
  // main thread for 60,000; this one, under the 256 KiB cap of a status, would take minutes).
  it('a key of 200,000 unclosed brackets is read as the plain key it is', () =>
    runCase(h, { name: 'unclosed brackets', send: form('/api/v1/statuses', `a${'['.repeat(200_000)}=1`), status: 422, reason: /Text can't be blank/ }));
  it('a key nested 40 levels deep is refused with 400, saying why', () =>
    runCase(h, { name: 'nested 40 deep', send: form('/api/v1/markers', `home${'[x]'.repeat(40)}=1`), status: 400, reason: /nested deeper than 32 levels/ }));
  it('a query key nested 40 levels deep is refused with 400, saying why', () =>
    runCase(h, { name: 'query nested 40 deep', send: () => fetch(`${t.url}/api/v1/timelines/home?max_id${'[x]'.repeat(40)}=1`, { headers: { authorization: `Bearer ${token}` } }), status: 400, reason: /nested deeper than 32 levels/ }));
});
