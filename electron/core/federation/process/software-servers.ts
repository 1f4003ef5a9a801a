// Test support (not imported by production code): loopback servers standing in for servers of
// other software (a Lemmy, a PeerTube, a Funkwhale, a Mobilizon…), each serving the JSON
// documents a test puts there — actors and objects in the shapes that software publishes. Like
// test-rig.ts's fixture servers, but for any name, so a test can model one more server in a line.
import { startServer, type LoopbackServer } from '../../net/test-server';
import type { Json } from '../ap';

export interface SoftwareServer {
  /** e.g. http://127.0.0.1:40123 */
  origin: string;
  /** Serve this document (or answer this status) at the path. */
  put(path: string, doc: Json | number): void;
  /** Serve an actor document at the path and return its id. */
  actor(path: string, type: string, username: string, extra?: Json): string;
  server: LoopbackServer;
}

/** A loopback server answering each GET with what `find` has at the request's path (the query
 * left out): a document as activity+json, a status as that status, nothing as 404. */
export function serveDocuments(find: (path: string) => Json | number | undefined): Promise<LoopbackServer> {
  return startServer((req, res) => {
    const doc = find((req.url ?? '/').split('?')[0]!);
    if (doc === undefined || typeof doc === 'number') {
      res.statusCode = typeof doc === 'number' ? doc : 404;
      res.end();
      return;
    }
    res.setHeader('content-type', 'application/activity+json');
    res.end(JSON.stringify(doc));
  });
}

export async function startSoftwareServer(): Promise<SoftwareServer> {
  const docs = new Map<string, Json | number>();
  const server = await serveDocuments((path) => docs.get(path));
  const origin = server.origin;
  const put = (path: string, doc: Json | number) => docs.set(path.startsWith('http') ? new URL(path).pathname : path, doc);
  return {
    origin,
    server,
    put,
    actor(path, type, username, extra = {}) {
      const id = `${origin}${path}`;
      put(path, { '@context': 'https://www.w3.org/ns/activitystreams', id, type, preferredUsername: username, inbox: `${id}/inbox`, outbox: `${id}/outbox`, followers: `${id}/followers`, ...extra });
      return id;
    },
  };
}
