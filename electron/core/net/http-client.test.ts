import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { embeddedIPv4, isBlockedAddress } from './address-guard';
import {
  BlockedAddressError,
  BodyTooLargeError,
  InvalidJsonError,
  RequestTimeoutError,
  TooManyRedirectsError,
  UnsupportedSchemeError,
} from './errors';
import { createHttpClient, TLS_SESSIONS_KEPT, type HttpClient, type HttpClientOptions } from './http-client';
import { startServer, type Handler, type LoopbackServer } from './test-server';

const UA = 'Tern-test/1.0 (+https://tern.example)';
const servers: LoopbackServer[] = [];
const clients: HttpClient[] = [];

async function server(handler: Handler, host?: string): Promise<LoopbackServer> {
  const s = await startServer(handler, host);
  servers.push(s);
  return s;
}

function client(options: Partial<HttpClientOptions> = {}): HttpClient {
  const c = createHttpClient({ userAgent: UA, ...options });
  clients.push(c);
  return c;
}

const ok: Handler = (_req, res) => res.end('hello');

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('address guard', () => {
  it.each([
    '127.0.0.1', '127.255.0.9', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1',
    '169.254.169.254', '100.64.0.1', '100.127.255.255', '0.0.0.0', '224.0.0.1', '239.1.2.3',
    '255.255.255.255', '::', '::1', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'ff02::1',
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:192.168.0.1', '::ffff:a9fe:a9fe',
    '64:ff9b::a00:1', '2002:c0a8:101::1', '[::1]', 'not-an-ip',
  ])('refuses %s', (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each([
    '93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '11.0.0.1', '2606:4700:4700::1111',
    '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1',
  ])('allows the public address %s', (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });

  it('reads the IPv4 address carried by mapped, NAT64 and 6to4 forms', () => {
    expect(embeddedIPv4('::ffff:7f00:1')).toBe('127.0.0.1');
    expect(embeddedIPv4('::ffff:10.0.0.1')).toBe('10.0.0.1');
    expect(embeddedIPv4('64:ff9b::c0a8:1')).toBe('192.168.0.1');
    expect(embeddedIPv4('2002:a00:1::')).toBe('10.0.0.1');
    expect(embeddedIPv4('2606:4700::1111')).toBeNull();
  });
});

describe('createHttpClient: SSRF guard', () => {
  it('refuses a literal loopback URL without allowPrivateAddresses, before connecting', async () => {
    const s = await server(ok);
    await expect(client().fetch(`${s.origin}/`)).rejects.toBeInstanceOf(BlockedAddressError);
    expect(s.seen).toHaveLength(0);
  });

  it('fetches the same URL when allowPrivateAddresses is set, sending the User-Agent', async () => {
    const s = await server(ok);
    const c = client({ allowPrivateAddresses: true });
    const asGlobalFetch: typeof globalThis.fetch = c.fetch; // usable wherever a fetch is expected
    const response = await asGlobalFetch(`${s.origin}/`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('hello');
    expect(s.seen[0]?.headers['user-agent']).toBe(UA);
  });

  it('refuses localhost by its name, before resolving it (a BlockedAddressError naming the host)', async () => {
    const s = await server(ok);
    const error: unknown = await client().fetch(`http://localhost:${s.port}/`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BlockedAddressError);
    expect((error as BlockedAddressError).address).toBe('localhost');
    expect(s.seen).toHaveLength(0);
  });

  it('guards https the same way (the name is refused before any TLS handshake)', async () => {
    const s = await server(ok);
    await expect(client().fetch(`https://localhost:${s.port}/`)).rejects.toBeInstanceOf(BlockedAddressError);
    await expect(client().fetch(`https://127.0.0.1:${s.port}/`)).rejects.toBeInstanceOf(BlockedAddressError);
    expect(s.seen).toHaveLength(0);
  });

  it('refuses IPv6 loopback and IPv4-mapped loopback literals', async () => {
    const s = await server(ok);
    const c = client();
    await expect(c.fetch(`http://[::1]:${s.port}/`)).rejects.toBeInstanceOf(BlockedAddressError);
    await expect(c.fetch(`http://[::ffff:127.0.0.1]:${s.port}/`)).rejects.toBeInstanceOf(BlockedAddressError);
    await expect(c.fetch(`http://0x7f.1:${s.port}/`)).rejects.toBeInstanceOf(BlockedAddressError);
    expect(s.seen).toHaveLength(0);
  });

  it('refuses a redirect from an allowed host to a blocked one; the blocked host sees nothing', async () => {
    const blocked = await server(ok, '127.0.0.2');
    const allowed = await server((_req, res) => {
      res.writeHead(302, { location: `${blocked.origin}/secret` }).end();
    });
    const c = client({ allowAddresses: ['127.0.0.1'] });
    await expect(c.fetch(`${allowed.origin}/start`)).rejects.toBeInstanceOf(BlockedAddressError);
    expect(allowed.seen).toHaveLength(1);
    expect(blocked.seen).toHaveLength(0);

    // Control: the same redirect is followed once the second address is allowed too.
    const both = client({ allowAddresses: ['127.0.0.1', '127.0.0.2'] });
    const response = await both.fetch(`${allowed.origin}/start`);
    expect(await response.text()).toBe('hello');
    expect(response.redirected).toBe(true);
    expect(response.url).toBe(`${blocked.origin}/secret`);
  });

  it('refuses non-HTTP schemes, directly and as a redirect target', async () => {
    const s = await server((_req, res) => res.writeHead(301, { location: 'file:///etc/passwd' }).end());
    const c = client({ allowPrivateAddresses: true });
    await expect(c.fetch('file:///etc/passwd')).rejects.toBeInstanceOf(UnsupportedSchemeError);
    await expect(c.fetch(`${s.origin}/`)).rejects.toBeInstanceOf(UnsupportedSchemeError);
  });
});

describe('createHttpClient: redirects', () => {
  const chain: Handler = (req, res) => {
    const n = Number(req.url?.split('/')[2] ?? '0');
    if (req.url?.startsWith('/r/')) res.writeHead(302, { location: `/r/${n + 1}` }).end();
    else res.end('end');
  };

  it('stops after maxRedirects with TooManyRedirectsError', async () => {
    const s = await server(chain);
    await expect(client({ allowPrivateAddresses: true, maxRedirects: 3 }).fetch(`${s.origin}/r/0`)).rejects.toBeInstanceOf(
      TooManyRedirectsError,
    );
    expect(s.seen.map((r) => r.path)).toEqual(['/r/0', '/r/1', '/r/2', '/r/3']);
  });

  it('follows up to maxRedirects hops', async () => {
    const s = await server((req, res) => {
      if (req.url === '/a') res.writeHead(301, { location: '/b' }).end();
      else if (req.url === '/b') res.writeHead(307, { location: '/c' }).end();
      else res.end('arrived');
    });
    const response = await client({ allowPrivateAddresses: true, maxRedirects: 2 }).fetch(`${s.origin}/a`);
    expect(await response.text()).toBe('arrived');
    expect(response.url).toBe(`${s.origin}/c`);
  });

  it('turns POST into GET on 302 and drops credentials on a cross-origin hop', async () => {
    const target = await server(ok);
    const origin = await server((req, res) => {
      if (req.url === '/same') res.writeHead(307, { location: '/final' }).end();
      else if (req.url === '/final') res.end('kept');
      else res.writeHead(302, { location: `${target.origin}/x` }).end();
    });
    const c = client({ allowPrivateAddresses: true });
    const headers = { authorization: 'Bearer secret', signature: 'sig', 'content-type': 'text/plain' };
    await c.fetch(`${origin.origin}/cross`, { method: 'POST', headers, body: 'payload' });
    expect(target.seen[0]).toMatchObject({ method: 'GET', body: '' });
    expect(target.seen[0]?.headers.authorization).toBeUndefined();
    expect(target.seen[0]?.headers.signature).toBeUndefined();

    // 307 on the same origin keeps method, body and headers.
    await c.fetch(`${origin.origin}/same`, { method: 'POST', headers, body: 'payload' });
    const final = origin.seen.find((r) => r.path === '/final');
    expect(final).toMatchObject({ method: 'POST', body: 'payload' });
    expect(final?.headers.authorization).toBe('Bearer secret');
  });

  it("returns the 3xx itself with redirect: 'manual'", async () => {
    const s = await server(chain);
    const response = await client({ allowPrivateAddresses: true }).fetch(`${s.origin}/r/0`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/r/1');
    expect(s.seen).toHaveLength(1);
  });
});

describe('createHttpClient: body caps and timeouts', () => {
  const MiB = 1024 * 1024;
  const streamMiB =
    (n: number): Handler =>
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      let sent = 0;
      const write = () => {
        while (sent < n * MiB) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', write);
        }
        res.end();
      };
      res.on('error', () => undefined);
      write();
    };

  it('returns a body under the cap whole', async () => {
    const s = await server(streamMiB(1));
    const { text } = await client({ allowPrivateAddresses: true, maxBodyBytes: MiB }).fetchText(`${s.origin}/`);
    expect(text.length).toBe(MiB);
  });

  it('aborts a streamed body past the cap with BodyTooLargeError (fetchText and raw fetch)', async () => {
    const s = await server(streamMiB(3));
    const c = client({ allowPrivateAddresses: true, maxBodyBytes: MiB });
    const error = await c.fetchText(`${s.origin}/`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BodyTooLargeError);
    expect((error as BodyTooLargeError).limitBytes).toBe(MiB);

    const response = await c.fetch(`${s.origin}/`);
    expect(response.status).toBe(200);
    await expect(response.arrayBuffer()).rejects.toBeInstanceOf(BodyTooLargeError);
  });

  it('refuses at once a body whose Content-Length is over the cap', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-length': String(5 * MiB) });
      res.on('error', () => undefined);
      res.write('x'); // then stall: the client must not wait for the rest
    });
    const started = performance.now();
    await expect(client({ allowPrivateAddresses: true, maxBodyBytes: MiB }).fetchText(`${s.origin}/`)).rejects.toBeInstanceOf(
      BodyTooLargeError,
    );
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('counts decoded bytes, so a small gzip bomb is refused', async () => {
    const bomb = gzipSync(Buffer.alloc(3 * MiB));
    expect(bomb.length).toBeLessThan(MiB / 10);
    const s = await server((_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(bomb));
    await expect(client({ allowPrivateAddresses: true, maxBodyBytes: MiB }).fetchText(`${s.origin}/`)).rejects.toBeInstanceOf(
      BodyTooLargeError,
    );
  });

  it('decodes gzip bodies and parses JSON; a non-JSON 200 is InvalidJsonError, a non-JSON 404 keeps its status', async () => {
    const s = await server((req, res) => {
      if (req.url === '/bad') return void res.end('<html>');
      if (req.url === '/missing') return void res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
      res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'application/json' }).end(gzipSync('{"a":[1,2]}'));
    });
    const c = client({ allowPrivateAddresses: true });
    expect((await c.fetchJson(`${s.origin}/`)).json).toEqual({ a: [1, 2] });
    await expect(c.fetchJson(`${s.origin}/bad`)).rejects.toBeInstanceOf(InvalidJsonError);
    const missing = await c.fetchJson(`${s.origin}/missing`);
    expect(missing.response.status).toBe(404);
    expect(missing.json).toBeUndefined();
  });

  it('times out a server that never answers', async () => {
    const s = await server(() => undefined);
    const started = performance.now();
    const error = await client({ allowPrivateAddresses: true, timeoutMs: 300 })
      .fetch(`${s.origin}/`)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect((error as RequestTimeoutError).phase).toBe('overall');
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('times out a body that stalls after the headers', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200);
      res.write('partial');
    });
    const c = client({ allowPrivateAddresses: true, timeoutMs: 300 });
    await expect(c.fetchText(`${s.origin}/`)).rejects.toBeInstanceOf(RequestTimeoutError);
  });

  it("rejects with the caller's abort reason", async () => {
    const s = await server(() => undefined);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await client({ allowPrivateAddresses: true })
      .fetch(`${s.origin}/`, { signal: controller.signal })
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
  });
});

