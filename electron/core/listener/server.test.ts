// The listener's node:http server, over raw sockets (fetch would not send these requests): what
// it answers before the app sees a request.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openListeningCore, type ListeningCore } from './test-support';
import { startListener, type RunningListener } from './server';
import { issueToken } from '../indieauth/test-flow';

let t: ListeningCore;
beforeAll(async () => {
  t = await openListeningCore();
});
afterAll(async () => {
  await t?.close();
});

interface RawAnswer {
  status: number;
  headers: Map<string, string[]>;
  body: string;
}

/** Writes the head (`lines` joined with CRLF, then the blank line) and `body`, and reads until
 * the server closes. */
function raw(port: number, lines: string[], body = ''): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`));
    let data = '';
    socket.setTimeout(4_000, () => socket.destroy(new Error(`no answer to ${lines[0]} in 4 s`)));
    socket.on('data', (chunk) => (data += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const end = data.indexOf('\r\n\r\n');
      const [statusLine = '', ...headerLines] = data.slice(0, end).split('\r\n');
      const headers = new Map<string, string[]>();
      for (const line of headerLines) {
        const name = line.slice(0, line.indexOf(':')).toLowerCase();
        headers.set(name, [...(headers.get(name) ?? []), line.slice(line.indexOf(':') + 1).trim()]);
      }
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0), headers, body: data.slice(end + 4) });
    });
  });
}

const port = () => Number(new URL(t.url).port);

describe('a request the adapter cannot make a URL of', () => {
  it.each([
    ['a Host with a space', 'GET / HTTP/1.1', 'Host: a b', /Host and target do not make a URL/],
    ['a Host with an unclosed bracket', 'GET / HTTP/1.1', 'Host: [::1', /Host and target do not make a URL/],
    ['a Host with port 99999', 'GET / HTTP/1.1', 'Host: 127.0.0.1:99999', /Host and target do not make a URL/],
    ['OPTIONS *', 'OPTIONS * HTTP/1.1', 'Host: 127.0.0.1', /Host and target do not make a URL/],
    ['a backslash in the path', 'GET /inbox\\ HTTP/1.1', 'Host: 127.0.0.1', /a backslash in its path/],
  ])('%s: 400 with its reason, as JSON, nosniff', async (_name, line, host, reason) => {
    const answer = await raw(port(), [line, host, 'Connection: close']);
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toEqual(['application/json']);
    expect(answer.headers.get('x-content-type-options')).toEqual(['nosniff']);
    const { error } = JSON.parse(answer.body) as { error: string };
    expect(error).toMatch(/^the request could not be read \(/);
    expect(error).toMatch(reason);
  });

  it('node:http’s own refusals say nosniff too', async () => {
    const answer = await raw(port(), ['GET / HTTP/1.1', 'Host: 127.0.0.1', 'X-A: 1\rX-B: 2']);
    expect(answer.status).toBe(400);
    expect(answer.headers.get('x-content-type-options')).toEqual(['nosniff']);
  });
});

describe('two Host headers', () => {
  it.each([
    ['GET /', 'GET / HTTP/1.1', [], ''],
    ['POST /inbox (answered on node:http, not the app)', 'POST /inbox HTTP/1.1', ['Content-Type: application/activity+json', 'Content-Length: 2'], '{}'],
  ])('%s: 400 saying so (RFC 9112 §3.2)', async (_name, line, extra, body) => {
    const answer = await raw(port(), [line, 'Host: 127.0.0.1', 'host: evil.example', 'Connection: close', ...extra], body);
    expect(answer.status).toBe(400);
    expect(answer.headers.get('x-content-type-options')).toEqual(['nosniff']);
    expect(JSON.parse(answer.body)).toEqual({ error: 'the request has more than one Host header' });
  });

  it('one Host is served as before', async () => {
    expect((await raw(port(), ['GET /.well-known/nodeinfo HTTP/1.1', 'Host: 127.0.0.1', 'Connection: close'])).status).toBe(200);
  });
});

describe('slow requests are cut at their configured deadline, not at node:http’s next 30 s check', () => {
  let short: RunningListener;
  beforeAll(async () => {
    short = await startListener(t.core, { host: '127.0.0.1', port: 0 }, { timeouts: { headersMs: 300, requestMs: 600, uploadMs: 1_800 } });
  });
  afterAll(async () => {
    await short?.close();
  });

  /** Sends `head`, then `piece` every 100 ms until the server answers and closes. */
  const trickle = (head: string, piece: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(short.port, '127.0.0.1', () => socket.write(head));
      const timer = setInterval(() => socket.writable && socket.write(piece), 100);
      // Not socket.setTimeout: the trickle keeps the socket from ever being idle.
      const deadline = setTimeout(() => socket.destroy(new Error('not cut in 4 s')), 4_000);
      let data = '';
      const stop = () => (clearInterval(timer), clearTimeout(deadline));
      socket.on('data', (chunk) => (data += chunk.toString('latin1')));
      socket.on('error', (error) => (stop(), reject(error)));
      socket.on('close', () => (stop(), resolve(data)));
    });

  it('headers trickled a byte at a time: 408 with its reason', async () => {
    const answer = await trickle('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ', 'a');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('the request took too long to arrive');
  });

  it('a file upload has the longer upload deadline: still open past the request deadline, then cut', async () => {
    const token = await issueToken(t.url, t.core, ['create', 'media']);
    const started = Date.now();
    const answer = await trickle(`POST /micropub/media HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: 100000\r\n\r\n`, ' ');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('the request took too long to arrive');
    // Not at requestMs (600 ms) as any other body: at uploadMs (1.8 s).
    expect(Date.now() - started).toBeGreaterThan(1_500);
  });

  it('an inbox body trickled a byte at a time: 408 with its reason', async () => {
    const answer = await trickle('POST /inbox HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/activity+json\r\nContent-Length: 100000\r\n\r\n', ' ');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('the request took too long to arrive');
  });
});
