// Test support for the listener: a real core in a temp folder with the listener on 127.0.0.1,
// rows written the way the app writes them (outbox objects through saveOutboxObject, followers
// as actor + Follow inbox row + follower), and "mallory", a bare loopback server publishing
// actors whose private keys the test holds, for requests signed with Fedify's signRequest
// directly. Not imported by production code.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signRequest, type HttpMessageSignaturesSpec } from '@fedify/fedify';
import { count } from 'drizzle-orm';
import { actor, follower, inbox, incomingActivity, type OutboxObject, type Visibility } from '../../../db/schema';
import { openCore, type Core, type CoreOptions } from '../core';
import { createSettingsService } from '../settings-service';
import { PUBLIC } from '../federation/ap';
import { saveOutboxObject } from '../federation/outbox-store';
import { exportPublicKeyPem } from '../net/signatures';
import { startServer, type LoopbackServer } from '../net/test-server';

export interface ListeningCore {
  core: Core;
  /** http://127.0.0.1:PORT, also the base URL (the actor id). */
  url: string;
  /** Shifts the core's clock (for replay tests). */
  setClockOffset(ms: number): void;
  close(): Promise<void>;
}

/** `extra`: run the inbox processor and the delivery loop on their threads, as the apps do;
 * trust a test certificate authority for HTTPS peers; `allowPrivateAddresses: false` for a core
 * whose outbound client refuses loopback as the apps' does (SSRF tests). */
