// Interop with an independent implementation: a Fedify peer follows Tern, receives posts with
// media, parses the attachments with Fedify's vocabulary, and fetches the files from Tern's
// listener — unsigned for a public post (as Mastodon fetches media), signed for a
// followers-only one.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeer, type Peer } from '../../../test/peer/peer';
import { openAuthorRig, type AuthorRig } from '../federation/actions/test-rig';
import { saveUpload } from './store';
import { photo } from './test-images';

let rig: AuthorRig;
let fan: Peer;
let stranger: Peer;

beforeAll(async () => {
  [rig, fan, stranger] = await Promise.all([openAuthorRig(), startPeer({ name: 'fan' }), startPeer({ name: 'stranger' })]);
  await fan.follow(rig.url);
  await fan.waitFor((x) => x.type === 'Accept');
});
afterAll(async () => {
  await Promise.all([fan?.close(), stranger?.close()]);
  await rig?.close();
});

const store = (bytes: Buffer, contentType: string) => saveUpload({ db: rig.core.db, uploadsDir: rig.core.paths.uploads, clock: () => new Date() }, { bytes, contentType });

describe('a Fedify peer and Tern’s media', () => {
  it('receives an image post, parses the attachment (mediaType, url, name, width, height) and fetches the file unsigned', async () => {
    const image = await store(await photo(640, 480, 'jpeg'), 'image/jpeg');
    const post = await rig.author.createPost({
      content: 'The estuary at dawn',
      visibility: 'PUBLIC',
      attachments: [{ uploadId: image.id, alt: 'Mudflats under a pink sky', filename: 'dawn.jpg' }],
    });
    const create = await fan.waitFor((x) => x.type === 'Create' && x.objectId === post.apId);
    const [attachment, ...rest] = await fan.receivedAttachments(create.id!);
    expect(rest).toEqual([]);
    expect(attachment).toEqual({
      type: 'Image',
      mediaType: 'image/jpeg',
      url: `${rig.url}/media/${image.contentHash}/dawn.jpg`,
      name: 'Mudflats under a pink sky',
      width: 640,
      height: 480,
    });
    const res = await fan.fetchMedia(attachment!.url!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', width: 640, height: 480 });
  });

  it('a video is a Document with its mediaType and no size', async () => {
    const mp4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42'), Buffer.alloc(64, 1)]);
    const video = await store(mp4, 'video/mp4');
    const post = await rig.author.createPost({ content: 'clip', visibility: 'PUBLIC', attachments: [{ uploadId: video.id, alt: 'Terns feeding', filename: 'clip.mp4' }] });
    const create = await fan.waitFor((x) => x.type === 'Create' && x.objectId === post.apId);
    expect(await fan.receivedAttachments(create.id!)).toEqual([
      { type: 'Document', mediaType: 'video/mp4', url: `${rig.url}/media/${video.contentHash}/clip.mp4`, name: 'Terns feeding', width: null, height: null },
    ]);
    const res = await fan.fetchMedia(`${rig.url}/media/${video.contentHash}/clip.mp4`);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    expect(Buffer.from(await res.arrayBuffer()).equals(mp4)).toBe(true);
  });

  it('a followers-only post’s file: the follower’s signed GET gets it; unsigned, and a stranger’s signed GET, get 404', async () => {
    const image = await store(await photo(120, 90, 'png'), 'image/png');
    const post = await rig.author.createPost({ content: 'for fans', visibility: 'FOLLOWERS_ONLY', attachments: [{ uploadId: image.id, alt: 'A nest', filename: 'nest.png' }] });
    const create = await fan.waitFor((x) => x.type === 'Create' && x.objectId === post.apId);
    const url = (await fan.receivedAttachments(create.id!))[0]!.url!;
    expect((await fan.fetchMedia(url, { signed: true })).status).toBe(200);
    expect((await fan.fetchMedia(url)).status).toBe(404);
    expect((await stranger.fetchMedia(url, { signed: true })).status).toBe(404);
  });
});
