// A fault-injecting peer for the network fault tests: real sockets on loopback that misbehave the
// way servers on the internet do — reset the connection, never answer, trickle bytes, answer
// 5xx in bursts, 429 with Retry-After, redirect in a loop, send a body that never ends, or the
// wrong content type. Each peer counts what reached it. Test support only.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Fault =
  | { kind: 'ok' }
  /** The connection is reset as soon as the request arrives (TCP RST). */
  | { kind: 'reset' }
  /** The request is read, then nothing is ever answered. */
  | { kind: 'hang' }
  /** The status line and headers one byte every `everyMs`. */
  | { kind: 'trickle-head'; everyMs: number }
  /** 202 at once, then a body one byte every `everyMs`, never ending. */
  | { kind: 'trickle-body'; everyMs: number }
  /** `count` answers of `status` (5xx), then 202. */
  | { kind: 'burst'; status: number; count: number }
  | { kind: 'retry-after'; seconds: number }
  /** 307 back to itself, for ever. */
  | { kind: 'redirect-loop' }
  /** 200 with a body that never ends (as fast as the reader takes it). */
  | { kind: 'endless' }
  /** 200, text/html, not what was asked for. */
  | { kind: 'wrong-type' };

export interface FaultPeer {
  readonly origin: string;
  /** Requests that reached the peer (their request line and headers at least). */
  readonly hits: number;
  close(): Promise<void>;
}

export async function startFaultPeer(fault: Fault): Promise<FaultPeer> {
  let hits = 0;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const every = (ms: number, tick: () => boolean) => {
    const t = setInterval(() => {
      if (!tick()) {
        clearInterval(t);
        timers.delete(t);
      }
    }, ms);
    timers.add(t);
  };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    hits++;
    req.resume();
    switch (fault.kind) {
      case 'ok':
        return res.writeHead(202).end();
      case 'reset':
        return req.socket.resetAndDestroy();
      case 'hang':
        return;
      case 'trickle-body':
        res.writeHead(202, { 'content-type': 'text/plain' });
        return every(fault.everyMs, () => !res.destroyed && res.write('x') !== undefined);
      case 'burst':
        return hits <= fault.count ? res.writeHead(fault.status).end('busy') : res.writeHead(202).end();
      case 'retry-after':
        return res.writeHead(429, { 'retry-after': String(fault.seconds) }).end();
      case 'redirect-loop':
        return res.writeHead(307, { location: req.url ?? '/' }).end();
      case 'endless': {
        res.writeHead(200, { 'content-type': 'application/activity+json' });
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
        };
        res.on('drain', pump);
        return pump();
      }
      case 'wrong-type':
        return res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Not an actor</body></html>');
    }
  };
  const server = http.createServer((req, res) => {
    if (fault.kind === 'trickle-head') {
      // Written by hand on the socket, below node's own response writer.
      hits++;
      req.resume();
      const head = Buffer.from('HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n');
      let i = 0;
      every(fault.everyMs, () => {
        if (req.socket.destroyed) return false;
        req.socket.write(head.subarray(i, i + 1));
        return ++i < head.length;
      });
      return;
    }
    handle(req, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    get hits() {
      return hits;
    },
    close: () =>
      new Promise<void>((resolve) => {
        timers.forEach(clearInterval);
        sockets.forEach((s) => s.destroy());
        server.close(() => resolve());
      }),
  };
}