export async function openListeningCore(
  username = 'alice',
  extra: Pick<CoreOptions, 'inboxWorker' | 'deliveryWorker' | 'deliveryIdleStopMs' | 'trustedCa' | 'allowPrivateAddresses'> = {},
): Promise<ListeningCore> {
  const dir = mkdtempSync(join(tmpdir(), 'tern-listener-'));
  let offset = 0;
  const core = await openCore({
    dataDir: dir,
    mode: 'headless',
    allowPrivateAddresses: true,
    clock: () => new Date(Date.now() + offset),
    listen: { host: '127.0.0.1', port: 0 },
    ...extra,
  });
  const url = core.listener.status().url ?? '';
  await createSettingsService(core).update({ baseUrl: url, username, displayName: 'Alice Example', summary: 'Writes *things*.' });
  return {
    core,
    url,
    setClockOffset: (ms) => {
      offset = ms;
    },
    async close() {
      await core.listener.stop();
      core.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function incomingCount(core: Core): number {
  return core.db.select({ n: count() }).from(incomingActivity).get()?.n ?? 0;
}

/** Stores a remote actor as a follower, as the inbox processor would after a Follow. */
/** A refused request's status and reason, checking that no incoming row was written. */
export async function refused(core: Core, response: Promise<Response>): Promise<{ status: number; error: string }> {
  const before = incomingCount(core);
  const res = await response;
  const body = (await res.json()) as { error: string };
  if (incomingCount(core) !== before) throw new Error(`a refused request stored ${incomingCount(core) - before} row(s)`);
  return { status: res.status, error: body.error };
}

export function addFollower(core: Core, actorId: string, inboxUrl = `${actorId}/inbox`, sharedInbox?: string): void {
  const now = core.clock();
  const doc = {
    id: actorId,
    type: 'Person',
    preferredUsername: 'someone',
    inbox: inboxUrl,
    ...(sharedInbox ? { endpoints: { sharedInbox } } : {}),
  };
  const row = core.db.insert(actor).values({ apId: actorId, apActor: doc, apType: 'Person', handle: null, createdAt: now, updatedAt: now }).returning().get();
  const followId = `${actorId}/follows/${row.id}`;
  const follow = core.db
    .insert(inbox)
    .values({
      createdAt: now,
      updatedAt: now,
      actorId: row.id,
      server: new URL(actorId).host,
      isHiddenFromStream: true,
      apActorId: actorId,
      apType: 'Follow',
      apId: followId,
      apPublishedAt: now,
      apObject: { id: followId, type: 'Follow', actor: actorId, object: core.identity()?.id ?? '' },
      visibility: 'DIRECT',
      isBookmarked: false,
      isDeleted: false,
      repliesCount: 0,
    })
    .returning()
    .get();
  core.db.insert(follower).values({ actorId: row.id, inboxObjectId: follow.id, apActorId: actorId, createdAt: now, updatedAt: now }).run();
}

export interface PostInput {
  content?: string;
  visibility?: Visibility;
  /** Addressing; default from the visibility (direct: nobody). */
  to?: string[];
  cc?: string[];
  type?: string;
  published?: Date;
  inReplyTo?: string;
  pinned?: boolean;
  deleted?: boolean;
  updated?: string;
}

/** Writes a local post through saveOutboxObject, as Compose does. */
export function addPost(core: Core, input: PostInput = {}): OutboxObject {
  const local = core.identity();
  if (local === null) throw new Error('no identity');
  const visibility = input.visibility ?? 'PUBLIC';
  const addressing: Record<Visibility, [string[], string[]]> = {
    PUBLIC: [[PUBLIC], [local.followers]],
    UNLISTED: [[local.followers], [PUBLIC]],
    FOLLOWERS_ONLY: [[local.followers], []],
    DIRECT: [[], []],
  };
  const [to, cc] = [input.to ?? addressing[visibility][0], input.cc ?? addressing[visibility][1]];
  const published = input.published ?? core.clock();
  const row = saveOutboxObject(core.db, local, {
    apObject: {
      // No @context, as Compose stores them: the listener serves each with AP_CONTEXT.
      type: input.type ?? 'Note',
      attributedTo: local.id,
      content: input.content ?? '<p>Hello</p>',
      published: published.toISOString(),
      to,
      cc,
      ...(input.inReplyTo ? { inReplyTo: input.inReplyTo } : {}),
      ...(input.updated ? { updated: input.updated } : {}),
    },
    visibility,
    now: published,
  });
  if (input.pinned || input.deleted) {
    core.sqlite.prepare('UPDATE outbox SET is_pinned = ?, is_deleted = ? WHERE id = ?').run(input.pinned ? 1 : 0, input.deleted ? 1 : 0, row.id);
  }
  return row;
}

// ---- mallory: actors whose keys the test holds ----------------------------------------------

export interface Mallory {
  server: LoopbackServer;
  actorId: string;
  keyId: string;
  keys: CryptoKeyPair;
  /** An actor whose document and key answer 410 Gone (a deleted account). */
  ghostId: string;
  ghostKeyId: string;
  /** Signs a POST of `body` to `url` with mallory's key (or another key under mallory's keyId);
   * `headers` are set before signing (a Digest of one's own, say: Fedify keeps it). */
  sign(
    url: string,
    body: string,
    options?: { spec?: HttpMessageSignaturesSpec; privateKey?: CryptoKey; keyId?: string; headers?: Record<string, string> },
  ): Promise<Request>;
}

export const newRsaKeys = () =>
  crypto.subtle.generateKey(
    { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    true,
    ['sign', 'verify'],
  );

/** `extra`: members added to Mallory's actor document (a document of some size, say). */
export async function startMallory(extra: Record<string, unknown> = {}): Promise<Mallory> {
  const keys = await newRsaKeys();
  const pem = await exportPublicKeyPem(keys.publicKey);
  const server = await startServer((req, res) => {
    const origin = `http://${req.headers.host ?? ''}`;
    if (req.url?.startsWith('/users/ghost')) return res.writeHead(410).end();
    if (req.url !== '/users/mallory') return res.writeHead(404).end();
    const id = `${origin}/users/mallory`;
    res.writeHead(200, { 'content-type': 'application/activity+json' }).end(
      JSON.stringify({
        '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
        id,
        type: 'Person',
        preferredUsername: 'mallory',
        inbox: `${id}/inbox`,
        publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem: pem },
        ...extra,
      }),
    );
  });
  const actorId = `${server.origin}/users/mallory`;
  return {
    server,
    actorId,
    keyId: `${actorId}#main-key`,
    keys,
    ghostId: `${server.origin}/users/ghost`,
    ghostKeyId: `${server.origin}/users/ghost#main-key`,
    sign(url, body, options = {}) {
      const request = new Request(url, { method: 'POST', headers: { 'content-type': 'application/activity+json', ...options.headers }, body });
      return signRequest(request, options.privateKey ?? keys.privateKey, new URL(options.keyId ?? `${actorId}#main-key`), {
        spec: options.spec ?? 'rfc9421',
      });
    },
  };
}

/** Sends a signed Request as is (headers and body), to another URL if given. */
export async function send(request: Request, changes: { url?: string; body?: string; headers?: Record<string, string> } = {}): Promise<Response> {
  const headers = new Headers(request.headers);
  for (const [k, v] of Object.entries(changes.headers ?? {})) headers.set(k, v);
  const body = changes.body ?? (await request.clone().text());
  return fetch(changes.url ?? request.url, { method: request.method, headers, body });
}
