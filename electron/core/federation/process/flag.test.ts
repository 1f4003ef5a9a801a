import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eq, isNull } from 'drizzle-orm';
import { inbox, notifications } from '../../../../db/schema';
import { findActor } from '../actors';
import type { Json } from '../ap';
import { countRows, openRig, startRemotes, type Remotes, type Rig } from './test-rig';

let remotes: Remotes;
let rig: Rig;
beforeAll(async () => {
  remotes = await startRemotes();
  // Mastodon reports come from its instance actor (an Application at /actor).
  const alice = remotes.fixture('actors/mastodon-alice.json');
  const id = instanceActor();
  remotes.servers['mastodon.example'].put(id, {
    '@context': alice['@context'],
    id,
    type: 'Application',
    preferredUsername: 'mastodon.example',
    inbox: `${id}/inbox`,
    outbox: `${id}/outbox`,
    url: `${remotes.servers['mastodon.example'].server.origin}/about/more?instance_actor=true`,
    manuallyApprovesFollowers: true,
    publicKey: { ...(alice.publicKey as Json), id: `${id}#main-key`, owner: id },
  });
});
afterAll(() => remotes.close());
afterEach(() => rig?.close());

const instanceActor = () => `${remotes.servers['mastodon.example'].server.origin}/actor`;

/** Mastodon's Flag as it forwards a report: no id, `object` a list, the comment in `content`. */
const flagOf = (objects: string[], content = 'Spam, posted in every thread') => ({
  '@context': 'https://www.w3.org/ns/activitystreams',
  type: 'Flag',
  actor: instanceActor(),
  content,
  object: objects,
});

const flags = () => rig.core.db.select().from(inbox).where(eq(inbox.apType, 'Flag')).all();

describe('incoming Flag', () => {
  it('about our actor and post, without an id: stored under a synthetic id, a typeless notification with the reporting actor; a redelivery is a duplicate', async () => {
    rig = await openRig();
    const post = rig.ourPost('f1a9c0ffee01');
    const activity = flagOf([rig.local.id, post.apId]);
    const row = await rig.receive(activity);
    expect(row).toMatchObject({ apId: null, isProcessed: true, isErrored: false, error: null });

    const [flag] = flags();
    expect(flag).toMatchObject({ apActorId: instanceActor(), activityObjectApId: rig.local.id, relatesToOutboxObjectId: post.id });
    expect(flag!.apId.startsWith(`${instanceActor()}#tern-flag-`)).toBe(true);
    expect(flag!.apObject.content).toBe('Spam, posted in every thread');
    const reporter = findActor(rig.core.db, instanceActor())!;
    expect(rig.core.db.select().from(notifications).where(isNull(notifications.notificationType)).all()).toEqual([
      expect.objectContaining({ actorId: reporter.id, inboxObjectId: flag!.id, outboxObjectId: null, isNew: true }),
    ]);

    const again = await rig.receive(activity);
    expect(again.error).toBe('duplicate: already processed');
    expect(flags()).toHaveLength(1);
    expect(countRows(rig.core, 'notifications')).toBe(1);
  });

  it('about a post of ours only (with its id, as some servers send it) is stored and notified', async () => {
    rig = await openRig();
    const post = rig.ourPost('f1a9c0ffee02');
    const row = await rig.receive({ ...flagOf([post.apId], ''), id: `${instanceActor()}/reports/7` });
    expect(row.error).toBeNull();
    expect(rig.inboxRow(`${instanceActor()}/reports/7`)).toMatchObject({ apType: 'Flag', relatesToOutboxObjectId: post.id });
    expect(countRows(rig.core, 'notifications')).toBe(1);
  });

  it('about someone else’s posts is dropped with the reason: no row, no notification', async () => {
    rig = await openRig();
    const row = await rig.receive(flagOf(['https://elsewhere.example/users/bob', 'https://elsewhere.example/users/bob/statuses/1']));
    expect(row).toMatchObject({ isProcessed: true, isErrored: false, nextTry: null });
    expect(row.error).toMatch(/nothing of ours/);
    expect(flags()).toEqual([]);
    expect(countRows(rig.core, 'notifications')).toBe(0);
  });
});
