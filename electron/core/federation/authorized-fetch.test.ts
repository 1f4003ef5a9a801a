// Servers in "authorized fetch" mode serve accounts and posts only to signed GETs (GoToSocial
// always: internal/processing/fedi/user.go serves only the bare key unsigned; Mastodon with
// AUTHORIZED_FETCH). A Fedify test peer in that mode verifies Tern's signature for real (it
// fetches Tern's key from Tern's listener) and answers 401 otherwise. Tern signs the GETs its
// processor and look-ups make when refused unsigned (net/document-fetch.ts).
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { following, inbox } from '../../../db/schema';
import { startPeer, type Peer } from '../../../test/peer/peer';
import { openAuthorRig, type AuthorRig } from './actions/test-rig';

let rig: AuthorRig;
let gts: Peer; // authorized fetch
let fan: Peer; // an ordinary server, followed by the author, who boosts gts
const log: string[] = [];

beforeAll(async () => {
  [rig, gts, fan] = await Promise.all([
    openAuthorRig(),
    startPeer({ name: 'gts', authorizedFetch: true, log: (line) => log.push(line) }),
    startPeer({ name: 'fan' }),
  ]);
});

afterAll(async () => {
  await Promise.all([gts?.close(), fan?.close()]);
  await rig?.close();
});

const signedGets = () => log.filter((line) => line.startsWith('GET ') && line.includes('signed by'));

describe('servers that serve only signed GETs', () => {
  it('the peer refuses an unsigned GET (what Tern got before it signed)', async () => {
    const unsigned = await fetch(gts.actorId, { headers: { accept: 'application/activity+json' } });
    expect(unsigned.status).toBe(401);
  });

  it('looking up such an account finds it: the GETs are signed as the author, and verified', async () => {
    const found = await rig.author.lookup(gts.actorId);
    expect(found).toMatchObject({ kind: 'actor', actor: { apId: gts.actorId, name: 'Peer gts' } });
    const local = rig.core.identity()!;
    expect(signedGets().length).toBeGreaterThan(0);
    expect(signedGets().every((line) => line.endsWith(`signed by ${new URL(local.id).href}`))).toBe(true);
  });

  it('a followed account boosts one of its posts: the post and its author are fetched signed, and it shows', async () => {
    const { noteId } = await gts.createNote({ content: '<p>only for signed readers</p>' });
    await rig.author.follow(fan.actorId);
    await vi.waitFor(() => expect(rig.core.db.select().from(following).where(eq(following.apActorId, fan.actorId)).get()).toBeTruthy(), { timeout: 10_000 });
    const before = signedGets().length;
    await fan.announce(noteId, gts.actorId);
    await vi.waitFor(() => expect(rig.core.db.select().from(inbox).where(eq(inbox.apId, noteId)).get()).toBeTruthy(), { timeout: 10_000 });
    await vi.waitFor(() => expect(rig.author.stream({}).items.map((p) => p.apId)).toContain(noteId), { timeout: 10_000 });
    expect(signedGets().slice(before).some((line) => line.startsWith(`GET ${new URL(noteId).pathname}:`))).toBe(true);
    // Asked signed at once the next time: no unsigned request wasted on a server known to refuse it.
    const refusedBefore = log.filter((line) => line.includes('refused')).length;
    await expect(rig.author.lookup(noteId)).resolves.toMatchObject({ kind: 'post', post: { apId: noteId } });
    expect(log.filter((line) => line.includes('refused')).length).toBe(refusedBefore);
  });
});
