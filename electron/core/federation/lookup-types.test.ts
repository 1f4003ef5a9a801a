// Look-up (and threads, which look parents up) of posts real servers publish, with the same
// author rule as the inbox (objects.ts authorOf): PeerTube's attributedTo [Person, Group] as
// objects or as ids channel-first, Mobilizon's group event with its organiser in `actor`; what
// has no author, or is not a post, is refused with a sentence. Shapes after PeerTube's video
// object and Mobilizon's event converter; the text is ours.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC, type Json } from './ap';
import { startSoftwareServer, type SoftwareServer } from './process/software-servers';
import { openRig, type Rig } from './process/test-rig';

let pt: SoftwareServer;
let mz: SoftwareServer;
let rig: Rig;
beforeAll(async () => {
  [pt, mz] = await Promise.all([startSoftwareServer(), startSoftwareServer()]);
});
afterAll(() => Promise.all([pt.server.close(), mz.server.close()]));
afterEach(() => rig?.close());

const lookup = (q: string) => rig.core.services.author.lookup(q);
let n = 0;

function video(attributedTo: unknown, extra: Json = {}): { id: string; doc: Json } {
  const id = `${pt.origin}/videos/watch/v${++n}`;
  const doc = {
    id,
    type: 'Video',
    name: `Video ${n}`,
    content: 'A description in Markdown.',
    mediaType: 'text/markdown',
    attributedTo,
    url: [
      { type: 'Link', mediaType: 'text/html', href: `${pt.origin}/w/v${n}` },
      { type: 'Link', mediaType: 'video/mp4', href: `${pt.origin}/static/web-videos/v${n}-480.mp4`, height: 480 },
    ],
    published: '2025-01-10T10:00:00Z',
    to: [PUBLIC],
    ...extra,
  };
  pt.put(id, doc);
  return { id, doc };
}

describe('look-up of real post types', () => {
  it('a PeerTube Video credited to [Person, Group] objects: found, by the account, with title and page', async () => {
    rig = await openRig();
    const account = pt.actor(`/accounts/a${++n}`, 'Person', `a${n}`);
    const channel = pt.actor(`/video-channels/c${n}`, 'Group', `c${n}`);
    const { id } = video([
      { type: 'Person', id: account },
      { type: 'Group', id: channel },
    ]);
    const found = await lookup(id);
    expect(found).toMatchObject({ kind: 'post', post: { apId: id, type: 'Video', title: `Video ${n}`, url: `${pt.origin}/w/v${n}`, author: { apId: account } } });
    expect(rig.inboxRow(id)!.apActorId).toBe(account);
  });

  it('listed by ids, channel first: the channel turns out a Group and the account is the author', async () => {
    rig = await openRig();
    const account = pt.actor(`/accounts/a${++n}`, 'Person', `a${n}`);
    const channel = pt.actor(`/video-channels/c${n}`, 'Group', `c${n}`);
    const { id } = video([channel, account]);
    expect(await lookup(id)).toMatchObject({ kind: 'post', post: { author: { apId: account } } });
  });

  it('looked up again through its page, a stored Video is the same row, refreshed from its server', async () => {
    rig = await openRig();
    const account = pt.actor(`/accounts/a${++n}`, 'Person', `a${n}`);
    const { id, doc } = video([{ type: 'Person', id: account }]);
    const first = await lookup(id);
    pt.put(`/w/v${n}`, { ...doc, name: 'Renamed', updated: '2025-01-11T10:00:00Z' });
    const again = await lookup(`${pt.origin}/w/v${n}`);
    expect(again).toMatchObject({ kind: 'post', post: { id: first.kind === 'post' ? first.post.id : -1, title: 'Renamed' } });
    expect(rig.inboxRow(id)!.apObject.name).toBe('Renamed');
  });

  it("a Mobilizon group's event: the organiser in `actor` is the author; a thread opens on it", async () => {
    rig = await openRig();
    const group = mz.actor(`/@club${++n}`, 'Group', `club${n}`);
    const organiser = mz.actor(`/@ana${n}`, 'Person', `ana${n}`);
    const id = `${mz.origin}/events/e${n}`;
    mz.put(id, { id, type: 'Event', name: 'Repair café', content: '<p>Bring a broken lamp.</p>', attributedTo: group, actor: organiser, startTime: '2025-02-01T14:00:00Z', url: id, to: [PUBLIC] });
    const thread = await rig.core.services.author.thread(id);
    expect(thread.post).toMatchObject({ apId: id, type: 'Event', title: 'Repair café', author: { apId: organiser } });
  });

  it('refuses what has no author, an author on another server, and what is not a post', async () => {
    rig = await openRig();
    const { id: orphan } = video(undefined);
    await expect(lookup(orphan)).rejects.toThrow(/has no author/);
    const { id: forged } = video([{ type: 'Person', id: `${mz.origin}/@someone` }]);
    await expect(lookup(forged)).rejects.toThrow(/claims an author on another server/);
    const gone = `${pt.origin}/videos/watch/gone`;
    pt.put(gone, { id: gone, type: 'Tombstone', formerType: 'Video' });
    await expect(lookup(gone)).rejects.toThrow(/is a Tombstone, not a post/);
  });
});
