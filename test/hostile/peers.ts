// Hostile peers for the corpus: a loopback server publishing actors whose documents the test
// writes (markup in their names, odd URLs, keys of their own), requests signed by them with
// Fedify's signRequest (RFC 9421 or draft-cavage), and raw HTTP over a socket for what fetch
// refuses to send (CRLF in headers, oversized headers, bodies that stop or trickle).
import { connect } from 'node:net';
import { signRequest, type HttpMessageSignaturesSpec } from '@fedify/fedify';
import { exportPublicKeyPem } from '../../electron/core/net/signatures';
import { startServer, type LoopbackServer } from '../../electron/core/net/test-server';
import { newRsaKeys } from '../../electron/core/listener/test-support';

export interface HostilePeer {
  server: LoopbackServer;
  origin: string;
  keys: CryptoKeyPair;
  /** An actor id served here (its document built from `fields`, with this peer's key). */
  actor(name: string, fields?: Record<string, unknown>): string;
  /** A JSON document served at `path` as is. */
  serve(path: string, body: string, type?: string): void;
  close(): Promise<void>;
}

export async function startHostilePeer(): Promise<HostilePeer> {
  const keys = await newRsaKeys();
  const pem = await exportPublicKeyPem(keys.publicKey);
  const docs = new Map<string, { body: string; type: string }>();
  const server = await startServer((req, res) => {
    const doc = docs.get(req.url ?? '');
    if (doc === undefined) return res.writeHead(404, { 'content-type': 'text/plain' }).end('no');
    res.writeHead(200, { 'content-type': doc.type }).end(doc.body);
  });
  const origin = server.origin;
  return {
    server,
    origin,
    keys,
    actor(name, fields = {}) {
      const id = `${origin}/users/${name}`;
      docs.set(`/users/${name}`, {
        type: 'application/activity+json',
        body: JSON.stringify({
          '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
          id,
          type: 'Person',
          preferredUsername: name,
          inbox: `${id}/inbox`,
          publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem: pem },
          ...fields,
        }),
      });
      return id;
    },
    serve(path, body, type = 'application/activity+json') {
      docs.set(path, { body, type });
    },
    close: () => server.close(),
  };
}

/** A POST of `body` to `url`, signed with `privateKey` under `keyId`. */
export async function signedPost(
  url: string,
  body: string | Uint8Array,
  keyId: string,
  privateKey: CryptoKey,
  options: { spec?: HttpMessageSignaturesSpec; contentType?: string; sendTo?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  const request = new Request(url, {
    method: 'POST',
    headers: { 'content-type': options.contentType ?? 'application/activity+json' },
    body: body as BodyInit,
  });
  const signed = await signRequest(request, privateKey, new URL(keyId), { spec: options.spec ?? 'rfc9421' });
  const headers = new Headers(signed.headers);
  for (const [k, v] of Object.entries(options.headers ?? {})) headers.set(k, v);
  return fetch(options.sendTo ?? url, { method: 'POST', headers, body: body as BodyInit });
}

/**
 * Writes `head` (request line and headers, CRLF-separated, without the blank line) and `body`
 * chunks on a raw socket, `gapMs` apart; resolves with the status of the answer (0: the
 * connection closed without one) and its text.
 */
export function rawHttp(port: number, head: string, body: string[] = [], gapMs = 0, endEarly = false): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    const done = () => {
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(data)?.[1] ?? 0);
      resolve({ status, text: data.slice(data.indexOf('\r\n\r\n') + 4) || data });
    };
    socket.setTimeout(5_000, () => socket.destroy());
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1');
    });
    socket.on('close', done);
    socket.on('error', () => undefined);
    socket.on('connect', async () => {
      socket.write(`${head}\r\n\r\n`);
      for (const chunk of body) {
        if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
        socket.write(chunk);
      }
      if (endEarly) socket.end();
    });
  });
}
