// The listener's node:http server, over raw sockets (fetch would not send these requests): what
// it answers before the app sees a request.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openListeningCore, type ListeningCore } from './test-support';

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

/** Writes `head` (lines joined with CRLF, then the blank line) and reads until the server closes. */
function raw(port: number, lines: string[]): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`${lines.join('\r\n')}\r\n\r\n`));
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