describe('createHttpClient: a URL with rawBody (no Request built)', () => {
  const echo: Handler = (req, res, body) =>
    res.end(JSON.stringify({ method: req.method, type: req.headers['content-type'] ?? null, length: req.headers['content-length'] ?? null, body }));

  it('sends the method (normalised as fetch does), headers and bytes, and still passes the guard', async () => {
    const s = await server(echo);
    const bytes = new TextEncoder().encode('{"a":1}');
    const { json } = await client({ allowPrivateAddresses: true }).fetchJson(`${s.origin}/x`, {
      method: 'post',
      headers: new Headers({ 'content-type': 'application/activity+json' }),
      rawBody: bytes,
    });
    expect(json).toEqual({ method: 'POST', type: 'application/activity+json', length: '7', body: '{"a":1}' });
    await expect(client().fetch(`${s.origin}/x`, { method: 'POST', rawBody: bytes })).rejects.toBeInstanceOf(BlockedAddressError);
  });

  it('refuses what new Request refuses: a bad URL, a forbidden method, a GET with a body', async () => {
    const c = client({ allowPrivateAddresses: true });
    const bytes = new Uint8Array([1]);
    await expect(c.fetch('not a url', { method: 'POST', rawBody: bytes })).rejects.toBeInstanceOf(TypeError);
    await expect(c.fetch('http://127.0.0.1:1/', { method: 'TRACE', rawBody: bytes })).rejects.toBeInstanceOf(TypeError);
    await expect(c.fetch('http://127.0.0.1:1/', { method: 'GET', rawBody: bytes })).rejects.toBeInstanceOf(TypeError);
  });

  it("rejects with the caller's abort reason, and does not follow a redirect when told not to", async () => {
    const never = await server(() => {});
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stopped')), 50);
    const c = client({ allowPrivateAddresses: true });
    await expect(c.fetch(`${never.origin}/`, { method: 'POST', signal: controller.signal, rawBody: new Uint8Array([1]) })).rejects.toThrow('stopped');
    const moved = await server((_req, res) => res.writeHead(302, { location: '/elsewhere' }).end());
    const res = await c.fetch(`${moved.origin}/`, { method: 'POST', redirect: 'manual', rawBody: null });
    expect(res.status).toBe(302);
  });

  it('sends checkedHeaders as given, in place of headers; a value that would split the request is still refused', async () => {
    const s = await server((req, res) => res.end(JSON.stringify({ signature: req.headers.signature ?? null, type: req.headers['content-type'] ?? null, extra: req.headers['x-extra'] ?? null })));
    const c = client({ allowPrivateAddresses: true });
    const { json } = await c.fetchJson(`${s.origin}/x`, {
      method: 'POST',
      headers: { 'x-extra': 'not sent' },
      checkedHeaders: { 'content-type': 'application/activity+json', signature: 'keyId="https://a.example#main-key"' },
      rawBody: new Uint8Array([1]),
    });
    expect(json).toEqual({ signature: 'keyId="https://a.example#main-key"', type: 'application/activity+json', extra: null });
    await expect(c.fetch(`${s.origin}/x`, { method: 'POST', checkedHeaders: { signature: 'a\r\nx-injected: 1' }, rawBody: null })).rejects.toThrow(/Invalid character/);
    // Hop-by-hop headers are the client's to write, as for headers.
    const framed = await server((req, res) => res.end(JSON.stringify({ te: req.headers['transfer-encoding'] ?? null, length: req.headers['content-length'] ?? null, connection: req.headers.connection ?? null })));
    const sent = await c.fetchJson(`${framed.origin}/x`, { method: 'POST', checkedHeaders: { 'transfer-encoding': 'chunked', connection: 'close', 'content-length': '99' }, rawBody: new Uint8Array([1, 2]) });
    expect(sent.json).toEqual({ te: null, length: '2', connection: 'keep-alive' });
  });
});

