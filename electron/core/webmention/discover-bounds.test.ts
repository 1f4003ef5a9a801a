// Endpoint discovery on hostile and long target pages: the page is read on the page reader's
// worker within bounds, never on the calling thread (100,000 unclosed <div>s then unmatched
// </b>s held it 3.7 s at a time, 33.6 s in all), and a page longer than DISCOVERY_MAX_BYTES is
// searched, its Link header first, not refused (it was BodyTooLargeError before any header was read).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHttpClient, type HttpClient } from '../net/http-client';
import { startServer, type LoopbackServer } from '../net/test-server';
import { DISCOVERY_MAX_BYTES, NoWebmentionEndpointError, discoverEndpoint } from './discover';
import { stopSourceReader } from './source-parse';
import { longestStall } from '../../../test/longest-stall';

let server: LoopbackServer;
let client: HttpClient;
const deep = (prefix = '') => {
  const open = prefix + '<div>'.repeat(100_000);
  return open + '</b>'.repeat(Math.max(0, Math.floor((DISCOVERY_MAX_BYTES - open.length) / 4)));
};
const long = `${'<p>text</p>'.repeat(140_000)}`;
beforeAll(async () => {
  server = await startServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    if (req.url === '/deep') return res.end(deep());
    if (req.url === '/deep-after-link') return res.end(deep('<html><head><link rel="webmention" href="/endpoint"></head><body>'));
    if (req.url === '/big-header') {
      res.setHeader('link', `<${server.origin}/endpoint>; rel="webmention"`);
      return res.end(`<html><head></head><body>${long}</body></html>`);
    }
    if (req.url === '/big-head') return res.end(`<html><head><link rel="webmention" href="/endpoint"></head><body>${long}</body></html>`);
    if (req.url === '/latin1') {
      res.setHeader('content-type', 'text/html; charset=windows-1252');
      return res.end(Buffer.from('<html><head><link rel="webmention" href="/caf\u00e9"></head></html>', 'latin1'));
    }
    res.statusCode = 404;
    res.end();
  });
  client = createHttpClient({ userAgent: 'Tern-test', allowPrivateAddresses: true, timeoutMs: 60_000 });
});
afterAll(async () => {
  client.close();
  await server.close();
  await stopSourceReader();
});

it('a hostile 1 MiB page (100,000 unclosed <div>s, then unmatched </b>s): no endpoint, read within bounds, the thread never held 100 ms', async () => {
  await discoverEndpoint(client, `${server.origin}/big-head`); // the reader started
  const { result, stallMs, ms } = await longestStall(() => discoverEndpoint(client, `${server.origin}/deep`));
  expect(result).toBeInstanceOf(NoWebmentionEndpointError);
  expect(stallMs).toBeLessThan(100);
  expect(ms).toBeLessThan(3_000);
}, 60_000);

it('the endpoint named before the hostile part is found', async () => {
  const { result, stallMs } = await longestStall(() => discoverEndpoint(client, `${server.origin}/deep-after-link`));
  expect(result).toBe(`${server.origin}/endpoint`);
  expect(stallMs).toBeLessThan(100);
}, 60_000);

it('a 1.5 MB page: the endpoint its Link header names, or its <head>, is found', async () => {
  await expect(discoverEndpoint(client, `${server.origin}/big-header`)).resolves.toBe(`${server.origin}/endpoint`);
  await expect(discoverEndpoint(client, `${server.origin}/big-head`)).resolves.toBe(`${server.origin}/endpoint`);
}, 60_000);

it('a windows-1252 page is read in its charset', async () => {
  await expect(discoverEndpoint(client, `${server.origin}/latin1`)).resolves.toBe(`${server.origin}/caf%C3%A9`);
}, 60_000);
