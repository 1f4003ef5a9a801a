import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, isNull } from 'drizzle-orm';
import { actor, following, notifications, outbox, outgoingActivity } from '../../../../db/schema';
import { summarizeActor } from '../actor-summary';
import { findActor, getOrFetchActor } from '../actors';
import type { Json } from '../ap';
import { countRows, openRig, startRemotes, type Remotes, type Rig } from './test-rig';

let remotes: Remotes;
let rig: Rig;
beforeAll(async () => {
  remotes = await startRemotes();
});
afterAll(() => remotes.close());
afterEach(() => rig?.close());

const alice = () => String(remotes.fixture('actors/mastodon-alice.json').id);
const newAlice = () => `${remotes.servers['mastodon.example'].server.origin}/users/alice_new`;

/** alice's new account on the same server; `aliases` is what its alsoKnownAs lists. */
function serveNewAlice(aliases: unknown): void {
  const doc = remotes.fixture('actors/mastodon-alice.json');
  const id = newAlice();
  remotes.servers['mastodon.example'].put(id, {
    ...doc,
    id,
    preferredUsername: 'alice_new',
    inbox: `${id}/inbox`,
    outbox: `${id}/outbox`,
    followers: `${id}/followers`,
    following: `${id}/following`,
    url: `${remotes.servers['mastodon.example'].server.origin}/@alice_new`,
    publicKey: { ...(doc.publicKey as Json), id: `${id}#main-key`, owner: id },
    ...(aliases === undefined ? {} : { alsoKnownAs: aliases }),
  });
}

const moveOf = (id: string, object = alice(), target = newAlice()) => ({
  '@context': 'https://www.w3.org/ns/activitystreams',
  id,
  type: 'Move',
  actor: alice(),
  object,
  target,
});

const typeless = () => rig.core.db.select().from(notifications).where(isNull(notifications.notificationType)).all();

