// The author's picture and header image end to end: chosen through settings.update (an upload id,
// validated), kept in the settings file, published as the actor's icon and image, served publicly
// by the listener (and only these unattached uploads), used as the h-card's u-photo, kept by the
// sweep of unused uploads, and announced to followers with an Update of the actor. A Fedify peer
// reads the actor and fetches the picture.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Image, Person } from '@fedify/vocab';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outbox, outgoingActivity, upload } from '../../../db/schema';
import { startPeer, type Peer } from '../../../test/peer/peer';
import { createHandlers, dispatch, type Handlers } from '../ipc/handlers';
import type { UploadView } from '../ipc/media-contract';
import { addFollower, openListeningCore, type ListeningCore } from '../listener/test-support';
import { createSettingsStore, settingsSchema } from '../settings';
import type { SettingsUpdateResult, SettingsView } from '../settings-service';
import { uploadPath } from './store';
import { PROFILE_IMAGE_MAX_MB, PROFILE_IMAGE_TYPES } from '../../../renderer/settings/profileImage';
import { IMAGE_TYPES, MAX_IMAGE_BYTES } from './limits';
import { photo } from './test-images';

let t: ListeningCore;
let handlers: Handlers;
let peer: Peer;

beforeAll(async () => {
  [t, peer] = await Promise.all([openListeningCore(), startPeer({ name: 'watcher' })]);
  handlers = createHandlers(t.core);
});
afterAll(async () => {
  await peer?.close();
  await t?.close();
});

const call = (channel: string, input: unknown) => dispatch(handlers, channel, input, (e) => console.error(e));
async function ok<T>(channel: string, input: unknown): Promise<T> {
  const r = await call(channel, input);
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value as T;
}

async function uploaded(bytes: Buffer, contentType: string): Promise<UploadView> {
  const { uploadId } = await ok<{ uploadId: string }>('media.uploadBegin', { contentType, size: bytes.byteLength });
  await ok('media.uploadChunk', { uploadId, offset: 0, data: bytes.toString('base64') });
  return ok<UploadView>('media.uploadFinish', { uploadId });
}

const get = (path: string, init: RequestInit = {}) => fetch(new URL(path, t.url), init);
const actorJson = async (): Promise<Record<string, unknown>> =>
  (await get('/', { headers: { accept: 'application/activity+json' } })).json() as Promise<Record<string, unknown>>;

describe('the settings fields', () => {
  it('accept a stored image upload or null, and refuse anything else', () => {
    const image = { id: 3, hash: 'a'.repeat(64), contentType: 'image/png' };
    expect(settingsSchema.parse({}).avatar).toBeNull();
    expect(settingsSchema.parse({ avatar: image, header: null })).toMatchObject({ avatar: image, header: null });
    expect(settingsSchema.safeParse({ avatar: { ...image, contentType: 'video/mp4' } }).success).toBe(false);
    expect(settingsSchema.safeParse({ header: { ...image, hash: '../../etc/passwd' } }).success).toBe(false);
    expect(settingsSchema.safeParse({ avatar: { ...image, extra: 1 } }).success).toBe(false);
  });

  it('the Settings screen checks files against the same types and cap as the core', () => {
    expect([...PROFILE_IMAGE_TYPES]).toEqual([...IMAGE_TYPES]);
    expect(PROFILE_IMAGE_MAX_MB * 1024 * 1024).toBe(MAX_IMAGE_BYTES);
  });

  it('survive a restart: the settings file is read back with them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tern-profile-images-'));
    try {
      const image = { id: 7, hash: 'c'.repeat(64), contentType: 'image/webp' as const };
      createSettingsStore(join(dir, 'settings.json')).update({ avatar: image });
      const reopened = createSettingsStore(join(dir, 'settings.json')).get();
      expect(reopened).toMatchObject({ avatar: image, header: null });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('settings.update refuses an unknown upload, a non-image upload and a malformed id, saving nothing', async () => {
    const before = t.core.settings.get();
    expect(await call('settings.update', { avatar: 999_999 })).toMatchObject({
      ok: false,
      error: { code: 'bad_input', message: 'The picture is not an upload Tern has (upload it again).' },
    });
    expect(await call('settings.update', { header: 'abc' })).toMatchObject({ ok: false, error: { code: 'bad_input' } });
    expect(await call('settings.update', { avatar: -1 })).toMatchObject({ ok: false, error: { code: 'bad_input' } });
    // An audio file stored as an upload (the pipeline takes it for posts) is no picture.
    const [row] = t.core.db
      .insert(upload)
      .values({ contentType: 'audio/mpeg', contentHash: 'b'.repeat(64), hasThumbnail: false, createdAt: new Date() })
      .returning()
      .all();
    expect(await call('settings.update', { header: row!.id })).toMatchObject({
      ok: false,
      error: { code: 'bad_input', message: 'The header image must be an image (JPEG, PNG, WebP, GIF or AVIF).' },
    });
    t.core.db.delete(upload).where(eq(upload.id, row!.id)).run();
    expect(t.core.settings.get()).toEqual(before);
  });
});

