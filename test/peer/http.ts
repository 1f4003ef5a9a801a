// Serves a fetch-style handler on loopback with node:http, on a port the OS picks by default.
// Listening comes first because Fedify must be told its origin (http://127.0.0.1:PORT) up front.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';

export interface LoopbackServer {
  origin: string;
  close(): Promise<void>;
}

export async function listenOnLoopback(
  handle: (request: Request) => Promise<Response>,
  port = 0,
): Promise<LoopbackServer> {
  const server: Server = createServer(
    getRequestListener(async (request) => {
      try {
        return await handle(request);
      } catch (error) {
        // Never let a failing request take the process down; the sender sees a 500.
        return new Response(`peer error: ${error instanceof Error ? error.message : String(error)}`, { status: 500 });
      }
    }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port: actualPort } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${actualPort}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive sockets from other peers' fetch() would otherwise hold the server open.
        server.closeAllConnections();
      }),
  };
}
