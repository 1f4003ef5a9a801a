// Media end to end inside Tern: uploading over the IPC contract in chunks, attaching uploads to
// posts (rows and ActivityPub), the listener serving them under the posts' visibility rules, and
// deleting posts — a real core with SQLite, sharp and the listener on loopback.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { signRequest } from '@fedify/fedify';
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outbox, outboxObjectAttachment, upload } from '../../../db/schema';
import { createHandlers, dispatch, type Handlers } from '../ipc/handlers';
import type { UploadView } from '../ipc/media-contract';
import { addFollower, openListeningCore, startMallory, type ListeningCore, type Mallory } from '../listener/test-support';
import { createListenerApp } from '../listener/app';
import { sweepUnattached } from './attachments';
import { uploadPath } from './store';
import { photo, sidewaysJpegWithGps } from './test-images';

let t: ListeningCore;
let handlers: Handlers;
let mallory: Mallory;

beforeAll(async () => {
  [t, mallory] = await Promise.all([openListeningCore(), startMallory()]);
  handlers = createHandlers(t.core);
});
afterAll(async () => {
  await mallory?.server.close();
  await t?.close();
});

const call = (channel: string, input: unknown) => dispatch(handlers, channel, input, (e) => console.error(e));

/** Uploads as the renderer does: begin, chunks of base64, finish. */
async function uploadFile(bytes: Buffer, contentType: string): Promise<{ ok: true; value: UploadView } | { ok: false; error: { code: string; message: string } }> {
  const begun = await call('media.uploadBegin', { contentType, size: bytes.byteLength });
  if (!begun.ok) return begun;
  const { uploadId, chunkBytes } = begun.value as { uploadId: string; chunkBytes: number };
  for (let offset = 0; offset < bytes.byteLength; offset += chunkBytes) {
    const sent = await call('media.uploadChunk', { uploadId, offset, data: bytes.subarray(offset, offset + chunkBytes).toString('base64') });
    if (!sent.ok) return sent;
  }
  return (await call('media.uploadFinish', { uploadId })) as { ok: true; value: UploadView };
}