describe('incoming Move', () => {
  it('from someone we follow, to an account that lists the old one: Undo(Follow) to the old, Follow to the new, a typeless notification', async () => {
    rig = await openRig();
    // alice's own document will say where she went; the new account lists her with a trailing slash.
    remotes.servers['mastodon.example'].put(alice(), { ...remotes.fixture('actors/mastodon-alice.json'), movedTo: newAlice() });
    serveNewAlice([`${alice()}/`, 'https://elsewhere.example/users/a']);
    const old = await rig.follow(alice());
    const ourFollow = rig.core.db.select().from(outbox).where(eq(outbox.apType, 'Follow')).get()!;

    const row = await rig.receive(moveOf(`${alice()}#moves/1`));
    expect(row).toMatchObject({ isProcessed: true, isErrored: false, error: null });
    const move = rig.inboxRow(`${alice()}#moves/1`)!;
    expect(move).toMatchObject({ apType: 'Move', actorId: old.id });

    const undo = rig.core.db.select().from(outbox).where(eq(outbox.apType, 'Undo')).get()!;
    expect(undo.apObject).toMatchObject({ type: 'Undo', actor: rig.local.id, object: { id: ourFollow.apId, type: 'Follow' } });
    expect(rig.outboxRow(ourFollow.id)).toMatchObject({ undoneByOutboxObjectId: undo.id, isDeleted: true });
    const follows = rig.core.db.select().from(outbox).where(and(eq(outbox.apType, 'Follow'), eq(outbox.activityObjectApId, newAlice()))).all();
    expect(follows).toHaveLength(1);
    expect(follows[0]!.apObject).toMatchObject({ type: 'Follow', actor: rig.local.id, object: newAlice() });

    const deliveries = rig.core.db.select().from(outgoingActivity).all();
    expect(deliveries.map((d) => [d.outboxObjectId, d.recipient]).sort()).toEqual(
      [
        [undo.id, `${alice()}/inbox`],
        [follows[0]!.id, `${newAlice()}/inbox`],
      ].sort(),
    );
    // No longer following the old account; the new one is a request until it accepts.
    expect(rig.core.db.select().from(following).all()).toEqual([]);

    const target = findActor(rig.core.db, newAlice())!;
    expect(typeless()).toEqual([expect.objectContaining({ actorId: target.id, inboxObjectId: move.id, isNew: true })]);
    // The cached old account now carries its own movedTo (no new column: its stored document).
    const oldRow = rig.core.db.select().from(actor).where(eq(actor.apId, alice())).get()!;
    expect(oldRow.apActor.movedTo).toBe(newAlice());
    // …which the People view and the look-up show ("Moved to …").
    expect(summarizeActor(oldRow).movedTo).toBe(newAlice());
    expect(summarizeActor(target)).not.toHaveProperty('movedTo');
  });

  it('to an account that does not list the old one in alsoKnownAs is dropped with the reason: nothing stored or queued', async () => {
    rig = await openRig();
    serveNewAlice(['https://elsewhere.example/users/someone']);
    await rig.follow(alice());
    const row = await rig.receive(moveOf(`${alice()}#moves/2`));
    expect(row).toMatchObject({ isProcessed: true, isErrored: false, nextTry: null });
    expect(row.error).toMatch(/does not list .* in alsoKnownAs/);
    expect(rig.inboxRow(`${alice()}#moves/2`)).toBeUndefined();
    expect(countRows(rig.core, 'outgoing_activity')).toBe(0);
    expect(countRows(rig.core, 'following')).toBe(1);
    expect(typeless()).toEqual([]);
  });

  it('from someone we do not follow is stored, and nothing is sent', async () => {
    rig = await openRig();
    serveNewAlice(alice());
    const row = await rig.receive(moveOf(`${alice()}#moves/3`));
    expect(row).toMatchObject({ isProcessed: true, error: null });
    expect(rig.inboxRow(`${alice()}#moves/3`)).toMatchObject({ apType: 'Move' });
    expect(countRows(rig.core, 'outbox')).toBe(0);
    expect(countRows(rig.core, 'outgoing_activity')).toBe(0);
    expect(countRows(rig.core, 'notifications')).toBe(0);
  });

  it('a follow request still pending with the old account is withdrawn and made to the new one', async () => {
    rig = await openRig();
    serveNewAlice([alice()]);
    const old = await rig.follow(alice());
    // Not accepted yet: our Follow stands, no following row.
    rig.core.db.delete(following).where(eq(following.actorId, old.id)).run();
    const row = await rig.receive(moveOf(`${alice()}#moves/8`));
    expect(row.error).toBeNull();
    const recipients = rig.core.db.select().from(outgoingActivity).all().map((o) => o.recipient).sort();
    expect(recipients).toEqual([`${alice()}/inbox`, `${newAlice()}/inbox`]);
    const undo = rig.core.db.select().from(outbox).where(eq(outbox.apType, 'Undo')).all();
    expect(undo).toHaveLength(1);
    expect(rig.core.db.select().from(outbox).where(and(eq(outbox.apType, 'Follow'), eq(outbox.activityObjectApId, newAlice()))).all()).toHaveLength(1);
    expect(typeless()).toHaveLength(1);
  });

  it('when the new account is already followed, only the Undo goes out', async () => {
    rig = await openRig();
    serveNewAlice([alice()]);
    await rig.follow(alice());
    await rig.follow(newAlice());
    const row = await rig.receive(moveOf(`${alice()}#moves/4`));
    expect(row.error).toBeNull();
    expect(rig.core.db.select().from(outbox).where(eq(outbox.activityObjectApId, newAlice())).all()).toHaveLength(1);
    expect(rig.core.db.select().from(outgoingActivity).all()).toEqual([expect.objectContaining({ recipient: `${alice()}/inbox` })]);
    expect(rig.core.db.select().from(following).all().map((f) => f.apActorId)).toEqual([newAlice()]);
    expect(typeless()).toHaveLength(1);
  });

  it('to an account on a blocked server is dropped before anything is fetched or sent', async () => {
    rig = await openRig({ blockedServers: ['gts.example'] });
    await rig.follow(alice());
    const row = await rig.receive(moveOf(`${alice()}#moves/8`, alice(), 'https://gts.example/users/zoe'));
    expect(row.error).toMatch(/blocked server \(gts\.example\)/);
    expect(countRows(rig.core, 'outgoing_activity')).toBe(0);
    expect(countRows(rig.core, 'following')).toBe(1);
  });

  it('of another actor than its sender is dropped', async () => {
    rig = await openRig();
    serveNewAlice([alice()]);
    await rig.follow(alice());
    const row = await rig.receive(moveOf(`${alice()}#moves/5`, 'https://elsewhere.example/users/bob'));
    expect(row).toMatchObject({ isProcessed: true, nextTry: null });
    expect(row.error).toMatch(/can only move itself/);
    expect(countRows(rig.core, 'outgoing_activity')).toBe(0);
    expect(countRows(rig.core, 'inbox')).toBe(0);
  });

  it('whose target cannot be reached now is retried, and went through once it answers; a target that does not exist is dropped', async () => {
    rig = await openRig();
    await rig.follow(alice());
    remotes.servers['mastodon.example'].put(newAlice(), 503);
    const row = await rig.receive(moveOf(`${alice()}#moves/6`));
    expect(row).toMatchObject({ isProcessed: false, isErrored: false, tries: 1 });
    expect(row.error).toMatch(/503/);
    expect(countRows(rig.core, 'outgoing_activity')).toBe(0);

    serveNewAlice([alice()]);
    rig.setNow(row.nextTry!);
    await rig.core.loops.inbox.drain();
    expect(rig.incoming(row.id)).toMatchObject({ isProcessed: true, tries: 2, error: null });
    expect(countRows(rig.core, 'outgoing_activity')).toBe(2);

    const gone = await rig.receive(moveOf(`${alice()}#moves/7`, alice(), `${remotes.servers['mastodon.example'].server.origin}/users/nobody`));
    expect(gone).toMatchObject({ isProcessed: true, nextTry: null });
    expect(gone.error).toMatch(/Move target unavailable/);
  });
});

