// Test support for net/: real node:http servers on loopback that record what reached them, so
// tests observe the network as a remote server would (no mocks of the HTTP layer). Not imported
// by production code.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface LoopbackServer {
  /** e.g. http://127.0.0.1:40123 */
  readonly origin: string;
  readonly port: number;
  readonly seen: SeenRequest[];
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => unknown;

/** `port`: 0 (any free one), or a given one (a server that comes back where it was). */
export async function startServer(handler: Handler, host = '127.0.0.1', port = 0): Promise<LoopbackServer> {
  const seen: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      Promise.resolve(handler(req, res, body)).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    origin: `http://${host}:${bound}`,
    port: bound,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Rebuilds a server-side request as a web Request with the URL the peer addressed. */
export function toWebRequest(req: IncomingMessage, body: string, origin: string): Request {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i] ?? '', req.rawHeaders[i + 1] ?? '');
  const method = req.method ?? 'GET';
  return new Request(new URL(req.url ?? '/', origin), {
    method,
    headers,
    body: method === 'GET' || method === 'HEAD' ? null : body,
  });
}