describe('createHttpClient: keep-alive', () => {
  // The client port of each request's socket, as the server saw it: same port, same connection.
  const byPort = (ports: number[]): Handler => (req, res) => {
    ports.push(req.socket.remotePort ?? 0);
    if (req.url === '/empty') res.writeHead(202, { 'content-length': '0' }).end();
    else if (req.url === '/stalls') res.writeHead(200, { 'content-length': '100000' }).write('x'.repeat(10));
    else res.end('a short body');
  };

  it('reuses the connection after an empty 202 (no body stream) and after cancelling a body received whole', async () => {
    const ports: number[] = [];
    const s = await server(byPort(ports));
    const c = client({ allowPrivateAddresses: true });
    const empty = await c.fetch(`${s.origin}/empty`, { method: 'POST', rawBody: new Uint8Array([1]) });
    expect(empty.status).toBe(202);
    expect(empty.body).toBeNull();
    // The socket is back in the pool once the response has run out: a turn later, as the delivery
    // loop starts its next request (setImmediate).
    await new Promise((resolve) => setImmediate(resolve));
    const short = await c.fetch(`${s.origin}/short`);
    await new Promise((resolve) => setTimeout(resolve, 20)); // the whole body has arrived
    await short.body?.cancel();
    const again = await c.fetch(`${s.origin}/empty`, { method: 'POST', rawBody: new Uint8Array([1]) });
    expect(await again.text()).toBe('');
    expect(ports).toHaveLength(3);
    expect(ports, String(ports)).toEqual([ports[0], ports[0], ports[0]]);
  });

  it('closes the connection when a body still arriving is cancelled (nothing more is read)', async () => {
    const ports: number[] = [];
    const s = await server(byPort(ports));
    const c = client({ allowPrivateAddresses: true });
    const stalled = await c.fetch(`${s.origin}/stalls`);
    await stalled.body?.cancel();
    await c.fetch(`${s.origin}/empty`, { method: 'POST', rawBody: null });
    expect(ports).toHaveLength(2);
    expect(ports[0]).not.toBe(ports[1]);
  });
});

