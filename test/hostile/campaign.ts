// Helpers of the hostile campaign (campaign-*.test.ts): the listener's routes as a list to
// cross with methods, content types and bodies; a canary server on loopback that counts what
// reaches it (an SSRF is a request it saw); and a check that no input polluted Object.prototype.
import { expect } from 'vitest';
import { startServer, type LoopbackServer } from '../../electron/core/net/test-server';

/** Every route the listener mounts, with a path that reaches its handler (`ID`: a real post). */
export const ROUTES = [
  '/',
  '/outbox',
  '/followers',
  '/following',
  '/featured',
  '/o/ID',
  '/o/ID/activity',
  '/inbox',
  '/webmention',
  '/auth',
  '/token',
  '/token/revoke',
  '/token/introspect',
  '/register',
  '/micropub',
  '/micropub/media',
  '/avatar.svg',
  '/media/thumbnails/abc',
  '/media/abc/x.png',
  '/.well-known/webfinger?resource=acct:alice@127.0.0.1',
  '/.well-known/host-meta',
  '/.well-known/nodeinfo',
  '/.well-known/oauth-authorization-server',
  '/nodeinfo/2.1',
  '/oauth/authorize',
  '/oauth/token',
  '/oauth/revoke',
  '/api/v1/instance',
  '/api/v2/instance',
  '/api/v1/apps',
  '/api/v1/statuses',
  '/api/v1/accounts/verify_credentials',
  '/api/v1/timelines/home',
  '/api/v2/media',
  '/api/v2/search?q=x',
];

/** The routes that take a body. */
export const POST_ROUTES = ['/inbox', '/webmention', '/token', '/token/revoke', '/register', '/micropub', '/micropub/media', '/oauth/token', '/api/v1/apps', '/api/v1/statuses', '/api/v2/media'];

/** A server on loopback that answers everything with an actor-ish document and records it: a
 * core whose guard is on must never reach it. */
export async function startCanary(): Promise<LoopbackServer> {
  return startServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/activity+json' }).end(JSON.stringify({ id: 'x', type: 'Person', inbox: 'x' }));
  });
}

export function expectPrototypeClean(): void {
  const probe = {} as Record<string, unknown>;
  expect(Object.keys(Object.prototype), 'Object.prototype was polluted').toEqual([]);
  expect(probe.polluted, 'Object.prototype was polluted').toBeUndefined();
}

/** Statuses a refusal may have (any 4xx). */
export const REFUSED = Array.from({ length: 100 }, (_, i) => 400 + i);
/** Statuses an answer may have: a success, a redirect or a refusal — never a 5xx. */
export const ANSWERED = Array.from({ length: 400 }, (_, i) => 100 + i);