describe('without a picture', () => {
  it('the actor has no icon or image; the u-photo is the initials SVG', async () => {
    const person = await actorJson();
    expect(person).not.toHaveProperty('icon');
    expect(person).not.toHaveProperty('image');
    const page = await (await get('/')).text();
    expect(page).toContain(`class="u-photo" src="${t.url}/avatar.svg"`);
    const svg = await get('/avatar.svg');
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
  });
});

describe('with a picture and a header image', () => {
  let avatar: UploadView;
  let header: UploadView;
  let loose: UploadView;
  let result: SettingsUpdateResult;

  beforeAll(async () => {
    addFollower(t.core, 'https://remote.example/users/bob', 'https://remote.example/users/bob/inbox', 'https://remote.example/inbox');
    [avatar, header, loose] = [
      await uploaded(await photo(64, 64, 'png'), 'image/png'),
      await uploaded(await photo(300, 100, 'jpeg'), 'image/jpeg'),
      await uploaded(await photo(40, 40, 'webp'), 'image/webp'),
    ];
    result = await ok<SettingsUpdateResult>('settings.update', { avatar: avatar.id, header: header.id });
  });

  it('are kept in the settings file and shown to the Settings screen', async () => {
    expect(t.core.settings.get().avatar).toEqual({ id: avatar.id, hash: avatar.contentHash, contentType: 'image/png' });
    expect(t.core.settings.get().header).toEqual({ id: header.id, hash: header.contentHash, contentType: 'image/jpeg' });
    const view = await ok<SettingsView>('settings.get', {});
    expect(view).toMatchObject({ avatarSrc: `/media/local/${avatar.contentHash}`, headerSrc: `/media/local/${header.contentHash}` });
  });

  it('the actor publishes them as icon and image', async () => {
    const person = await actorJson();
    expect(person.icon).toEqual({ type: 'Image', mediaType: 'image/png', url: `${t.url}/media/${avatar.contentHash}/avatar.png` });
    expect(person.image).toEqual({ type: 'Image', mediaType: 'image/jpeg', url: `${t.url}/media/${header.contentHash}/header.jpg` });
  });

  it('an Update of the actor carrying the new icon is queued for the followers', () => {
    expect(result.profileUpdate).toMatchObject({ recipients: 1 });
    const row = t.core.db.select().from(outbox).where(eq(outbox.id, result.profileUpdate!.outboxObjectId)).get()!;
    expect(row.apObject).toMatchObject({
      type: 'Update',
      object: { type: 'Person', icon: { url: `${t.url}/media/${avatar.contentHash}/avatar.png` }, updated: result.profileUpdatedAt },
    });
    const deliveries = t.core.db.select().from(outgoingActivity).where(eq(outgoingActivity.outboxObjectId, row.id)).all();
    expect(deliveries.map((d) => d.recipient)).toEqual(['https://remote.example/inbox']);
  });

  it('the listener serves both to anyone (200, their type), and still refuses an unrelated unattached upload', async () => {
    const a = await get(`/media/${avatar.contentHash}/avatar.png`);
    expect(a.status).toBe(200);
    expect(a.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await a.arrayBuffer()).subarray(1, 4).toString('latin1')).toBe('PNG');
    const h = await get(`/media/${header.contentHash}/header.jpg`);
    expect(h.status).toBe(200);
    expect(h.headers.get('content-type')).toBe('image/jpeg');
    await h.arrayBuffer();
    expect((await get(`/media/${loose.contentHash}/x.webp`)).status).toBe(404);
    expect((await get(`/media/thumbnails/${loose.contentHash}`)).status).toBe(404);
  });

  it('the h-card’s u-photo is the picture, and /avatar.svg redirects to it', async () => {
    const page = await (await get('/')).text();
    expect(page).toContain(`class="u-photo" src="${t.url}/media/${avatar.contentHash}/avatar.png"`);
    const svg = await get('/avatar.svg', { redirect: 'manual' });
    expect(svg.status).toBe(302);
    expect(svg.headers.get('location')).toBe(`${t.url}/media/${avatar.contentHash}/avatar.png`);
  });

  it('a Fedify peer reads the actor and sees the icon and image, and can fetch the picture', async () => {
    const actor = await peer.lookup(t.url, { signed: false });
    expect(actor).toBeInstanceOf(Person);
    const icon = await (actor as Person).getIcon();
    expect(icon).toBeInstanceOf(Image);
    expect(icon?.mediaType).toBe('image/png');
    expect((icon?.url as URL | null)?.href).toBe(`${t.url}/media/${avatar.contentHash}/avatar.png`);
    const image = await (actor as Person).getImage();
    expect((image?.url as URL | null)?.href).toBe(`${t.url}/media/${header.contentHash}/header.jpg`);
    const res = await peer.fetchMedia((icon?.url as URL).href);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
  });

  it('the sweep of unused uploads keeps them; deleting a post that also used the picture keeps it', async () => {
    const post = await t.core.services.author.createPost({ content: 'me', visibility: 'PUBLIC', attachments: [{ uploadId: avatar.id, alt: 'me' }] });
    t.core.services.author.deletePost(post.apId);
    expect(existsSync(uploadPath(t.core.paths.uploads, avatar.contentHash))).toBe(true);
    // Three days on, the media service's hourly sweep (run when an upload begins) removes the
    // unattached upload nobody chose, and keeps the two profile images.
    t.setClockOffset(3 * 24 * 60 * 60_000);
    try {
      await ok('media.uploadBegin', { contentType: 'image/png', size: 10 });
    } finally {
      t.setClockOffset(0);
    }
    expect(t.core.db.select().from(upload).where(eq(upload.id, header.id)).get()).toBeDefined();
    expect(t.core.db.select().from(upload).where(eq(upload.id, avatar.id)).get()).toBeDefined();
    expect(t.core.db.select().from(upload).where(eq(upload.id, loose.id)).get()).toBeUndefined();
    expect((await get(`/media/${avatar.contentHash}/avatar.png`)).status).toBe(200);
  });

  it('removing the picture takes icon and u-photo away, stops serving it, and tells the followers', async () => {
    const removed = await ok<SettingsUpdateResult>('settings.update', { avatar: null });
    expect(removed.profileUpdate).toMatchObject({ recipients: 1 });
    const update = t.core.db.select().from(outbox).where(eq(outbox.id, removed.profileUpdate!.outboxObjectId)).get()!;
    expect((update.apObject as { object: Record<string, unknown> }).object).not.toHaveProperty('icon');
    expect((update.apObject as { object: Record<string, unknown> }).object).toHaveProperty('image');
    const person = await actorJson();
    expect(person).not.toHaveProperty('icon');
    expect((await get(`/media/${avatar.contentHash}/avatar.png`)).status).toBe(404);
    expect((await get('/avatar.svg')).headers.get('content-type')).toBe('image/svg+xml');
    // Choosing the same header again is no change: nothing more to tell anyone.
    expect((await ok<SettingsUpdateResult>('settings.update', { header: header.id })).profileUpdate).toBeNull();
  });
});