describe('createHttpClient: TLS sessions', () => {
  const tls = (name: string) => readFileSync(new URL(`../../../test/fixtures/tls/${name}`, import.meta.url), 'utf8');

  it(`resumes the TLS session with each of more servers than https.Agent keeps by default (100), round after round`, async () => {
    // A fan-out's pattern: one new connection to each of many servers, then the same servers
    // again for the next post. Each server closes its connection after answering, and says
    // whether the client resumed a session.
    const count = 130;
    const resumed: boolean[][] = [[], []];
    let round = 0;
    const started: HttpsServer[] = [];
    try {
      for (let i = 0; i < count; i++) {
        const s = createHttpsServer({ key: tls('localhost-key.pem'), cert: tls('localhost-cert.pem') }, (req, res) => {
          resumed[round]!.push((req.socket as TLSSocket).isSessionReused());
          res.writeHead(202, { 'content-length': '0', connection: 'close' }).end();
        });
        await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
        started.push(s);
      }
      const c = client({ allowPrivateAddresses: true, trustedCa: tls('localhost-cert.pem') });
      expect(TLS_SESSIONS_KEPT).toBeGreaterThanOrEqual(1_000);
      for (round = 0; round < 2; round++) {
        for (const s of started) {
          const response = await c.fetch(`https://127.0.0.1:${(s.address() as AddressInfo).port}/inbox`, { method: 'POST', rawBody: new Uint8Array([1]) });
          expect(response.status).toBe(202);
          // The session ticket arrives after the handshake: a turn for the agent to keep it.
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      expect(resumed[0]).toHaveLength(count);
      expect(resumed[0]!.filter(Boolean)).toHaveLength(0);
      expect(resumed[1]).toHaveLength(count);
      expect(resumed[1]!.filter((r) => !r).length).toBe(0);
    } finally {
      await Promise.all(started.map((s) => new Promise((resolve) => s.close(resolve))));
    }
  }, 30_000);

  it('refuses a certificate it was not told to trust (the system store, no exception for tests by default)', async () => {
    const s = createHttpsServer({ key: tls('localhost-key.pem'), cert: tls('localhost-cert.pem') }, (_req, res) => res.end('no'));
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    try {
      const c = client({ allowPrivateAddresses: true });
      await expect(c.fetch(`https://127.0.0.1:${(s.address() as AddressInfo).port}/`)).rejects.toThrow(/certificate/i);
    } finally {
      await new Promise((resolve) => s.close(resolve));
    }
  });
});

describe('createHttpClient: headers as sent', () => {
  it('sends a Headers object as it is and checks any other form, without hop-by-hop headers; answers keep their headers', async () => {
    const s = await server((_req, res) => res.writeHead(202, { 'content-length': '0', 'x-answer': 'yes', 'retry-after': '5' }).end());
    const c = client({ allowPrivateAddresses: true });
    const signed = new Headers({ signature: 'sig1=:abc:', 'content-type': 'application/activity+json', connection: 'close' });
    const res = await c.fetch(`${s.origin}/inbox`, { method: 'POST', headers: signed, rawBody: new Uint8Array([1]) });
    expect(res.headers.get('x-answer')).toBe('yes');
    expect(res.headers.get('retry-after')).toBe('5');
    expect(s.seen[0]?.headers).toMatchObject({ signature: 'sig1=:abc:', 'content-type': 'application/activity+json', 'user-agent': UA });
    expect(s.seen[0]?.headers.connection).not.toBe('close');
    await expect(c.fetch(`${s.origin}/inbox`, { method: 'POST', headers: { 'x-bad': 'a\nb' }, rawBody: null })).rejects.toBeInstanceOf(TypeError);
  });
});

describe('createHttpClient: onSent (the request left in full)', () => {
  it('is told once a request was handed to a connected socket, before its answer; never for a refused connection', async () => {
    const events: string[] = [];
    const s = await server(ok);
    const c = client({ allowPrivateAddresses: true });
    const res = await c.fetch(`${s.origin}/inbox`, { method: 'POST', rawBody: new TextEncoder().encode('{}'), onSent: () => events.push('sent') });
    events.push(`answer ${res.status}`);
    expect(events).toEqual(['sent', 'answer 200']);

    const down = await startServer(ok);
    await down.close();
    let sent = 0;
    await expect(c.fetch(`${down.origin}/inbox`, { method: 'POST', rawBody: new TextEncoder().encode('{}'), onSent: () => sent++ })).rejects.toThrow(/ECONNREFUSED/);
    expect(sent).toBe(0);
  });

  it('is told when the request starts, not when its write is confirmed: a server that resets once the head arrives may have it', async () => {
    const raw = createNetServer((socket) => socket.once('data', () => socket.resetAndDestroy()));
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = raw.address() as AddressInfo;
      let sent = 0;
      // 8 MiB: the reset lands while the body is still being written ('finish' never comes).
      await expect(client({ allowPrivateAddresses: true }).fetch(`http://127.0.0.1:${port}/inbox`, { method: 'POST', rawBody: new Uint8Array(8 * 1024 * 1024), onSent: () => sent++ })).rejects.toThrow();
      expect(sent).toBe(1);
    } finally {
      raw.close();
    }
  });

  it('is told for each request on a kept-alive socket, once each', async () => {
    const s = await server(ok);
    const c = client({ allowPrivateAddresses: true });
    const sent: number[] = [];
    for (const n of [1, 2, 3]) await (await c.fetch(`${s.origin}/inbox`, { method: 'POST', rawBody: new Uint8Array([n]), onSent: () => sent.push(n) })).text();
    expect(sent).toEqual([1, 2, 3]);
  });
});
