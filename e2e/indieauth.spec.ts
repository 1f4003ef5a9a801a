// An app signs in and posts, as an independent client would: it discovers Tern's endpoints from
// the profile page (microformats-parser for <link rel>s; the HTTP Link header when the page has
// none), registers itself (RFC 7591) and runs the OAuth code flow with PKCE using oauth4webapi —
// an OAuth library that knows nothing of Tern. The author approves on Tern's consent screen
// (driven here by Playwright), the app posts through Micropub, uploads an image to the media
// endpoint it finds in q=config and posts it, and the posts reach a Fedify peer that follows
// Tern (the image as an attachment with its alt text). Revoking the app in the Apps view ends
// its access. Strangers' requests holding every place: the author sees that sign-ins are being
// refused and declines them, one host's or all, in one click.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mf2 } from 'microformats-parser';
import * as oauth from 'oauth4webapi';
import { photo } from '../electron/core/media/test-images';
import { expect, listeningTest, test as peerTest } from './peer-fixtures';
import { screenshotPath } from './screenshots';

const test = peerTest.extend<{ callback: { url: string; server: Server } }>({
  // The app's redirect URI: a loopback page, as a native app would use (RFC 8252).
  // eslint-disable-next-line no-empty-pattern
  callback: async ({}, use) => {
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Signed in</title><h1>Signed in</h1>'));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    await use({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, server });
    await new Promise<void>((done) => server.close(() => done()));
  },
});

/** rel values of the profile: from its HTML with an mf2 parser, else from its Link header. */
async function discover(profileUrl: string): Promise<{ metadata: string; micropub: string; source: string }> {
  const response = await fetch(profileUrl, { headers: { accept: 'text/html' } });
  const parsed = mf2(await response.text(), { baseUrl: profileUrl });
  const fromHtml = (rel: string) => parsed.rels[rel]?.[0];
  const header = response.headers.get('link') ?? '';
  const fromHeader = (rel: string) => new RegExp(`<([^>]+)>;\\s*rel="${rel}"`).exec(header)?.[1];
  const metadataHtml = fromHtml('indieauth-metadata');
  const micropubHtml = fromHtml('micropub');
  const metadata = metadataHtml ?? fromHeader('indieauth-metadata');
  const micropub = micropubHtml ?? fromHeader('micropub');
  if (!metadata || !micropub) throw new Error(`no indieauth-metadata / micropub on ${profileUrl}`);
  return { metadata, micropub, source: metadataHtml && micropubHtml ? 'html' : 'link-header' };
}

const insecure = { [oauth.allowInsecureRequests]: true } as const;

