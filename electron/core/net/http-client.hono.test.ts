// The safe client's answers while @hono/node-server's Request and Response stand in for the
// global ones, as they do in the app once the listener has started (its request listener
// installs them). Its own file: the globals stay replaced for the rest of the file.
import { getRequestListener } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient } from './http-client';
import { startServer, type LoopbackServer } from './test-server';

let server: LoopbackServer;
const client = createHttpClient({ userAgent: 'Tern-test/1.0', allowPrivateAddresses: true });

beforeAll(async () => {
  getRequestListener(() => new Response(null)); // installs Hono's globals
  server = await startServer((req, res) => {
    if (req.url === '/empty') return res.writeHead(202, { 'content-length': '0' }).end();
    res.writeHead(200, { 'content-type': 'application/activity+json' }).end('{"id":"https://peer.example/users/a"}');
  });
});

afterAll(async () => {
  client.close();
  await server.close();
});

describe('createHttpClient under Hono’s global Response', () => {
  it('keeps exactly the content type the server sent (no default text/plain beside it)', async () => {
    expect(globalThis.Response.name).not.toBe('Response'); // Hono's class is installed
    const { response, json } = await client.fetchJson(`${server.origin}/actor`);
    expect(response.headers.get('content-type')).toBe('application/activity+json');
    expect(json).toEqual({ id: 'https://peer.example/users/a' });
  });

  it('an empty 202 has no body and no content type made up', async () => {
    const response = await client.fetch(`${server.origin}/empty`, { method: 'POST', rawBody: new Uint8Array([1]) });
    expect(response.status).toBe(202);
    expect(response.body).toBeNull();
    expect(response.headers.get('content-type')).toBeNull();
  });
});
