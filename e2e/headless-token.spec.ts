// The token of headless mode in a real browser: it travels in the printed link's #fragment and
// in a header, never in a cookie, because browsers send a cookie set by 127.0.0.1 to every port
// of 127.0.0.1 (and SameSite does not keep them apart: every port is the same site). Another
// local web server the author opens — or that a link in a remote post points to — learns
// nothing that opens Tern's API.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from './fixtures';

/** Another local program's web server on another loopback port; records the Cookie headers it gets. */
async function otherLoopbackServer(): Promise<{ server: Server; origin: string; cookies: string[] }> {
  const cookies: string[] = [];
  const server = createServer((req, res) => {
    cookies.push(req.headers.cookie ?? '');
    res.setHeader('content-type', 'text/html');
    res.end('<!doctype html><title>other local app</title><p>hello</p>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, cookies };
}

const ipcStatus = (origin: string, headers: Record<string, string>) =>
  fetch(`${origin}/ipc/app.status`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });

test('the token never reaches another web server on 127.0.0.1, and what that server gets opens no IPC', async ({ tern, page }) => {
  const other = await otherLoopbackServer();
  try {
    await page.goto(tern.url);
    await expect(page.getByRole('navigation', { name: 'Places' })).toBeVisible();
    // The address no longer shows the token.
    await expect(page).toHaveURL(`${tern.origin}/`);
    // The author opens another local web app in the same browser…
    await page.goto(`${other.origin}/`);
    // …or follows, inside Tern's page, a link a remote post carries to a loopback address (under
    // /media/, where even the media cookie is sent: browsers do not keep cookies apart by port).
    await page.goto(`${tern.origin}/`);
    await expect(page.getByRole('navigation', { name: 'Places' })).toBeVisible();
    await page.evaluate((href) => {
      const a = document.createElement('a');
      a.href = href;
      document.body.append(a);
      a.click();
    }, `${other.origin}/media/from-tern`);
    await page.waitForURL(`${other.origin}/media/from-tern`);
    expect(other.cookies.length).toBeGreaterThanOrEqual(2);
    // It did get the media cookie (so what follows checks something): that one grants /media/* only.
    expect(other.cookies.some((cookie) => cookie.includes('tern_media='))).toBe(true);
    for (const cookie of other.cookies) {
      expect(cookie).not.toContain(tern.token);
      // Whatever cookie it got (the media cookie is sent only under /media), none opens the API.
      for (const pair of cookie.split(/;\s*/).filter(Boolean)) {
        const value = pair.slice(pair.indexOf('=') + 1);
        expect((await ipcStatus(tern.origin, { cookie: pair })).status).toBe(401);
        expect((await ipcStatus(tern.origin, { authorization: `Bearer ${value}` })).status).toBe(401);
      }
    }
  } finally {
    other.server.close();
  }
});

test('a reload, and a second tab opened from the printed link, both stay signed in; media loads', async ({ tern, page, context }) => {
  await page.goto(`${tern.url}#/settings`);
  await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();
  await expect(page).toHaveURL(`${tern.origin}/#/settings`);
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();
  // /media/* takes the cookie the page's calls set (an <img> cannot send the header): an unknown
  // upload is "not found", not "needs the token".
  const media = await page.evaluate(async () => (await fetch(`/media/local/${'a'.repeat(64)}`)).status);
  expect(media).toBe(404);

  const second = await context.newPage();
  await second.goto(`${tern.url}#/notifications`);
  await expect(second.getByRole('heading', { name: 'Notifications', level: 1 })).toBeVisible();
  await expect(second).toHaveURL(`${tern.origin}/#/notifications`);
  await second.close();
});

test('the media cookie is not sent outside /media, and the IPC needs the header', async ({ tern, page, context }) => {
  await page.goto(tern.url);
  await expect(page.getByRole('navigation', { name: 'Places' })).toBeVisible();
  const cookies = (await context.cookies()).filter((c) => c.domain === '127.0.0.1');
  expect(cookies.map((c) => c.name)).toEqual(['tern_media']);
  expect(cookies[0]).toMatchObject({ path: '/media', httpOnly: true, sameSite: 'Strict' });
  expect(cookies[0]!.value).not.toBe(tern.token);
  // The page's own calls carry Sec-Fetch-Site: same-origin, which the transport requires of browsers.
  const call = page.waitForRequest((request) => request.url().includes('/ipc/'));
  await page.getByRole('navigation', { name: 'Places' }).getByRole('link', { name: 'Stream' }).click();
  const headers = await (await call).allHeaders();
  expect(headers['sec-fetch-site']).toBe('same-origin');
  expect(headers.authorization).toBe(`Bearer ${tern.token}`);
});
