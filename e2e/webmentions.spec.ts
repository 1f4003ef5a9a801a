// Webmention both ways, as the author sees it: a public post links to a page on a local site
// (a node:http server on loopback standing in for someone's blog), Tern discovers that page's
// endpoint and sends it a webmention; the blog replies with its own page linking back and
// sends Tern a webmention; Tern verifies it, and the Webmentions view shows the reply under
// the post, with the author's name (initials, no remote picture), the sent one as Sent, and
// the notification leads there.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, ipc, listeningTest } from './peer-fixtures';
import { screenshotPath } from './screenshots';

interface Blog {
  origin: string;
  /** Form bodies POSTed to the blog's webmention endpoint. */
  received: URLSearchParams[];
  /** Sets the HTML of the blog's reply page. */
  setReply(html: string): void;
  close(): Promise<void>;
}

async function startBlog(): Promise<Blog> {
  const received: URLSearchParams[] = [];
  let reply = '<html><body>nothing yet</body></html>';
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/webmention-endpoint') {
        received.push(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
        res.statusCode = 202;
        return res.end('thanks');
      }
      res.setHeader('content-type', 'text/html; charset=utf-8');
      if (req.url === '/article') return res.end('<html><head><link rel="webmention" href="/webmention-endpoint"></head><body><h1>An article</h1></body></html>');
      if (req.url === '/reply') return res.end(reply);
      res.statusCode = 404;
      res.end('not found');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    setReply: (html) => {
      reply = html;
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

const test = listeningTest.extend<{ blog: Blog }>({
  // eslint-disable-next-line no-empty-pattern
  blog: async ({}, use) => {
    const blog = await startBlog();
    await use(blog);
    await blog.close();
  },
});

test('a post’s link gets a webmention, and a blog’s reply to the post shows in Webmentions', async ({ page, tern, blog, request }) => {
  test.setTimeout(90_000);
  await page.goto(`${tern.url}#/webmentions`);
  await expect(page.getByRole('heading', { level: 1, name: 'Webmentions' })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Places' }).getByRole('link', { name: 'Webmentions' })).toHaveAttribute('aria-current', 'page');
  await expect(page.getByTestId('empty-state')).toContainText('No webmentions yet');
  await page.screenshot({ path: screenshotPath('webmentions-empty') });

  // 1. A public post linking to the blog's article: Tern tells the article's endpoint.
  const post = await ipc<{ apId: string }>(request, tern, 'posts.create', {
    content: `I enjoyed [this article](${blog.origin}/article).`,
    visibility: 'PUBLIC',
  });
  await expect.poll(() => blog.received.map((form) => [form.get('source'), form.get('target')]), { timeout: 20_000 }).toEqual([[post.apId, `${blog.origin}/article`]]);

  // 2. The blog answers with a reply page linking to the post, and sends Tern a webmention.
  blog.setReply(
    '<!doctype html><html><body><article class="h-entry">' +
      '<span class="p-author h-card"><a class="p-name u-url" href="' + blog.origin + '/">Rosa Writes</a></span> ' +
      '<a class="u-in-reply-to" href="' + post.apId + '">in reply to Ana</a>' +
      '<div class="e-content">Thanks for linking! <script>alert(1)</script>Glad you enjoyed it.</div>' +
      '</article></body></html>',
  );
  const sent = await request.post(`${tern.listenerUrl!.replace(/\/$/, '')}/webmention`, {
    form: { source: `${blog.origin}/reply`, target: post.apId },
  });
  expect(sent.status()).toBe(202);

  // 3. Verified by the inbox processor; the view shows it under the post.
  const mention = page.getByTestId('webmention').first();
  await expect
    .poll(
      async () => {
        await page.reload();
        // The view asks for its rows once the page has loaded: given up to 3 s to show them
        // (counting at once raced that answer on a busy machine, as expectAfterReload says).
        return mention.waitFor({ timeout: 3_000 }).then(
          () => true,
          () => false,
        );
      },
      { timeout: 20_000 },
    )
    .toBe(true);
  await expect(page.getByTestId('webmention-group')).toContainText('I enjoyed this article');
  await expect(page.getByTestId('webmention-group')).toContainText('1 webmention');
  await expect(mention).toContainText('Rosa Writes');
  await expect(mention).toContainText('Reply');
  await expect(mention).toContainText('New');
  await expect(mention).toContainText('Thanks for linking! Glad you enjoyed it.');
  await expect(mention).not.toContainText('alert');
  await expect(mention.locator('img')).toHaveCount(0);
  await page.screenshot({ path: screenshotPath('webmentions') });

  // 4. The Sent tab lists the webmention Tern sent, as sent.
  await page.getByRole('link', { name: 'Sent', exact: true }).click();
  const row = page.getByTestId('sent-webmention');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText(`${blog.origin}/article`);
  await expect(row).toHaveAttribute('data-state', 'sent');
  await page.screenshot({ path: screenshotPath('webmentions-sent') });

  // 5. The notification says a page mentioned the post, and opens the Webmentions place.
  await page.getByRole('navigation', { name: 'Places' }).getByRole('link', { name: /Notifications/ }).click();
  const notification = page.getByTestId('notification').filter({ hasText: 'A page mentioned your post' });
  await expect(notification).toHaveCount(1);
  await notification.getByRole('link').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Webmentions' })).toBeVisible();
});
