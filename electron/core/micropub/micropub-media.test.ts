// Micropub's media end to end: the media endpoint on the real listener (tokens from the real
// IndieAuth flow, files through the real sharp pipeline into a real data folder and SQLite),
// then posts whose photos are those uploads — or files sent with the post — reaching a Fedify
// peer that parses the attachments. Every refusal names its reason and stores nothing.
import { request as httpRequest } from 'node:http';
import { existsSync } from 'node:fs';
import { count, eq } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outbox, outboxObjectAttachment, upload } from '../../../db/schema';
import { startPeer, type Peer } from '../../../test/peer/peer';
import { openAuthorRig, type AuthorRig } from '../federation/actions/test-rig';
import { issueToken } from '../indieauth/test-flow';
import { MAX_IMAGE_BYTES } from '../media/limits';
import { createMediaService } from '../media/service';
import { thumbnailPath, uploadPath } from '../media/store';
import { photo, sidewaysJpegWithGps } from '../media/test-images';

let rig: AuthorRig;
let fan: Peer;
let mediaToken: string;
let createOnly: string;
let full: string;

const uploads = () => rig.core.db.select({ n: count() }).from(upload).get()!.n;
const posts = () => rig.core.db.select({ n: count() }).from(outbox).get()!.n;
const hashOf = (location: string) => /\/media\/([0-9a-f]{64})\//.exec(location)![1]!;

function fileForm(parts: [string, Blob | string, string?][]): FormData {
  const form = new FormData();
  for (const [name, value, filename] of parts) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, value, filename);
  }
  return form;
}

const blob = (bytes: Uint8Array, type: string) => new Blob([bytes as Uint8Array<ArrayBuffer>], { type });