async function uploaded(bytes: Buffer, contentType = 'image/jpeg'): Promise<UploadView> {
  const result = await uploadFile(bytes, contentType);
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${t.url}${path}`, { headers });
const mediaPath = (url: string) => new URL(url).pathname;
const attachmentsOf = (id: number) => t.core.db.select().from(outboxObjectAttachment).where(eq(outboxObjectAttachment.outboxObjectId, id)).all();

async function signedGet(url: string): Promise<Response> {
  const request = await signRequest(new Request(url, { method: 'GET', headers: { accept: '*/*' } }), mallory.keys.privateKey, new URL(mallory.keyId), { spec: 'rfc9421' });
  return fetch(request);
}

describe('uploading over IPC', () => {
  it('a 1.3 MB image arrives in three chunks and is stored once, cleaned, with its thumbnail', async () => {
    const bytes = await photo(1400, 1000, 'png');
    expect(bytes.byteLength).toBeGreaterThan(1024 * 1024);
    const view = await uploaded(bytes, 'image/png');
    expect(view).toMatchObject({ contentType: 'image/png', width: 1400, height: 1000, hasThumbnail: true, src: `/media/local/${view.contentHash}`, thumbSrc: `/media/local/${view.contentHash}/thumbnail` });
    const again = await uploaded(bytes, 'image/png');
    expect(again.id).toBe(view.id);
  });

  it('refuses a file over the cap before any byte is sent', async () => {
    const result = await call('media.uploadBegin', { contentType: 'image/png', size: 17 * 1024 * 1024 });
    expect(result).toMatchObject({ ok: false, error: { code: 'bad_input', message: 'This file is too large: images can be at most 16 MB.' } });
  });

  it('refuses more bytes than announced, and a chunk that is not base64', async () => {
    const begun = await call('media.uploadBegin', { contentType: 'image/png', size: 10 });
    const { uploadId } = (begun as { value: { uploadId: string } }).value;
    expect(await call('media.uploadChunk', { uploadId, offset: 0, data: '!!not base64!!' })).toMatchObject({ ok: false, error: { code: 'bad_input' } });
    expect(await call('media.uploadChunk', { uploadId, offset: 0, data: Buffer.alloc(11).toString('base64') })).toMatchObject({
      ok: false,
      error: { code: 'bad_input', message: 'The file sent is larger than announced; the upload was cancelled.' },
    });
    expect(await call('media.uploadFinish', { uploadId })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('a file whose bytes are not its type is refused with a sentence, and nothing is stored', async () => {
    const before = t.core.db.select().from(upload).all().length;
    const files = readdirSync(t.core.paths.uploads).length;
    const result = await uploadFile(Buffer.from('GIF89a but really a text file'), 'image/jpeg');
    expect(result).toMatchObject({ ok: false, error: { code: 'bad_input', message: 'This file is not the JPEG image it claims to be.' } });
    expect(t.core.db.select().from(upload).all()).toHaveLength(before);
    expect(readdirSync(t.core.paths.uploads)).toHaveLength(files);
  });
});

describe('posts with media', () => {
  it('federates an image as an Image attachment with mediaType, url, alt text, blurhash and size; links it in outbox_object_attachment', async () => {
    const image = await uploaded(await sidewaysJpegWithGps(80, 40));
    const post = await t.core.services.author.createPost({
      content: '',
      visibility: 'PUBLIC',
      attachments: [{ uploadId: image.id, alt: '  A tern diving  ', filename: '../../secret/IMG_0001.jpg' }],
    });
    const object = t.core.db.select().from(outbox).where(eq(outbox.id, post.id)).get()!.apObject;
    expect(object.attachment).toEqual([
      { type: 'Image', mediaType: 'image/jpeg', url: `${t.url}/media/${image.contentHash}/IMG_0001.jpg`, name: 'A tern diving', blurhash: image.blurhash, width: 40, height: 80 },
    ]);
    expect(attachmentsOf(post.id)).toMatchObject([{ uploadId: image.id, filename: 'IMG_0001.jpg', alt: 'A tern diving' }]);
    expect(post.attachments).toEqual([
      expect.objectContaining({ name: 'A tern diving', kind: 'image', src: `/media/local/${image.contentHash}`, thumbSrc: `/media/local/${image.contentHash}/thumbnail` }),
    ]);
  });

  it('an edit keeps the post’s attachments (object and rows)', async () => {
    const image = await uploaded(await photo(70, 50, 'png'), 'image/png');
    const post = await t.core.services.author.createPost({ content: 'first', visibility: 'PUBLIC', attachments: [{ uploadId: image.id, alt: 'Kept', filename: 'k.png' }] });
    const edited = await t.core.services.author.editPost({ apId: post.apId, content: 'second' });
    expect(edited.attachments).toEqual(post.attachments);
    expect(t.core.db.select().from(outbox).where(eq(outbox.id, post.id)).get()!.apObject.attachment).toEqual([
      { type: 'Image', mediaType: 'image/png', url: `${t.url}/media/${image.contentHash}/k.png`, name: 'Kept', blurhash: image.blurhash, width: 70, height: 50 },
    ]);
    expect(attachmentsOf(post.id)).toHaveLength(1);
  });

  it('refuses an attachment that names no upload, storing no post', async () => {
    const before = t.core.db.select().from(outbox).all().length;
    await expect(t.core.services.author.createPost({ content: 'x', visibility: 'PUBLIC', attachments: [{ uploadId: 99_999 }] })).rejects.toThrow(
      'An attached file is no longer there; please attach it again.',
    );
    expect(t.core.db.select().from(outbox).all()).toHaveLength(before);
  });
});

describe('the listener serves media', () => {
  it('a public post’s file and thumbnail: right type, immutable year-long caching, the stored bytes', async () => {
    const image = await uploaded(await photo(900, 600, 'webp'), 'image/webp');
    const post = await t.core.services.author.createPost({ content: 'look', visibility: 'UNLISTED', attachments: [{ uploadId: image.id, alt: 'Dunes', filename: 'dunes.webp' }] });
    const url = post.attachments[0]!.url;
    const res = await get(mediaPath(url));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/webp');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(uploadPath(t.core.paths.uploads, image.contentHash)))).toBe(true);
    const thumb = await get(`/media/thumbnails/${image.contentHash}`);
    expect(thumb.headers.get('content-type')).toBe('image/webp');
    expect((await sharp(Buffer.from(await thumb.arrayBuffer())).metadata()).width).toBe(740);
    expect((await get(mediaPath(url), { 'if-none-match': res.headers.get('etag')! })).status).toBe(304);
  });

  it('streams a file in pieces with its length (never read whole per request); HEAD opens nothing', async () => {
    const image = await uploaded(await photo(64, 64, 'png'), 'image/png');
    const post = await t.core.services.author.createPost({ content: 'big', visibility: 'PUBLIC', attachments: [{ uploadId: image.id, alt: null, filename: 'big.png' }] });
    // The stored file stands in for a large video: only its size matters to the route.
    const big = Buffer.alloc(3 * 1024 * 1024, 7);
    writeFileSync(uploadPath(t.core.paths.uploads, image.contentHash), big);
    const app = createListenerApp(t.core);
    const response = await app.fetch(new Request(`http://listener.test${mediaPath(post.attachments[0]!.url)}`));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String(big.length));
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(first.value!.byteLength).toBeLessThanOrEqual(64 * 1024);
    let total = first.value!.byteLength;
    for (let r = await reader.read(); !r.done; r = await reader.read()) total += r.value.byteLength;
    expect(total).toBe(big.length);
    const head = await app.fetch(new Request(`http://listener.test${mediaPath(post.attachments[0]!.url)}`, { method: 'HEAD' }));
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(big.length));
  });

  it('never a file attached to no post, nor an unknown hash', async () => {
    const loose = await uploaded(await photo(30, 30, 'gif'), 'image/gif');
    expect((await get(`/media/${loose.contentHash}/x.gif`)).status).toBe(404);
    expect((await get(`/media/thumbnails/${loose.contentHash}`)).status).toBe(404);
    expect((await get(`/media/${'0'.repeat(64)}/x.gif`)).status).toBe(404);
    expect((await get('/media/..%2F..%2Ftern.db/x')).status).toBe(404);
  });

  it('a followers-only post’s file: 404 unsigned and to a signed stranger, 200 (private) to a follower’s signed GET', async () => {
    const image = await uploaded(await photo(50, 40, 'png'), 'image/png');
    const post = await t.core.services.author.createPost({ content: 'fans only', visibility: 'FOLLOWERS_ONLY', attachments: [{ uploadId: image.id, alt: 'x' }] });
    const url = post.attachments[0]!.url;
    expect((await get(mediaPath(url))).status).toBe(404);
    expect((await signedGet(url)).status).toBe(404);
    addFollower(t.core, mallory.actorId);
    const res = await signedGet(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, max-age=3600');
    expect(res.headers.get('content-type')).toBe('image/png');
  });
});

