// GETs of ActivityPub documents, signed only when the server asked: real loopback servers record
// every request, so what each of them received (and whether it carried the author's signature)
// is what is checked.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchActivityDocument } from './document-fetch';
import { openFederationContext, type FederationContext } from './federation-context';
import { startServer, type LoopbackServer } from './test-server';

const KEY_ID = 'https://tern.example#main-key';
const doc = (id: string) => JSON.stringify({ id, type: 'Person' });
const signedRequests = (server: LoopbackServer) => server.seen.filter((r) => r.headers.signature !== undefined || r.headers['signature-input'] !== undefined);

let dir: string;
let fed: FederationContext;
const servers: LoopbackServer[] = [];
const serve = async (handler: Parameters<typeof startServer>[0]) => {
  const server = await startServer(handler);
  servers.push(server);
  return server;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tern-document-fetch-'));
  fed = await openFederationContext(dir, true);
  fed.signingKeyId = () => KEY_ID;
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  fed.client.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Answers 401 to an unsigned GET, the document to a signed one (authorized fetch). */
const authorizedFetch = () =>
  serve((req, res) => {
    if (req.headers.signature === undefined) return res.writeHead(401).end();
    res.writeHead(200, { 'content-type': 'application/activity+json' }).end(doc(`http://${req.headers.host}${req.url}`));
  });

describe('fetchActivityDocument', () => {
  it('a server that serves unsigned GETs never sees the author’s signature', async () => {
    const open = await serve((req, res) => res.writeHead(200, { 'content-type': 'application/activity+json' }).end(doc(`http://${req.headers.host}${req.url}`)));
    const got = await fetchActivityDocument(fed, `${open.origin}/users/a`);
    expect(got).toMatchObject({ signed: false, response: { status: 200 } });
    expect(open.seen).toHaveLength(1);
    expect(signedRequests(open)).toHaveLength(0);
  });

  it('refused unsigned: asked again signed with the published key id; the origin is then asked signed at once', async () => {
    const gts = await authorizedFetch();
    const first = await fetchActivityDocument(fed, `${gts.origin}/users/zoe`);
    expect(first).toMatchObject({ signed: true, response: { status: 200 } });
    expect(JSON.parse(first.text)).toMatchObject({ id: `${gts.origin}/users/zoe` });
    expect(gts.seen.map((r) => r.headers.signature === undefined)).toEqual([true, false]);
    expect(String(gts.seen[1]!.headers.signature)).toContain(`keyId="${KEY_ID}"`);
    await fetchActivityDocument(fed, `${gts.origin}/users/zoe/statuses/1`);
    expect(gts.seen).toHaveLength(3);
    expect(signedRequests(gts)).toHaveLength(2);
  });

  it('a refusal reached through a redirect to another server signs nothing, for either server', async () => {
    const refusing = await serve((_req, res) => res.writeHead(401).end());
    const redirector = await serve((req, res) => res.writeHead(302, { location: `${refusing.origin}${req.url}` }).end());
    const got = await fetchActivityDocument(fed, `${redirector.origin}/u/x`);
    expect(got).toMatchObject({ signed: false, response: { status: 401 } });
    expect(signedRequests(redirector)).toHaveLength(0);
    expect(signedRequests(refusing)).toHaveLength(0);
    expect(refusing.seen).toHaveLength(1);
  });

  it('a signed request is not followed to where its answer redirects', async () => {
    const elsewhere = await serve((_req, res) => res.writeHead(200).end('{}'));
    const bouncer = await serve((req, res) => {
      if (req.headers.signature === undefined) return res.writeHead(401).end();
      res.writeHead(302, { location: `${elsewhere.origin}/trap` }).end();
    });
    const got = await fetchActivityDocument(fed, `${bouncer.origin}/users/b`);
    expect(got.response.status).toBe(302);
    expect(elsewhere.seen).toHaveLength(0);
  });

  it('without an address to sign with, the plain refusal is the answer', async () => {
    const gts = await authorizedFetch();
    const got = await fetchActivityDocument(fed, `${gts.origin}/users/y`, { keyId: null });
    expect(got).toMatchObject({ signed: false, response: { status: 401 } });
    expect(signedRequests(gts)).toHaveLength(0);
  });
});
