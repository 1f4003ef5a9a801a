// Link previews (UX.md "link previews where stored"): the author posts a link to a web page;
// Tern reads the page's head in the background (its OpenGraph title, description, picture and
// site name) and the post then shows one card for it, the picture loaded through Tern's media
// proxy (the page itself contacts no other server). The card is one link to the page, opened
// outside Tern. The web page is a loopback server standing for any site.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answer, ana, post } from './fake-answers';
import { ONE_PIXEL_PNG, expect, expectAfterReload, listeningTest as test } from './peer-fixtures';
import { screenshotPath } from './screenshots';

let site: Server;
let origin = '';
const asked: string[] = [];

test.beforeAll(async () => {
  site = createServer((req, res) => {
    asked.push(req.url ?? '');
    if (req.url === '/cover.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(ONE_PIXEL_PNG);
    // A slow site: the preview comes after the author's profile has been read.
    const delay = req.url === '/slow' ? 4_000 : 0;
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html><head><title>fallback</title>
      <meta property="og:title" content="Where terns nest">
      <meta property="og:description" content="A field guide to the coast, season by season.">
      <meta property="og:image" content="/cover.png"><meta property="og:site_name" content="Coast Notes">
      </head><body><p>The article.</p></body></html>`);
    }, delay);
  });
  await new Promise<void>((done) => site.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
test.afterAll(() => new Promise<void>((done) => site.close(() => done())));

test('a post with a link shows the page’s preview card, its picture through Tern’s media proxy', async ({ page, tern }) => {
  test.setTimeout(60_000);
  const outside: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(tern.origin)) outside.push(request.url());
  });
  await page.goto(`${tern.url}#/compose`);
  await page.getByRole('textbox', { name: 'Your post' }).fill(`Worth reading: ${origin}/terns`);
  // Unlisted: a public post would also send the page a webmention (its own GET of the page).
  await page.getByRole('radio', { name: 'Unlisted' }).check();
  await page.getByRole('button', { name: 'Post', exact: true }).click();
  await expect(page.getByTestId('compose-sent')).toBeVisible();

  await expectAfterReload(page, tern, '#/profile', (p) => p.getByTestId('post').first(), 'Where terns nest');
  const card = page.getByTestId('post').first().locator('.post__preview');
  await expect(card).toHaveAttribute('href', `${origin}/terns`);
  await expect(card).toHaveAttribute('target', '_blank');
  // The page's name for itself, and always the host the link leads to.
  await expect(card.locator('.post__preview-site')).toHaveText(`Coast Notes · ${new URL(origin).host}`);
  await expect(card.locator('.post__preview-description')).toHaveText('A field guide to the coast, season by season.');
  const picture = card.locator('img');
  await expect(picture).toHaveAttribute('src', /^\/media\/proxy\//);
  await expect.poll(() => picture.evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0))).toBe(1);
  await card.screenshot({ path: screenshotPath('link-preview') });
  expect(asked.filter((path) => path === '/terns')).toHaveLength(1);
  expect(outside).toEqual([]);
});

test('the author’s new post shows its preview when it arrives, without a reload', async ({ page, tern }) => {
  test.setTimeout(60_000);
  await page.goto(`${tern.url}#/compose`);
  await page.getByRole('textbox', { name: 'Your post' }).fill(`Slow page: ${origin}/slow`);
  await page.getByRole('radio', { name: 'Unlisted' }).check();
  await page.getByRole('button', { name: 'Post', exact: true }).click();
  await page.getByRole('link', { name: 'See it in your profile' }).click();
  const post = page.getByTestId('post').filter({ hasText: 'Slow page' });
  await expect(post).toBeVisible();
  // Read before the page answered: no card yet; it comes by itself.
  await expect(post.locator('.post__preview')).toHaveCount(0);
  await expect(post.locator('.post__preview-title')).toHaveText('Where terns nest', { timeout: 15_000 });
});

test('a preview is shown once, not over media, and never loads a picture that is not Tern’s own proxy path', async ({ page, tern }) => {
  const outside: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(tern.origin)) outside.push(request.url());
  });
  const preview = (title: string, imageSrc: string | null) => ({ url: 'https://news.example/a', title, description: null, siteName: null, image: 'https://news.example/a.png', imageSrc });
  const withMedia = post(ana, '<p>Photo and a link</p>', { id: 2, previews: [preview('Hidden by media', null)] });
  withMedia.attachments = [{ url: 'https://cdn.example/p.png', mediaType: 'image/png', name: 'A photo', blurhash: null, width: 10, height: 10, src: null, kind: 'image' }];
  await answer(page, 'timeline.stream', {
    items: [post(ana, '<p>Just a link</p>', { id: 1, previews: [preview('Tracked', 'https://tracker.example/p.png'), preview('Second', null)] }), withMedia],
    nextCursor: null,
  });
  await page.goto(`${tern.url}#/stream`);
  const first = page.getByTestId('post').filter({ hasText: 'Just a link' });
  await expect(first.locator('.post__preview')).toHaveCount(1);
  await expect(first.locator('.post__preview-title')).toHaveText('Tracked');
  // No site name: the page's host stands for it. A src that is not a proxy path: no picture.
  await expect(first.locator('.post__preview-site')).toHaveText('news.example');
  await expect(first.locator('.post__preview img')).toHaveCount(0);
  await expect(page.getByTestId('post').filter({ hasText: 'Photo and a link' }).locator('.post__preview')).toHaveCount(0);
  expect(outside).toEqual([]);
});
