// Media as the author meets them, in headless mode against a Fedify peer: attaching an image in
// Compose (upload progress, a preview, alt text asked for), the post in the Profile with its
// thumbnail and alt text, the peer receiving and fetching it; then a remote post's image in the
// Stream, loaded through Tern's media proxy. Throughout, the page itself never contacts any
// server but Tern.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { photo } from '../electron/core/media/test-images';
import { createWithImage } from '../test/peer/media';
import { ana, answer, ben, post } from './fake-answers';
import { test as base } from './fixtures';
import { expect, expectAfterReload, place, test } from './peer-fixtures';
import { screenshotPath } from './screenshots';

/** A remote media server: serves one PNG, labelled as something else (the proxy sniffs bytes). */
async function mediaServer(png: Buffer): Promise<{ server: Server; origin: string; agents: string[] }> {
  const agents: string[] = [];
  const server = createServer((req, res) => {
    agents.push(req.headers['user-agent'] ?? '');
    if (req.url === '/heron.png') res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(png);
    else res.writeHead(404).end();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, agents };
}

test('an image post: upload, alt text, thumbnail in the profile, received and fetched by the peer; a remote image through the proxy', async ({ page, tern, peer, request }) => {
  test.setTimeout(90_000);
  const ternActor = tern.listenerUrl!.replace(/\/$/, '');
  const pageRequests: string[] = [];
  page.on('request', (r) => pageRequests.push(r.url()));
  await peer.follow(ternActor);
  await peer.waitFor((a) => a.type === 'Accept');

  // 1. Compose with an image: it uploads (progress, preview), and posting waits for alt text.
  await page.goto(tern.url);
  await place(page, 'Compose').click();
  await page.getByRole('textbox', { name: 'Your post' }).fill('Low tide at the *estuary*');
  await page.getByTestId('compose-file').setInputFiles({ name: 'estuary.jpg', mimeType: 'image/jpeg', buffer: await photo(1600, 1200, 'jpeg') });
  const item = page.getByTestId('compose-attachment');
  await expect(item).toHaveAttribute('data-state', 'ready');
  await expect(item.locator('img')).toHaveAttribute('src', /^blob:/); // the preview, made on this machine
  const post = page.getByRole('button', { name: 'Post', exact: true });
  await expect(post).toBeDisabled();
  await expect(page.getByText('Describe each image (or mark it as needing no description).')).toBeVisible();
  await item.getByRole('textbox', { name: 'Description (alt text)' }).fill('Mudflats at low tide, a line of birds at the water’s edge');
  await expect(post).toBeEnabled();
  await page.screenshot({ path: screenshotPath('media-compose') });
  await post.click();
  await expect(page.getByTestId('compose-sent')).toBeVisible();
  await expect(page.getByTestId('compose-attachment')).toHaveCount(0);

  // 2. The peer receives the post, parses the attachment and fetches the file from the listener.
  const create = await peer.waitFor((a) => a.type === 'Create', 20_000);
  const [attachment] = await peer.receivedAttachments(create.id!);
  expect(attachment).toMatchObject({ type: 'Image', mediaType: 'image/jpeg', name: 'Mudflats at low tide, a line of birds at the water’s edge', width: 1600, height: 1200 });
  expect(attachment!.url).toMatch(new RegExp(`^${ternActor}/media/[0-9a-f]{64}/estuary\\.jpg$`));
  const fetched = await peer.fetchMedia(attachment!.url!);
  expect(fetched.status).toBe(200);
  expect(fetched.headers.get('content-type')).toBe('image/jpeg');

  // 3. The Profile shows the thumbnail, with the alt text as its alt and, on demand, under it.
  await page.getByRole('link', { name: 'See it in your profile' }).click();
  const shown = page.getByTestId('post').first();
  const image = shown.getByRole('img', { name: 'Mudflats at low tide, a line of birds at the water’s edge' });
  await expect(image).toBeVisible();
  await expect(image).toHaveAttribute('src', /^\/media\/local\/[0-9a-f]{64}\/thumbnail$/);
  await expect.poll(() => image.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(740);
  await shown.getByRole('button', { name: 'Show the description' }).click();
  await expect(shown.locator('figcaption')).toHaveText('Mudflats at low tide, a line of birds at the water’s edge');
  await page.screenshot({ path: screenshotPath('media-profile') });

  // 4. Tern follows the peer, whose post carries an image from another server: the Stream shows
  // it through the proxy, which fetched it with Tern's own client.
  const remote = await mediaServer(await photo(300, 200, 'png'));
  try {
    const followed = await request.post(`${tern.origin}/ipc/social.follow`, { headers: { authorization: `Bearer ${tern.token}` }, data: { target: peer.actorId } });
    expect(((await followed.json()) as { ok: boolean }).ok).toBe(true);
    await expect.poll(() => peer.followers().length, { timeout: 20_000 }).toBe(1);
    const id = peer.newId('creates');
    await peer.send(
      createWithImage({
        id,
        actor: new URL(peer.actorId),
        followers: new URL(`${peer.actorId}/followers`),
        content: '<p>A heron, seen from the hide</p>',
        image: { url: `${remote.origin}/heron.png`, mediaType: 'image/png', name: 'A grey heron standing in reeds', width: 300, height: 200 },
      }),
      [ternActor],
    );
    await expectAfterReload(page, tern, '#/stream', (p) => p.getByRole('main'), 'A heron, seen from the hide');
    const heron = page.getByRole('img', { name: 'A grey heron standing in reeds' });
    await expect(heron).toHaveAttribute('src', /^\/media\/proxy\//);
    await expect.poll(() => heron.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(300);
    expect(remote.agents.length).toBeGreaterThan(0);
    expect(remote.agents.every((ua) => ua.startsWith('Tern/'))).toBe(true);
    await page.screenshot({ path: screenshotPath('media-stream-remote') });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: screenshotPath('media-stream-remote-dark') });
  } finally {
    await new Promise<void>((done) => remote.server.close(() => done()));
  }

  // The page asked nothing of anyone but Tern (no remote image, no tracking pixel).
  const elsewhere = pageRequests.filter((url) => !url.startsWith(`${tern.origin}/`) && !url.startsWith('blob:') && !url.startsWith('data:'));
  expect(elsewhere).toEqual([]);
});

base('sensitive media stay under their blurhash until clicked; an image that cannot be loaded still says what it shows', async ({ page, tern, request }) => {
  // A real upload (through the same IPC channels Compose uses), shown in a post that is marked sensitive.
  const ipc = async (channel: string, data: unknown) => {
    const res = await request.post(`${tern.origin}/ipc/${channel}`, { headers: { authorization: `Bearer ${tern.token}` }, data });
    const body = (await res.json()) as { ok: boolean; value: Record<string, unknown> };
    expect(body.ok).toBe(true);
    return body.value;
  };
  const bytes = await photo(400, 300, 'jpeg');
  const { uploadId } = (await ipc('media.uploadBegin', { contentType: 'image/jpeg', size: bytes.byteLength })) as { uploadId: string };
  await ipc('media.uploadChunk', { uploadId, offset: 0, data: bytes.toString('base64') });
  const uploaded = (await ipc('media.uploadFinish', { uploadId })) as { src: string; thumbSrc: string; blurhash: string };
  const attachment = { mediaType: 'image/jpeg', blurhash: uploaded.blurhash, width: 400, height: 300, kind: 'image' as const };
  await answer(page, 'timeline.stream', {
    items: [
      post(ana, '<p>Before and after the storm</p>', {
        id: 1,
        sensitive: true,
        attachments: [{ ...attachment, url: 'https://mastodon.example/media/storm.jpg', name: 'A flooded footpath', src: uploaded.src, thumbSrc: uploaded.thumbSrc }],
      }),
      post(ben, '<p>Lost this one</p>', {
        id: 2,
        attachments: [{ ...attachment, url: 'https://gts.example/media/gone.jpg', name: 'A kestrel hovering', src: '/media/proxy/forged', thumbSrc: '/media/proxy/forged' }],
      }),
    ],
    nextCursor: null,
  });
  await page.goto(`${tern.url}#/stream`);
  const [sensitive, broken] = [page.getByTestId('post').nth(0), page.getByTestId('post').nth(1)];
  const cover = sensitive.getByRole('button', { name: 'Sensitive media — show' });
  await expect(cover).toBeVisible();
  await expect(cover.locator('canvas')).toHaveCount(1);
  await expect(sensitive.getByRole('button', { name: 'Show the description' })).toHaveCount(0);
  await expect(broken).toContainText('The image could not be loaded. A kestrel hovering');
  await page.screenshot({ path: screenshotPath('media-sensitive-covered') });
  await cover.click();
  await expect(cover).toHaveCount(0);
  await expect(sensitive.getByRole('img', { name: 'A flooded footpath' })).toBeVisible();
  await sensitive.getByRole('button', { name: 'Show the description' }).click();
  await expect(sensitive.locator('figcaption')).toHaveText('A flooded footpath');
});

base('an attached image and its alt text are kept with the draft across a reload, and post as they were', async ({ page, tern }) => {
  await page.goto(`${tern.url}#/compose`);
  await page.getByRole('textbox', { name: 'Your post' }).fill('The heron came back');
  await page.getByTestId('compose-file').setInputFiles({ name: 'heron.jpg', mimeType: 'image/jpeg', buffer: await photo(800, 600, 'jpeg') });
  const item = page.getByTestId('compose-attachment');
  await expect(item).toHaveAttribute('data-state', 'ready');
  await item.getByRole('textbox', { name: 'Description (alt text)' }).fill('A grey heron standing in the reeds');

  // A reload (as a restart would): the file is still attached, shown from Tern's copy, with its words.
  await page.reload();
  await expect(page.getByRole('textbox', { name: 'Your post' })).toHaveValue('The heron came back');
  await expect(item).toHaveAttribute('data-state', 'ready');
  await expect(item.locator('img')).toHaveAttribute('src', /^\/media\//);
  await expect(item.getByRole('textbox', { name: 'Description (alt text)' })).toHaveValue('A grey heron standing in the reeds');
  const send = page.getByRole('button', { name: 'Post', exact: true });
  await expect(send).toBeEnabled();
  await send.click();
  await expect(page.getByTestId('compose-sent')).toBeVisible();
  await expect(item).toHaveCount(0);

  // Posted with the image and its description; the draft's files are gone with it.
  await page.reload();
  await expect(item).toHaveCount(0);
  await page.getByRole('navigation', { name: 'Places' }).getByRole('link', { name: 'Profile' }).click();
  await expect(page.getByTestId('post').first().getByRole('img', { name: 'A grey heron standing in the reeds' })).toBeVisible();
});
