// A Mastodon app signs in through Tern's listener and posts, as a phone app would through the
// tunnel: masto.js (an independent client library) registers the app, the browser opens
// /oauth/authorize and waits, the author approves on Tern's consent screen (driven here by
// Playwright in the real Apps view), the waiting page sends the browser back to the app with
// the code, and the token posts a status that reaches a Fedify peer following Tern. Apps lists
// the app with a token that lives until revoked; revoking it there ends the app's access.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOAuthAPIClient, createRestAPIClient } from 'masto';
import { expect, test as peerTest } from './peer-fixtures';
import { screenshotPath } from './screenshots';

const test = peerTest.extend<{ callback: { url: string; server: Server } }>({
  // The app's redirect URI: a web client's page on loopback (as Elk or Phanpy would have).
  // eslint-disable-next-line no-empty-pattern
  callback: async ({}, use) => {
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Signed in</title><h1>Signed in</h1>'));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    await use({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, server });
    await new Promise<void>((done) => server.close(() => done()));
  },
});

test('a Mastodon app signs in through the consent screen, posts to a follower, and is revoked in Apps', async ({ page, context, tern, peer, callback }) => {
  test.setTimeout(90_000);
  const base = tern.listenerUrl!.replace(/\/$/, '');
  await peer.follow(base);
  await peer.waitFor((a) => a.type === 'Accept');

  // 1. The app registers (POST /api/v1/apps).
  const app = await createRestAPIClient({ url: base }).v1.apps.create({ clientName: 'Pocket Tern', redirectUris: callback.url, scopes: 'read write follow', website: 'https://pocket.example' });

  // 2. The browser opens the authorize page: it only waits for the author.
  const authorize = new URL(`${base}/oauth/authorize`);
  authorize.search = new URLSearchParams({ response_type: 'code', client_id: app.clientId!, redirect_uri: callback.url, scope: 'read write follow', state: 's1' }).toString();
  const browser = await context.newPage();
  await browser.goto(authorize.href);
  await expect(browser.getByRole('heading', { name: 'Open Tern to approve' })).toBeVisible();

  // 3. The author approves in Tern's Apps view, with the Mastodon scopes shown.
  await page.goto(tern.url);
  await expect(page.getByTestId('apps-badge')).toHaveText(/1/);
  await page.getByRole('navigation', { name: 'Places' }).getByRole('link', { name: /^Apps/ }).click();
  const consent = page.getByTestId('consent');
  await expect(consent).toContainText('Pocket Tern wants to sign in as you');
  await expect(page.getByTestId('consent-redirect')).toHaveText(callback.url);
  await expect(browser.locator('.pairing-code')).toHaveText((await page.getByTestId('consent-code').textContent()) ?? 'missing');
  await expect(consent.getByRole('checkbox', { name: /Read your timeline/ })).toBeChecked();
  await expect(consent.getByRole('checkbox', { name: /Post, edit, delete/ })).toBeChecked();
  await expect(consent.getByRole('checkbox', { name: /Follow and unfollow/ })).toBeChecked();
  await page.screenshot({ path: screenshotPath('mastodon-consent') });
  await consent.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Pocket Tern is signed in' })).toBeVisible();

  // 4. The waiting page goes back to the app with the code and state; the code becomes a token.
  await browser.waitForURL((url) => url.href.startsWith(callback.url), { timeout: 15_000 });
  const back = new URL(browser.url());
  expect(back.searchParams.get('state')).toBe('s1');
  const token = await createOAuthAPIClient({ url: base }).token.create({
    grantType: 'authorization_code',
    clientId: app.clientId!,
    clientSecret: app.clientSecret!,
    redirectUri: callback.url,
    code: back.searchParams.get('code')!,
  });
  const masto = createRestAPIClient({ url: base, accessToken: token.accessToken });

  // 5. A status from the app reaches the follower.
  const status = await masto.v1.statuses.create({ status: 'Posted from my phone, through the tunnel' });
  const create = await peer.waitFor((a) => a.type === 'Create' && a.objectId === status.uri, 20_000);
  expect(JSON.stringify(create.raw)).toContain('Posted from my phone');

  // 6. Apps lists it, valid until revoked; revoking ends its access.
  await page.reload();
  const row = page.getByTestId('app-access');
  await expect(row).toContainText('Pocket Tern');
  await expect(row).toContainText('until you revoke it');
  await expect(row).toContainText('write');
  await page.screenshot({ path: screenshotPath('mastodon-apps-with-access') });
  await row.getByRole('button', { name: 'Revoke Pocket Tern' }).click();
  await row.getByRole('button', { name: 'Revoke access' }).click();
  await expect(page.getByTestId('app-access')).toHaveCount(0);
  const after = await fetch(`${base}/api/v1/accounts/verify_credentials`, { headers: { authorization: `Bearer ${token.accessToken}` } });
  expect(after.status).toBe(401);
  expect(await after.json()).toMatchObject({ error: 'The access token is invalid' });
});
