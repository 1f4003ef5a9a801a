// Test support for the inbox processor (not imported by production code): a real core on a temp
// data folder with a fake clock, and loopback HTTP servers standing in for the fixture servers
// (mastodon.example, misskey.example, gts.example, pleroma.example), serving the actor documents
// of test/fixtures/actors with every URL of theirs rewritten to the loopback origin. Activities
// are queued as the listener queues them (an incoming_activity row) and processed by draining
// the core's own inbox loop — no sleeps, no mocks of SQLite or HTTP.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { openCore, type Core } from '../../core';
import { following, inbox, incomingActivity, notifications, outbox, type Actor, type IncomingActivity, type NotificationType, type OutboxObject } from '../../../../db/schema';
import type { LoopbackServer } from '../../net/test-server';
import { getOrFetchActor } from '../actors';
import { actorIdOf, PUBLIC, type Json } from '../ap';
import type { LocalActor } from '../identity';
import { saveOutboxObject } from '../outbox-store';
import { serveDocuments } from './software-servers';

const FIXTURES = new URL('../../../../test/fixtures/', import.meta.url);
export const FIXTURE_HOSTS = ['mastodon.example', 'misskey.example', 'gts.example', 'pleroma.example'] as const;
export type FixtureHost = (typeof FIXTURE_HOSTS)[number];

export interface FixtureServer {
  host: FixtureHost;
  server: LoopbackServer;
  /** Serve a document at this URL's path (JSON), or answer with a status. */
  put(url: string, doc: Json | number): void;
}

export interface Remotes {
  servers: Record<FixtureHost, FixtureServer>;
  /** A fixture file (activities at the top level, or `actors/…`) with its hosts rewritten. */
  fixture(name: string): Json;
  /** Rewrites the fixture hosts in any text. */
  rewrite(text: string): string;
  close(): Promise<void>;
}

export async function startRemotes(): Promise<Remotes> {
  const docs = new Map<string, Json | number>(); // key: origin + path
  const servers = {} as Record<FixtureHost, FixtureServer>;
  for (const host of FIXTURE_HOSTS) {
    let origin = '';
    const server = await serveDocuments((path) => docs.get(`${origin}${path}`));
    origin = server.origin;
    servers[host] = {
      host,
      server,
      put: (url, doc) => docs.set(`${origin}${new URL(url).pathname}`, doc),
    };
  }
  const rewrite = (text: string) =>
    FIXTURE_HOSTS.reduce((t, host) => t.replaceAll(`https://${host}`, servers[host].server.origin), text);
  const fixture = (name: string) => JSON.parse(rewrite(readFileSync(new URL(name, FIXTURES), 'utf8'))) as Json;
  for (const file of readdirSync(new URL('actors/', FIXTURES))) {
    const doc = fixture(`actors/${file}`);
    const id = String(doc.id);
    const host = FIXTURE_HOSTS.find((h) => id.startsWith(servers[h].server.origin));
    if (host) servers[host].put(id, doc);
  }
  return {
    servers,
    fixture,
    rewrite,
    close: async () => {
      await Promise.all(FIXTURE_HOSTS.map((h) => servers[h].server.close()));
    },
  };
}

export interface Rig {
  core: Core;
  local: LocalActor;
  now(): Date;
  advance(ms: number): void;
  setNow(date: Date): void;
  /** Queues an activity as the listener does; sentBy defaults to its actor. */
  queue(activity: Json, options?: { sentBy?: string | null }): number;
  /** Queues and processes; returns the incoming_activity row afterwards. */
  receive(activity: Json, options?: { sentBy?: string | null }): Promise<IncomingActivity>;
  incoming(id: number): IncomingActivity;
  inboxRow(apId: string): typeof inbox.$inferSelect | undefined;
  outboxRow(id: number): OutboxObject;
  notificationsOf(type: NotificationType): (typeof notifications.$inferSelect)[];
  /** One of our posts, at /o/<publicId>. */
  ourPost(publicId: string, object?: Json): OutboxObject;
  /** Fetch-and-cache an actor, then record that the author follows it (an accepted Follow). */
  follow(actorId: string): Promise<Actor>;
  close(): Promise<void>;
}

export const START = new Date('2025-01-10T12:00:00.000Z');

export async function openRig(options: { manuallyApprovesFollowers?: boolean; blockedServers?: string[] } = {}): Promise<Rig> {
  const dir = mkdtempSync(join(tmpdir(), 'tern-inbox-'));
  let now = START;
  const core = await openCore({ dataDir: dir, mode: 'headless', clock: () => now, allowPrivateAddresses: true });
  core.settings.update({
    baseUrl: 'https://tern.example',
    username: 'author',
    manuallyApprovesFollowers: options.manuallyApprovesFollowers ?? false,
    blockedServers: options.blockedServers ?? [],
  });
  const local = core.identity()!;
  const { db } = core;

  const queue: Rig['queue'] = (activity, opts = {}) =>
    db
      .insert(incomingActivity)
      .values({
        createdAt: now,
        sentByApActorId: opts.sentBy === undefined ? actorIdOf(activity) : opts.sentBy,
        apId: typeof activity.id === 'string' ? activity.id : null,
        apObject: activity as IncomingActivity['apObject'],
        tries: 0,
        nextTry: now,
        isProcessed: false,
        isErrored: false,
      })
      .returning()
      .get().id;
  const incoming = (id: number) => db.select().from(incomingActivity).where(eq(incomingActivity.id, id)).get()!;

  const rig: Rig = {
    core,
    local,
    now: () => now,
    advance: (ms) => {
      now = new Date(now.getTime() + ms);
    },
    setNow: (date) => {
      now = date;
    },
    queue,
    async receive(activity, opts) {
      const id = queue(activity, opts);
      await core.loops.inbox.drain();
      return incoming(id);
    },
    incoming,
    inboxRow: (apId) => db.select().from(inbox).where(eq(inbox.apId, apId)).get(),
    outboxRow: (id) => db.select().from(outbox).where(eq(outbox.id, id)).get()!,
    notificationsOf: (type) => db.select().from(notifications).where(eq(notifications.notificationType, type)).all(),
    ourPost: (publicId, object = {}) =>
      saveOutboxObject(db, local, {
        publicId,
        apObject: { type: 'Note', attributedTo: local.id, content: '<p>A post by the author</p>', to: [PUBLIC], cc: [local.followers], ...object },
        visibility: 'PUBLIC',
        now,
      }),
    async follow(actorId) {
      const row = await getOrFetchActor({ db, fed: core.fed, clock: core.clock }, actorId);
      const ours = saveOutboxObject(db, local, {
        apObject: { type: 'Follow', actor: local.id, object: row.apId },
        visibility: 'DIRECT',
        now,
        activityObjectApId: row.apId,
        relatesToActorId: row.id,
      });
      const existing = db.select().from(following).where(and(eq(following.actorId, row.id))).get();
      if (!existing) db.insert(following).values({ actorId: row.id, apActorId: row.apId, outboxObjectId: ours.id, createdAt: now, updatedAt: now }).run();
      return row;
    },
    async close() {
      await core.loops.inbox.stop();
      core.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return rig;
}

/** Count of rows in a table, by SQL name (fixed names from tests only). */
export function countRows(core: Core, table: string): number {
  return (core.sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
}