describe('incoming Move: the target is read fresh, and a loop is refused', () => {
  const cacheNewAlice = () => getOrFetchActor({ db: rig.core.db, fed: rig.core.fed, clock: rig.core.clock }, newAlice());

  it('a cached copy of the new account that listed the old one is not believed: its server, asked now, no longer does', async () => {
    rig = await openRig();
    serveNewAlice([alice()]);
    await cacheNewAlice();
    // The alias is gone from the new account since (its owner took it back).
    serveNewAlice([]);
    await rig.follow(alice());
    const row = await rig.receive(moveOf(`${alice()}#moves/10`));
    expect(row.error).toMatch(/does not list .* in alsoKnownAs/);
    expect(countRows(rig.core, 'outgoing_activity')).toBe(0);
    expect(rig.core.db.select().from(following).all().map((f) => f.apActorId)).toEqual([alice()]);
  });

  it('when the new account’s server does not answer, the Move is retried — not dropped on the strength of an old cached copy without the alias', async () => {
    rig = await openRig();
    serveNewAlice([]);
    await cacheNewAlice();
    await rig.follow(alice());
    remotes.servers['mastodon.example'].put(newAlice(), 503);
    const row = await rig.receive(moveOf(`${alice()}#moves/11`));
    expect(row).toMatchObject({ isProcessed: false, isErrored: false, tries: 1 });
    expect(row.error).toMatch(/503/);

    serveNewAlice([alice()]);
    rig.setNow(row.nextTry!);
    await rig.core.loops.inbox.drain();
    expect(rig.incoming(row.id)).toMatchObject({ isProcessed: true, error: null });
    expect(rig.core.db.select().from(outbox).where(and(eq(outbox.apType, 'Follow'), eq(outbox.activityObjectApId, newAlice()))).all()).toHaveLength(1);
  });

  it('a Move back to an account that has itself moved away (A → B, then B → A) is refused: no loop of follows and unfollows', async () => {
    rig = await openRig();
    const aliceDoc = remotes.fixture('actors/mastodon-alice.json');
    remotes.servers['mastodon.example'].put(alice(), { ...aliceDoc, movedTo: newAlice(), alsoKnownAs: [newAlice()] });
    serveNewAlice([alice()]);
    await rig.follow(alice());
    expect((await rig.receive(moveOf(`${alice()}#moves/12`))).error).toBeNull();
    const sent = countRows(rig.core, 'outgoing_activity');

    // The new account "moves" back to the old one, which lists it — but says it moved away itself.
    await rig.follow(newAlice());
    const back = await rig.receive({ ...moveOf(`${newAlice()}#moves/1`, newAlice(), alice()), actor: newAlice() });
    expect(back).toMatchObject({ isProcessed: true, nextTry: null });
    expect(back.error).toMatch(/has moved itself/);
    expect(countRows(rig.core, 'outgoing_activity')).toBe(sent);
    expect(rig.core.db.select().from(following).all().map((f) => f.apActorId)).toEqual([newAlice()]);
    expect(typeless()).toHaveLength(1);
  });
});

describe('Undo(Block)', () => {
  it('marks the Block undone and deleted, restores nothing, and notifies nobody', async () => {
    rig = await openRig();
    await rig.follow(alice());
    await rig.receive({ id: `${alice()}#blocks/1`, type: 'Block', actor: alice(), object: rig.local.id });
    expect(countRows(rig.core, 'following')).toBe(0);
    const row = await rig.receive({ id: `${alice()}#blocks/1/undo`, type: 'Undo', actor: alice(), object: { id: `${alice()}#blocks/1`, type: 'Block' } });
    expect(row.error).toBeNull();
    const undo = rig.inboxRow(`${alice()}#blocks/1/undo`)!;
    expect(rig.inboxRow(`${alice()}#blocks/1`)).toMatchObject({ undoneByInboxObjectId: undo.id, isDeleted: true });
    expect(countRows(rig.core, 'following')).toBe(0);
    expect(countRows(rig.core, 'notifications')).toBe(0);
  });
});
