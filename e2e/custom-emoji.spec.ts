// Custom emoji, as a Fedify peer sends them (an Emoji tag named `:kelp:` with its picture, as
// Mastodon writes one): the post shows the picture in place of `:kelp:`, loaded through Tern's
// media proxy (the page itself contacts no other server); a shortcode the post does not tag,
// and the same shortcode inside code, stay text.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ana, answer, post } from './fake-answers';
import { ONE_PIXEL_PNG, expect, expectAfterReload, followPeer, test } from './peer-fixtures';

let pictures: Server;
let pictureUrl = '';

test.beforeAll(async () => {
  pictures = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': ONE_PIXEL_PNG.length });
    res.end(ONE_PIXEL_PNG);
  });
  await new Promise<void>((done) => pictures.listen(0, '127.0.0.1', done));
  pictureUrl = `http://127.0.0.1:${(pictures.address() as AddressInfo).port}/emoji/kelp.png`;
});
test.afterAll(() => new Promise<void>((done) => pictures.close(() => done())));

test('a peer’s custom emoji shows as its picture, through Tern’s media proxy; an untagged shortcode and code stay text', async ({ page, tern, peer }) => {
  test.setTimeout(60_000);
  const outside: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(tern.origin)) outside.push(request.url());
  });
  // The author follows the peer, whose public post then reaches the stream.
  await followPeer(page, tern, peer);
  await peer.createNote({
    content: '<p>Low tide at last :kelp: and :driftwood:</p><pre><code>:kelp:</code></pre>',
    to: 'public',
    emojis: [{ shortcode: 'kelp', url: pictureUrl }],
  });
  await expectAfterReload(page, tern, '#/stream', (p) => p.getByRole('main'), 'Low tide at last');

  const post = page.getByTestId('post').filter({ hasText: 'Low tide at last' });
  const emoji = post.locator('.post__content img.custom-emoji');
  await expect(emoji).toHaveCount(1);
  await expect(emoji).toHaveAttribute('alt', ':kelp:');
  await expect(emoji).toHaveAttribute('src', /^\/media\/proxy\//);
  // The picture arrived (through the proxy, which fetched it from the peer's server).
  await expect.poll(() => emoji.evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0))).toBe(1);
  await expect(post.locator('.post__content')).toContainText(':driftwood:');
  await expect(post.locator('.post__content code')).toHaveText(':kelp:');
  expect(outside).toEqual([]);
});

test('a name’s custom emoji shows as its picture; a picture that is not Tern’s own proxy path is never loaded', async ({ page, tern }) => {
  const outside: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(tern.origin)) outside.push(request.url());
  });
  const author = {
    ...ana,
    name: 'Ana :kelp: Lima :pixel:',
    emojis: [
      { shortcode: 'kelp', url: 'https://mastodon.example/e/kelp.png', src: '/media/proxy/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/aHR0cHM6Ly9tYXN0b2Rvbi5leGFtcGxlL2Uva2VscC5wbmc' },
      // Not a proxy path (the core never gives one, but the renderer checks): left as text.
      { shortcode: 'pixel', url: 'https://tracker.example/p.png', src: 'https://tracker.example/p.png' },
    ],
  };
  await answer(page, 'timeline.stream', { items: [post(author, '<p>Hello :pixel:</p>', { id: 1, emojis: author.emojis })], nextCursor: null });
  await page.goto(`${tern.url}#/stream`);
  const name = page.getByTestId('post').locator('.post__name');
  await expect(name.locator('img.custom-emoji')).toHaveCount(1);
  await expect(name.locator('img.custom-emoji')).toHaveAttribute('alt', ':kelp:');
  await expect(name).toContainText(':pixel:');
  await expect(page.getByTestId('post').locator('.post__content img')).toHaveCount(0);
  await expect(page.getByTestId('post').locator('.post__content')).toHaveText('Hello :pixel:');
  expect(outside).toEqual([]);
});
