// The "proof" corpus (issue 11): every payload shape of test/fixtures/real/ — reproduced field by
// field from captures other servers' projects keep in their repositories (SOURCES.md) — goes
// through the REAL signed inbox of one running core and must come out right in the views the
// author reads: the stream, a thread, a look-up, notifications, people. Each fixture's actors and
// objects are served from loopback servers (test/real/harness.ts); `expect` says what the author
// must see, or why the activity must be refused.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idsOf, type Json } from '../electron/core/federation/ap';
import { REAL_DIR, fixtureNames, openCorpusRig, readFixture, type CorpusRig, type Prepared, type Sent } from './real/harness';
import { inboxRow, normalizeWant, projectPost, subjectOf, wholeStream } from './real/views';

let rig: CorpusRig;

beforeAll(async () => {
  rig = await openCorpusRig();
});

afterAll(async () => {
  await rig?.close();
});

/** Sent and processed: 202, a row, done without an error (or refused with the reason wanted). */
function expectDone(p: Prepared, sent: Sent, refused?: string): void {
  expect(sent.status, `listener: ${sent.error ?? ''}`).toBe(202);
  expect(sent.row, 'an incoming_activity row').toBeDefined();
  const row = sent.row!;
  expect(row.isErrored).toBe(false);
  if (refused === undefined) {
    expect({ processed: row.isProcessed, error: row.error }, `${p.name}: ${row.error ?? ''}`).toEqual({ processed: true, error: null });
  } else {
    expect(row.isProcessed).toBe(true);
    expect(row.error ?? '').toContain(p.rewrite(refused));
  }
}

async function checkView(p: Prepared, want: Json, where: 'stream' | 'thread' | 'lookup'): Promise<void> {
  const apId = (want.apId as string | undefined) ?? subjectOf(p.live.activity);
  expect(apId, 'the object the view is about').toBeTruthy();
  const { author } = rig.core.services;
  let view;
  if (where === 'stream') {
    const stream = wholeStream(rig.core);
    view = stream.find((v) => v.apId === apId);
    expect(view, `${apId} in the stream (has ${stream.length} items)`).toBeDefined();
  } else if (where === 'thread') {
    view = (await author.thread(apId!)).post;
  } else {
    const found = await author.lookup(apId!);
    expect(found.kind).toBe('post');
    view = found.kind === 'post' ? found.post : undefined;
  }
  const seen = projectPost(view!, want);
  expect(seen, `seen: ${JSON.stringify(seen)}`).toEqual(normalizeWant(want));
}

async function check(p: Prepared, sent: Sent): Promise<void> {
  const want = p.live.expect;
  const actorId = idsOf(p.live.activity.actor)[0]!;
  if (want.rejected) {
    expect({ status: sent.status, error: sent.error }).toEqual(want.rejected);
    return;
  }
  expectDone(p, sent, want.refused as string | undefined);
  if (want.stream) await checkView(p, want.stream as Json, 'stream');
  if (want.thread) await checkView(p, want.thread as Json, 'thread');
  if (want.lookup) await checkView(p, want.lookup as Json, 'lookup');
  if (want.notification) {
    const wanted = typeof want.notification === 'string' ? { type: want.notification } : (want.notification as Json);
    const items = rig.core.services.notifications.list({ limit: 500 }).items.filter((n) => n.actor?.apId === actorId);
    const got = items.map((n) => ({
      type: n.type,
      ...('object' in wanted ? { object: n.outboxObject?.apId ?? n.inboxObject?.apId } : {}),
      ...('actor' in wanted ? { actor: n.actor?.handle } : {}),
    }));
    expect(got).toContainEqual(wanted);
  }
  if ('follower' in want) {
    const followers = rig.core.services.author.people().followers.map((f) => f.actor.apId);
    expect(followers.includes(actorId), `${actorId} among followers`).toBe(want.follower);
  }
  if ('following' in want) {
    const followed = rig.core.services.author.people().following.map((f) => f.actor.apId);
    expect(followed.includes(actorId), `${actorId} among followed`).toBe(want.following);
  }
  if (want.deleted) {
    const apId = want.deleted === true ? subjectOf(p.live.activity)! : (want.deleted as string);
    expect(inboxRow(rig.core, apId)?.isDeleted, `${apId} deleted`).toBe(true);
    expect(wholeStream(rig.core).some((v) => v.apId === apId)).toBe(false);
  }
  if (want.stored) {
    const s = want.stored as Json;
    const apId = (s.apId as string | undefined) ?? (p.live.activity.id as string);
    expect({ type: inboxRow(rig.core, apId)?.apType }).toEqual({ type: s.type });
  }
}

describe('real payloads through the signed inbox', () => {
  const names = fixtureNames();

  it('has the corpus: at least 110 captures of at least 14 kinds of server, each named in SOURCES.md with its origin', () => {
    expect(names.length).toBeGreaterThanOrEqual(110);
    expect(new Set(names.map((n) => n.split('-')[0])).size).toBeGreaterThanOrEqual(14);
    const sources = readFileSync(new URL('SOURCES.md', REAL_DIR), 'utf8');
    for (const name of names) {
      const { source } = readFixture(name);
      expect(source, name).toMatch(/^[\w.-]+\/[\w.-]+\/\S+/);
      expect(sources, name).toContain(`| \`${name}\` | \`${source}\` |`);
    }
  });

  const run = async (name: string) => {
    const p = await rig.prepare(name);
    await rig.arrange(p);
    for (const earlier of p.live.before ?? []) expectDone(p, await rig.send(p, earlier));
    await check(p, await rig.send(p, p.live.activity));
  };
  // A fixture that shows a bug of Tern's (`knownBug` says which) fails the way `knownBugShows`
  // says until the bug is fixed; then this test fails, and the two markers are to be removed.
  const bugs = new Set(names.filter((n) => readFixture(n).knownBug));
  it.each(names.filter((n) => !bugs.has(n)))('%s', run);
  it.each([...bugs])('%s (known bug)', async (name) => {
    const error = await run(name).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error, 'the bug is fixed: remove knownBug from the fixture').toBeInstanceOf(Error);
    expect((error as Error).message).toContain(readFixture(name).knownBugShows ?? '');
  });
});