describe('deleting posts', () => {
  it('keeps an upload another post still uses; the last post going removes its row and files', async () => {
    const image = await uploaded(await photo(60, 60, 'jpeg'));
    const author = t.core.services.author;
    const a = await author.createPost({ content: 'a', visibility: 'PUBLIC', attachments: [{ uploadId: image.id, alt: 'one', filename: 'a.jpg' }] });
    const b = await author.createPost({ content: 'b', visibility: 'PUBLIC', attachments: [{ uploadId: image.id, alt: 'two', filename: 'b.jpg' }] });
    const file = uploadPath(t.core.paths.uploads, image.contentHash);
    author.deletePost(a.apId);
    expect(attachmentsOf(a.id)).toEqual([]);
    expect(existsSync(file)).toBe(true);
    expect((await get(mediaPath(a.attachments[0]!.url))).status).toBe(200); // same hash, served for b
    author.deletePost(b.apId);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}_resized`)).toBe(false);
    expect(t.core.db.select().from(upload).where(eq(upload.id, image.id)).get()).toBeUndefined();
    expect((await get(mediaPath(b.attachments[0]!.url))).status).toBe(404);
  });
});

describe('sweeping uploads no post used', () => {
  it('removes unattached uploads older than the cutoff, rows and files, and keeps every upload a post uses', async () => {
    const loose = await uploaded(await photo(33, 33, 'png'), 'image/png');
    const used = t.core.db.select({ id: outboxObjectAttachment.uploadId }).from(outboxObjectAttachment).all().map((r) => r.id);
    expect(used.length).toBeGreaterThan(0);
    const removed = sweepUnattached(t.core.db, t.core.paths.uploads, new Date(Date.now() + 60_000), new Set());
    expect(removed).toBeGreaterThan(0);
    expect(t.core.db.select().from(upload).where(eq(upload.id, loose.id)).get()).toBeUndefined();
    expect(existsSync(uploadPath(t.core.paths.uploads, loose.contentHash))).toBe(false);
    const left = t.core.db.select({ id: upload.id }).from(upload).all().map((r) => r.id).sort();
    expect(left).toEqual([...new Set(used)].sort());
  });
});