test('an app registers, the author approves it on the consent screen, and its Micropub post reaches a follower', async ({ page, context, tern, peer, callback }) => {
  test.setTimeout(90_000);
  const profile = `${tern.listenerUrl!.replace(/\/$/, '')}/`;

  // A follower on another server.
  await peer.follow(profile.replace(/\/$/, ''));
  await peer.waitFor((a) => a.type === 'Accept');

  // 1. Discovery: the profile's rels, then RFC 8414 metadata through oauth4webapi.
  const found = await discover(profile);
  test.info().annotations.push({ type: 'discovery', description: `endpoints found in the profile's ${found.source}` });
  const issuer = new URL(((await (await fetch(found.metadata)).json()) as { issuer: string }).issuer);
  expect(issuer.href).toBe(profile);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  expect(as.code_challenge_methods_supported).toEqual(['S256']);

  // 2. Dynamic client registration (RFC 7591).
  const registered = await oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(as, { client_name: 'Playwright Writer', redirect_uris: [callback.url], token_endpoint_auth_method: 'client_secret_basic' }, insecure),
  );
  const client: oauth.Client = { client_id: registered.client_id };
  const clientSecret = registered.client_secret as string;
  expect(clientSecret.length).toBeGreaterThan(30);

  // 3. The authorization request, opened in the app user's browser: Tern's page only waits.
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const authorize = new URL(as.authorization_endpoint!);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: callback.url,
    scope: 'create profile media',
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    me: profile,
  }).toString();
  const browser = await context.newPage();
  await browser.goto(authorize.href);
  await expect(browser.getByRole('heading', { name: 'Open Tern to approve' })).toBeVisible();
  await browser.screenshot({ path: screenshotPath('indieauth-waiting-page') });

  // 4. The author sees the request in Tern and approves it, keeping both scopes.
  await page.goto(tern.url);
  const apps = page.getByRole('navigation', { name: 'Places' }).getByRole('link', { name: /^Apps/ });
  await expect(page.getByTestId('apps-badge')).toHaveText(/1/);
  await apps.click();
  const consent = page.getByTestId('consent');
  await expect(consent).toContainText('Playwright Writer wants to sign in as you');
  await expect(page.getByTestId('consent-redirect')).toHaveText(callback.url);
  await expect(browser.locator('.pairing-code')).toHaveText((await page.getByTestId('consent-code').textContent()) ?? 'missing');
  await expect(consent.getByRole('checkbox', { name: /Post, like and boost as you/ })).toBeChecked();
  await expect(consent.getByRole('checkbox', { name: /See your name/ })).toBeChecked();
  await expect(consent.getByRole('checkbox', { name: /Upload images, video and audio/ })).toBeChecked();
  await page.screenshot({ path: screenshotPath('apps-consent') });
  await consent.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Playwright Writer is signed in' })).toBeVisible();

  // 5. The waiting page moves on by itself to the app, with code, state and iss.
  await browser.waitForURL((url) => url.href.startsWith(callback.url), { timeout: 15_000 });
  const params = oauth.validateAuthResponse(as, client, new URL(browser.url()), state);
  const tokens = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(as, client, oauth.ClientSecretBasic(clientSecret), params, callback.url, verifier, insecure),
  );
  expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'profile create media', me: profile });
  expect(tokens.expires_in).toBeGreaterThan(0);

  // 6. Micropub: an ordinary post, federated to the follower.
  const micropub = (body: URLSearchParams) =>
    fetch(found.micropub, { method: 'POST', headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/x-www-form-urlencoded' }, body });
  const created = await micropub(new URLSearchParams([['h', 'entry'], ['content', 'Written in another app, posted through **Micropub**'], ['category[]', 'indieweb']]));
  expect(created.status).toBe(201);
  const location = created.headers.get('location')!;
  const create = await peer.waitFor((a) => a.type === 'Create' && a.objectId === location, 20_000);
  expect(JSON.stringify(create.raw)).toContain('<strong>Micropub</strong>');
  expect(create.actorId?.replace(/\/$/, '')).toBe(profile.replace(/\/$/, ''));

  // 7. Media: the endpoint from q=config, an image uploaded to it, then posted with alt text.
  const bearer = { authorization: `Bearer ${tokens.access_token}` };
  const config = (await (await fetch(`${found.micropub}?q=config`, { headers: bearer })).json()) as { 'media-endpoint'?: string };
  expect(config['media-endpoint']).toBeTruthy();
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(await photo(400, 300))], { type: 'image/jpeg' }), 'harbour.jpg');
  const uploaded = await fetch(config['media-endpoint']!, { method: 'POST', headers: bearer, body: form });
  expect(uploaded.status).toBe(201);
  const fileUrl = uploaded.headers.get('location')!;
  expect(fileUrl).toMatch(/\/harbour\.jpg$/);
  const withPhoto = await fetch(found.micropub, {
    method: 'POST',
    headers: { ...bearer, 'content-type': 'application/json' },
    body: JSON.stringify({ type: ['h-entry'], properties: { content: ['The harbour, from the app'], photo: [{ value: fileUrl, alt: 'Boats in a harbour' }] } }),
  });
  expect(withPhoto.status).toBe(201);
  const photoPost = withPhoto.headers.get('location')!;
  const photoCreate = await peer.waitFor((a) => a.type === 'Create' && a.objectId === photoPost, 20_000);
  expect(await peer.receivedAttachments(photoCreate.id!)).toEqual([
    { type: 'Image', mediaType: 'image/jpeg', url: fileUrl, name: 'Boats in a harbour', width: 400, height: 300 },
  ]);
  expect((await peer.fetchMedia(fileUrl)).status).toBe(200);

  // 8. Apps with access lists it; the author revokes it, and the token stops working.
  await page.reload();
  const row = page.getByTestId('app-access');
  await expect(row).toContainText('Playwright Writer');
  await expect(row).toContainText('create');
  await expect(row).toContainText('media');
  await page.screenshot({ path: screenshotPath('apps-with-access') });
  await row.getByRole('button', { name: 'Revoke Playwright Writer' }).click();
  await row.getByRole('button', { name: 'Revoke access' }).click();
  await expect(page.getByTestId('app-access')).toHaveCount(0);
  const refused = await micropub(new URLSearchParams({ h: 'entry', content: 'after revocation' }));
  expect(refused.status).toBe(401);
});

listeningTest('strangers fill every place: the refused page says so, the Apps view says sign-ins are refused, and one click declines them all', async ({ page, tern }) => {
  test.setTimeout(60_000);
  const base = tern.listenerUrl!.replace(/\/$/, '');
  const open = async (host: string) => {
    const redirect = `https://${host}/cb`;
    const registered = await fetch(`${base}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: `Stranger ${host}`, redirect_uris: [redirect] }) });
    const { client_id } = (await registered.json()) as { client_id: string };
    const url = new URL(`${base}/auth`);
    url.search = new URLSearchParams({ response_type: 'code', client_id, redirect_uri: redirect, state: 's', code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()), code_challenge_method: 'S256' }).toString();
    return fetch(url, { redirect: 'manual' });
  };
  // Four redirect hosts, five requests each: every one of the twenty places.
  for (let host = 0; host < 4; host++) for (let i = 0; i < 5; i++) expect((await open(`stranger${host}.example`)).status).toBe(303);
  const refused = await open('quill.example');
  expect(refused.status).toBe(429);
  expect(await refused.text()).toContain('If you are the author, open Tern (Apps): decline the waiting requests you do not recognise, or all of them at once, then try again.');

  await page.goto(tern.url);
  await page.getByRole('navigation', { name: 'Places' }).getByRole('link', { name: /^Apps/ }).click();
  const notice = page.getByTestId('sign-ins-refused');
  await expect(notice).toContainText('1 sign-in was refused: too many are waiting');
  await expect(page.getByTestId('consent')).toHaveCount(20);
  await page.screenshot({ path: screenshotPath('apps-sign-ins-refused') });

  // One host's requests first, from any of its cards.
  await page.getByTestId('consent').first().getByRole('button', { name: /^Decline all 5 for stranger\d\.example$/ }).click();
  await expect(page.getByTestId('consent')).toHaveCount(15);
  await expect(page.getByRole('status').filter({ hasText: '5 requests were declined.' })).toBeVisible();
  // Then everything still waiting, at once.
  await page.getByTestId('decline-all').click();
  await expect(page.getByTestId('consent')).toHaveCount(0);
  await expect(page.getByRole('status').filter({ hasText: '15 requests were declined.' })).toBeVisible();
  await expect(notice).toHaveCount(0);

  // The author's own sign-in has a place again.
  expect((await open('quill.example')).status).toBe(303);
  await expect(page.getByTestId('consent')).toHaveCount(1);
});