async function send(path: string, token: string | null, body: FormData | string, type?: string) {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  if (type) headers['content-type'] = type;
  const response = await fetch(`${rig.url}${path}`, { method: 'POST', headers, body });
  const text = await response.text();
  return { status: response.status, location: response.headers.get('location'), json: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

const uploadFile = (token: string | null, bytes: Uint8Array, type: string, filename = 'photo.jpg') => send('/micropub/media', token, fileForm([['file', blob(bytes, type), filename]]));
const micropubJson = (token: string, body: unknown) => send('/micropub', token, JSON.stringify(body), 'application/json');

async function source(token: string, url: string) {
  const response = await fetch(`${rig.url}/micropub?q=source&url=${encodeURIComponent(url)}`, { headers: { authorization: `Bearer ${token}` } });
  return (await response.json()) as { properties: Record<string, unknown[]> };
}

beforeAll(async () => {
  [rig, fan] = await Promise.all([openAuthorRig(), startPeer({ name: 'fan' })]);
  await fan.follow(rig.url);
  await fan.waitFor((x) => x.type === 'Accept');
  mediaToken = await issueToken(rig.url, rig.core, ['create', 'media']);
  createOnly = await issueToken(rig.url, rig.core, ['create']);
  full = await issueToken(rig.url, rig.core, ['create', 'update', 'delete', 'media']);
});

afterAll(async () => {
  await fan?.close();
  await rig?.close();
});

describe('the media endpoint', () => {
  it('is advertised in q=config', async () => {
    const response = await fetch(`${rig.url}/micropub?q=config`, { headers: { authorization: `Bearer ${createOnly}` } });
    expect(await response.json()).toMatchObject({ 'media-endpoint': `${rig.url}/micropub/media` });
  });

  it('stores a JPEG through the pipeline (EXIF gone, thumbnail, blurhash) and answers 201 with its URL, served only once posted', async () => {
    const created = await uploadFile(mediaToken, await sidewaysJpegWithGps(64, 32), 'image/jpeg', 'heron.jpg');
    expect(created.status).toBe(201);
    expect(created.location).toMatch(new RegExp(`^${rig.url}/media/[0-9a-f]{64}/heron\\.jpg$`));
    const row = rig.core.db.select().from(upload).where(eq(upload.contentHash, hashOf(created.location!))).get()!;
    // Orientation applied: stored upright, 32 × 64.
    expect(row).toMatchObject({ contentType: 'image/jpeg', hasThumbnail: true, width: 32, height: 64 });
    expect(row.blurhash).toMatch(/^.{6,}$/);
    const stored = await sharp(uploadPath(rig.core.paths.uploads, row.contentHash)).metadata();
    expect(stored.exif).toBeUndefined();
    expect(existsSync(thumbnailPath(rig.core.paths.uploads, row.contentHash))).toBe(true);
    // Not attached to any post yet: its existence is not revealed.
    expect((await fetch(created.location!)).status).toBe(404);
  });

  it('takes the token as access_token in the form too; both at once is refused', async () => {
    const form = fileForm([['file', blob(await photo(20, 20, 'png'), 'image/png'), 'dot.png'], ['access_token', mediaToken]]);
    const ok = await send('/micropub/media', null, form);
    expect(ok.status).toBe(201);
    const both = await send('/micropub/media', mediaToken, fileForm([['file', blob(await photo(21, 20, 'png'), 'image/png'), 'dot.png'], ['access_token', mediaToken]]));
    expect(both).toMatchObject({ status: 400, json: { error_description: expect.stringMatching(/not both/) } });
  });

  it.each([
    ['no token', null, 401, 'unauthorized'],
    ['an unknown token', 'nope', 401, 'unauthorized'],
    ['a token without the media scope', 'createOnly', 403, 'insufficient_scope'],
  ])('refuses %s, storing nothing', async (_name, token, status, error) => {
    const before = uploads();
    const refused = await uploadFile(token === 'createOnly' ? createOnly : token, await photo(30, 30), 'image/jpeg');
    expect(refused).toMatchObject({ status, json: { error } });
    if (status === 403) expect(refused.json).toMatchObject({ scope: 'media' });
    expect(uploads()).toBe(before);
  });

  it.each([
    ['bytes that are not an image', () => Promise.resolve(Buffer.from('just some words, not a PNG at all')), 'image/png', /not the PNG image/],
    ['a corrupt image (a JPEG cut short)', async () => (await photo(200, 200)).subarray(0, 300), 'image/jpeg', /damaged or incomplete/],
    ['a type Tern does not take', () => Promise.resolve(Buffer.from('<svg/>')), 'image/svg+xml', /Tern can attach/],
    ['an empty file', () => Promise.resolve(Buffer.alloc(0)), 'image/png', /empty/],
  ])('refuses %s with 400 and a reason, storing nothing', async (_name, bytes, type, reason) => {
    const before = uploads();
    const refused = await uploadFile(mediaToken, await bytes(), type);
    expect(refused).toMatchObject({ status: 400, json: { error: 'invalid_request', error_description: expect.stringMatching(reason) } });
    expect(uploads()).toBe(before);
  });

  it('refuses an image over the image cap with 413, storing nothing', async () => {
    const before = uploads();
    const big = Buffer.alloc(MAX_IMAGE_BYTES + 1);
    (await photo(10, 10)).copy(big); // a JPEG's first bytes, so only the size is wrong
    const refused = await uploadFile(mediaToken, big, 'image/jpeg');
    expect(refused).toMatchObject({ status: 413, json: { error_description: expect.stringMatching(/too large/) } });
    expect(uploads()).toBe(before);
  });

  it('refuses a body declared larger than the cap with 413 before reading it', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${rig.url}/micropub/media`, {
        method: 'POST',
        headers: { authorization: `Bearer ${mediaToken}`, 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(100 * 1024 * 1024) },
      });
      req.on('response', (res) => {
        resolve(res.statusCode ?? 0);
        res.resume();
        req.destroy();
      });
      req.on('error', reject);
      req.write('--x\r\n'); // a few bytes of the promised 100 MB, and no more
    });
    expect(status).toBe(413);
  });

  it('refuses a form without exactly one file part, and a body that is not multipart', async () => {
    expect(await send('/micropub/media', mediaToken, fileForm([['name', 'x']]))).toMatchObject({ status: 400, json: { error_description: expect.stringMatching(/file/) } });
    const two = fileForm([
      ['file', blob(await photo(10, 12), 'image/jpeg'), 'a.jpg'],
      ['file', blob(await photo(12, 10), 'image/jpeg'), 'b.jpg'],
    ]);
    const before = uploads();
    expect(await send('/micropub/media', mediaToken, two)).toMatchObject({ status: 400, json: { error_description: expect.stringMatching(/exactly one/) } });
    expect(await send('/micropub/media', mediaToken, '{}', 'application/json')).toMatchObject({ status: 415 });
    expect(uploads()).toBe(before);
  });

  it('uploads no post used are swept after two days, like Compose’s', async () => {
    let now = Date.now();
    const media = createMediaService({ db: rig.core.db, uploadsDir: rig.core.paths.uploads, clock: () => new Date(now) });
    const { upload: unused } = await media.store({ file: [await photo(33, 17)], contentType: 'image/jpeg' });
    now += 3 * 24 * 60 * 60_000;
    await media.store({ file: [await photo(17, 33)], contentType: 'image/jpeg' }); // any later upload runs the sweep
    expect(rig.core.db.select().from(upload).where(eq(upload.id, unused.id)).get()).toBeUndefined();
    expect(existsSync(uploadPath(rig.core.paths.uploads, unused.contentHash))).toBe(false);
  });
});

describe('photos in posts', () => {
  it('a JSON create with an uploaded photo and {value, alt} federates an Image with the alt text; the file is then public; q=source gives it back', async () => {
    const uploaded = await uploadFile(mediaToken, await photo(320, 240), 'image/jpeg', 'estuary.jpg');
    const created = await micropubJson(createOnly, { type: ['h-entry'], properties: { content: ['The estuary'], photo: [{ value: uploaded.location, alt: 'Mudflats at dawn' }] } });
    expect(created.status).toBe(201);
    const create = await fan.waitFor((x) => x.type === 'Create' && x.objectId === created.location);
    expect(await fan.receivedAttachments(create.id!)).toEqual([
      { type: 'Image', mediaType: 'image/jpeg', url: uploaded.location, name: 'Mudflats at dawn', width: 320, height: 240 },
    ]);
    expect(JSON.stringify(create.raw)).not.toContain('[Mudflats');
    const served = await fan.fetchMedia(uploaded.location!);
    expect(served.status).toBe(200);
    expect((await source(createOnly, created.location!)).properties.photo).toEqual([{ value: uploaded.location, alt: 'Mudflats at dawn' }]);
  });

  it('a form create with photo[] and mp-photo-alt[] attaches each upload with its alt text, in order', async () => {
    const a = await uploadFile(mediaToken, await photo(40, 30), 'image/jpeg', 'a.jpg');
    const b = await uploadFile(mediaToken, await photo(30, 40, 'png'), 'image/png', 'b.png');
    const body = new URLSearchParams([['h', 'entry'], ['content', 'Two'], ['photo[]', a.location!], ['photo[]', b.location!], ['mp-photo-alt[]', 'First'], ['mp-photo-alt[]', 'Second']]);
    const created = await send('/micropub', createOnly, body.toString(), 'application/x-www-form-urlencoded');
    expect(created.status).toBe(201);
    const create = await fan.waitFor((x) => x.type === 'Create' && x.objectId === created.location);
    const attachments = await fan.receivedAttachments(create.id!);
    expect(attachments.map((x) => [x.url, x.name, x.mediaType])).toEqual([
      [a.location, 'First', 'image/jpeg'],
      [b.location, 'Second', 'image/png'],
    ]);
  });

  it('a multipart create with photo files (create scope only) stores them through the pipeline and attaches them', async () => {
    const form = fileForm([
      ['h', 'entry'],
      ['content', 'Sent with the post'],
      ['photo[]', blob(await sidewaysJpegWithGps(48, 24), 'image/jpeg'), 'sideways.jpg'],
      ['photo[]', blob(await photo(50, 50, 'webp'), 'image/webp'), 'square.webp'],
      ['mp-photo-alt[]', 'A sideways thing'],
    ]);
    const before = uploads();
    const created = await send('/micropub', createOnly, form);
    expect(created.status).toBe(201);
    expect(uploads()).toBe(before + 2);
    const create = await fan.waitFor((x) => x.type === 'Create' && x.objectId === created.location);
    const attachments = await fan.receivedAttachments(create.id!);
    expect(attachments).toMatchObject([
      { type: 'Image', mediaType: 'image/jpeg', name: 'A sideways thing', width: 24, height: 48, url: expect.stringMatching(/\/sideways\.jpg$/) },
      { type: 'Image', mediaType: 'image/webp', name: null, url: expect.stringMatching(/\/square\.webp$/) },
    ]);
    const stored = await sharp(uploadPath(rig.core.paths.uploads, hashOf(attachments[0]!.url!))).metadata();
    expect(stored.exif).toBeUndefined();
  });

  it.each([
    ['a file that is not an image', async () => fileForm([['h', 'entry'], ['content', 'x'], ['photo[]', blob(await photo(10, 10), 'image/jpeg'), 'ok.jpg'], ['photo[]', blob(Buffer.from('not a png'), 'image/png'), 'bad.png']]), /not the PNG image/],
    ['a good file but a category that is no hashtag', async () => fileForm([['h', 'entry'], ['content', 'x'], ['category', 'two words'], ['photo', blob(await photo(11, 10), 'image/jpeg'), 'ok.jpg']]), /cannot be a hashtag/],
    ['a file under another property', async () => fileForm([['h', 'entry'], ['content', blob(await photo(12, 10), 'image/jpeg'), 'c.jpg']]), /only photo, video and audio/],
    ['a video given as photo', async () => fileForm([['h', 'entry'], ['content', 'x'], ['photo', blob(Buffer.from('....ftypisom'), 'video/mp4'), 'v.mp4']]), /is not a photo/],
    ['a reply to nothing valid', async () => fileForm([['h', 'entry'], ['content', 'x'], ['in-reply-to', 'nope'], ['photo', blob(await photo(13, 10), 'image/jpeg'), 'ok.jpg']]), /in-reply-to/],
  ])('a multipart create with %s is refused with 400, storing no post and no file', async (_name, body, reason) => {
    const [beforeUploads, beforePosts] = [uploads(), posts()];
    const refused = await send('/micropub', createOnly, await body());
    expect(refused).toMatchObject({ status: 400, json: { error: 'invalid_request', error_description: expect.stringMatching(reason) } });
    expect([uploads(), posts()]).toEqual([beforeUploads, beforePosts]);
  });

  it.each([
    ['an upload URL this Tern does not have', () => `${rig.url}/media/${'0'.repeat(64)}/ghost.jpg`, /not a file uploaded to this Tern/],
    ['a thumbnail URL', () => `${rig.url}/media/thumbnails/${'0'.repeat(64)}`, /not a file uploaded to this Tern/],
    ['a photo that is not a URL', () => 'cat.jpg', /photo: must be an http\(s\) URL/],
  ])('refuses %s with 400, storing nothing', async (_name, value, reason) => {
    const before = posts();
    const refused = await micropubJson(createOnly, { type: ['h-entry'], properties: { content: ['x'], photo: [value()] } });
    expect(refused).toMatchObject({ status: 400, json: { error_description: expect.stringMatching(reason) } });
    expect(posts()).toBe(before);
  });

  it('another server’s photo URL is not fetched: it stays a link in the text, with no attachment', async () => {
    const created = await micropubJson(createOnly, { type: ['h-entry'], properties: { content: ['Look'], photo: [{ value: 'https://photos.example/cat.jpg', alt: 'A cat' }] } });
    expect(created.status).toBe(201);
    const create = await fan.waitFor((x) => x.type === 'Create' && x.objectId === created.location);
    expect(await fan.receivedAttachments(create.id!)).toEqual([]);
    expect(JSON.stringify(create.raw)).toContain('href=\\"https://photos.example/cat.jpg\\"');
    const row = rig.core.db.select().from(outbox).where(eq(outbox.apId, created.location!)).get()!;
    expect(rig.core.db.select().from(outboxObjectAttachment).where(eq(outboxObjectAttachment.outboxObjectId, row.id)).all()).toEqual([]);
  });

  it('audio works the same: uploaded, given as audio, federated as a Document; as photo it is refused', async () => {
    const mp3 = Buffer.concat([Buffer.from('ID3\x04\x00\x00\x00\x00\x00\x00', 'latin1'), Buffer.alloc(2048, 0x55)]);
    const uploaded = await uploadFile(mediaToken, mp3, 'audio/mpeg', 'song.mp3');
    expect(uploaded.status).toBe(201);
    const wrong = await micropubJson(createOnly, { type: ['h-entry'], properties: { content: ['x'], photo: [uploaded.location] } });
    expect(wrong).toMatchObject({ status: 400, json: { error_description: expect.stringMatching(/is not a photo \(audio\/mpeg\)/) } });
    const created = await micropubJson(createOnly, { type: ['h-entry'], properties: { content: ['Listen'], audio: [{ value: uploaded.location, alt: 'A song' }] } });
    expect(created.status).toBe(201);
    const create = await fan.waitFor((x) => x.type === 'Create' && x.objectId === created.location);
    expect(await fan.receivedAttachments(create.id!)).toMatchObject([{ type: 'Document', mediaType: 'audio/mpeg', url: uploaded.location, name: 'A song' }]);
    expect((await source(createOnly, created.location!)).properties).toMatchObject({ audio: [{ value: uploaded.location, alt: 'A song' }] });
  });

  it('more files than a post can have is refused before any is stored', async () => {
    const locations = [];
    for (let i = 0; i < 5; i++) locations.push((await uploadFile(mediaToken, await photo(10 + i, 9), 'image/jpeg')).location);
    const before = posts();
    const refused = await micropubJson(createOnly, { type: ['h-entry'], properties: { content: ['many'], photo: locations } });
    expect(refused).toMatchObject({ status: 400, json: { error_description: expect.stringMatching(/at most 4 files/) } });
    expect(posts()).toBe(before);
  });

  it('updating the photos of a post is refused with a reason; the post keeps its file', async () => {
    const uploaded = await uploadFile(mediaToken, await photo(60, 40), 'image/jpeg', 'keep.jpg');
    const created = await micropubJson(full, { type: ['h-entry'], properties: { content: ['Keep'], photo: [uploaded.location] } });
    for (const change of [{ replace: { photo: ['https://photos.example/x.jpg'] } }, { add: { photo: [uploaded.location] } }, { delete: ['photo'] }]) {
      const refused = await micropubJson(full, { action: 'update', url: created.location, ...change });
      expect(refused).toMatchObject({ status: 400, json: { error_description: expect.stringMatching(/cannot change the files/) } });
    }
    expect((await source(full, created.location!)).properties.photo).toEqual([uploaded.location]);
  });
});
