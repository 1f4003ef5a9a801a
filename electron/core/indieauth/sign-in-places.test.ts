// The places sign-ins wait in for the author, held by strangers: anyone on the internet can open
// /auth, and a stranger naming four redirect hosts filled all twenty places for ten minutes,
// repeatably, so the author's own sign-in was refused. Now one caller (an address, an IPv6 /64)
// gets at most MAX_PENDING_PER_CALLER places; the app is told of refusals, and the author
// declines every waiting request (or one host's) at once — never is a waiting request pushed out
// by a newer one. Service level first, then over real HTTP through the listener, behind a proxy
// that forwards the caller's address.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers, dispatch } from '../ipc/handlers';
import { openListeningCore, type ListeningCore } from '../listener/test-support';
import { OAuthError } from './clients';
import { callerKey, CODE_LIFETIME_MS, MAX_PENDING, MAX_PENDING_PER_CALLER, MAX_PENDING_PER_HOST, type IndieAuthService } from './service';
import { authorizeUrl, pkce, register } from './test-flow';

let t: ListeningCore;
let service: IndieAuthService;

beforeAll(async () => {
  t = await openListeningCore('alice');
  service = t.core.services.indieauth;
});
afterAll(async () => t?.close());
afterEach(() => {
  service.declineAll();
  t.setClockOffset(0);
  t.core.settings.update({ listener: { ...t.core.settings.get().listener, behindProxy: false } });
});

const ipc = async <T>(channel: 'apps.declineAll' | 'apps.refusals', input: Record<string, unknown>): Promise<T> => {
  const result = await dispatch(createHandlers(t.core), channel, input as never);
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return result.value as T;
};

/** A registered client sending its answers to `https://<host>/cb`, checked as /auth checks it. */
async function clientFor(host: string) {
  const redirect = `https://${host}/cb`;
  const client = await register(t.url, { redirect_uris: [redirect] });
  return { info: await service.checkClient(client.client_id, redirect), clientId: client.client_id, redirect };
}

async function start(host: string, from: string | null) {
  const c = await clientFor(host);
  return service.startAuthorization({ clientId: c.clientId, redirectUri: c.redirect, state: 's', codeChallenge: pkce().challenge, scope: 'create', me: null }, c.info, from);
}

async function refusedWith(promise: Promise<unknown>): Promise<OAuthError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OAuthError);
  expect((error as OAuthError).status).toBe(429);
  return error as OAuthError;
}

describe('callerKey', () => {
  it('an IPv4 address is one caller, an IPv6 /64 is one; loopback and unknown are no one', () => {
    expect(callerKey('203.0.113.7')).toBe('203.0.113.7');
    expect(callerKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(callerKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(callerKey('2001:0db8:0001:0002:ffff:1:2:3')).toBe('2001:db8:1:2::/64');
    expect(callerKey('2001:db8::7')).toBe('2001:db8:0:0::/64');
    expect(callerKey('2001:db8:0:1::7')).not.toBe(callerKey('2001:db8::7'));
    for (const none of ['127.0.0.1', '::1', '::ffff:127.0.0.1', 'unknown', '', null]) expect(callerKey(none)).toBeNull();
  });

  it('a private address (a reverse proxy on the LAN, a container, a VPN) is no one: one stranger behind it would otherwise hold every place', () => {
    for (const none of ['10.0.0.7', '172.17.0.1', '192.168.1.20', '100.101.102.103', '169.254.1.1', 'fd7a:115c:a1e0::1', 'fe80::1%eth0', '::ffff:192.168.1.20', 'not an address']) {
      expect(callerKey(none), none).toBeNull();
    }
    expect(callerKey('172.32.0.1')).toBe('172.32.0.1');
    // An IPv4 address written inside an IPv6 one, in any notation, is that IPv4 address.
    expect(callerKey('::ffff:7b7b:7b7b')).toBe('123.123.123.123');
    expect(callerKey('::ffff:7b7b:7b7c')).toBe('123.123.123.124');
    expect(callerKey('0:0:0:0:0:ffff:1.2.3.4')).toBe('1.2.3.4');
    expect(callerKey('64:ff9b::102:304')).toBe('1.2.3.4');
    expect(callerKey('::ffff:a00:1')).toBeNull();
  });
});

describe('places for sign-ins (service)', () => {
  it(`one caller gets ${MAX_PENDING_PER_CALLER} places whatever redirect hosts it names; another caller, and a caller the listener cannot tell, still get theirs`, async () => {
    for (let i = 0; i < MAX_PENDING_PER_CALLER; i++) await start(`evil${i}.example`, '203.0.113.7');
    const error = await refusedWith(start('evil-more.example', '203.0.113.7'));
    expect(error.message).toMatch(new RegExp(`^${MAX_PENDING_PER_CALLER} sign-ins from your address are already waiting for the author`));
    expect(error.message).toMatch(/open Tern \(Apps\): decline the waiting requests/);
    // The same /64, another address in it: the same caller.
    await start('v6-a.example', '2001:db8:5:6::1');
    for (let i = 1; i < MAX_PENDING_PER_CALLER; i++) await start(`v6-${i}.example`, `2001:db8:5:6::${i + 1}`);
    await refusedWith(start('v6-more.example', '2001:db8:5:6:ffff::9'));
    await start('author.example', '198.51.100.2');
    await start('local.example', null);
    expect(service.pending()).toHaveLength(2 * MAX_PENDING_PER_CALLER + 2);
  });

  it('the app learns of refusals; "decline all" answers every waiting request (their pages say access_denied), frees the places and clears the notice', async () => {
    expect(service.refusals()).toEqual({ count: 0, lastAt: null });
    const first = await start('a.example', '192.0.2.1');
    // Many callers, many hosts: every place taken.
    for (let i = 1; service.pending().length < MAX_PENDING; i++) await start(`flood${i}.example`, `192.0.2.${(i % 200) + 2}`);
    const full = await refusedWith(start('author.example', '198.51.100.2'));
    expect(full.message).toMatch(new RegExp(`^${MAX_PENDING} sign-ins are already waiting for the author`));
    await refusedWith(start('author.example', '198.51.100.2'));
    const refusals = service.refusals();
    expect(refusals.count).toBe(2);
    // When the last refusal was (the rig's clock is the real one: within a moment of now).
    expect(Math.abs(Date.parse(refusals.lastAt ?? '') - t.core.clock().getTime())).toBeLessThan(1000);
    // Nothing waiting was pushed out by the refused ones.
    expect(service.pending().map((p) => p.id)).toContain(first.pending.id);

    expect(await ipc('apps.declineAll', { ids: service.pending().map((p) => p.id) })).toEqual({ declined: MAX_PENDING });
    expect(service.pending()).toEqual([]);
    expect(service.refusals()).toEqual({ count: 0, lastAt: null });
    const back = service.wait(first.handle);
    expect(back.kind).toBe('redirect');
    expect(new URL((back as { location: string }).location).searchParams.get('error')).toBe('access_denied');
    await start('author.example', '198.51.100.2');
  });

  it('declining one host’s requests leaves the others waiting, and one that came after the list was read is not declined unseen', async () => {
    for (let i = 0; i < 3; i++) await start('noisy.example', `192.0.2.${i + 1}`);
    const mine = await start('quill.example', '198.51.100.2');
    expect(mine.pending.redirectHost).toBe('quill.example');
    const shown = service.pending().filter((p) => p.redirectHost === 'noisy.example').map((p) => p.id);
    // The author's own sign-in through the same app arrives while they look at the list.
    const later = await start('noisy.example', '198.51.100.3');
    expect(await ipc('apps.declineAll', { ids: shown })).toEqual({ declined: 3 });
    expect(service.pending().map((p) => p.id).sort()).toEqual([mine.pending.id, later.pending.id].sort());
    await expect(ipc('apps.declineAll', {})).rejects.toThrow();
  });

  it('a refusal is told for ten minutes, then forgotten', async () => {
    for (let i = 0; i < MAX_PENDING_PER_HOST; i++) await start('one.example', `192.0.2.${i + 1}`);
    await refusedWith(start('one.example', '192.0.2.99'));
    expect(service.refusals().count).toBe(1);
    t.setClockOffset(CODE_LIFETIME_MS);
    expect(service.refusals()).toEqual({ count: 0, lastAt: null });
  });
});

describe('places for sign-ins (over HTTP, behind a proxy)', () => {
  const open = async (host: string, forwardedFor: string) => {
    const redirect = `https://${host}/cb`;
    const client = await register(t.url, { redirect_uris: [redirect] });
    const url = authorizeUrl(t.url, { response_type: 'code', client_id: client.client_id, redirect_uri: redirect, state: 's', scope: 'create', code_challenge: pkce().challenge, code_challenge_method: 'S256' });
    return fetch(url, { redirect: 'manual', headers: { 'x-forwarded-for': forwardedFor } });
  };

  it('a stranger naming many redirect hosts from one address gets its share and a page saying so; the author, from elsewhere, signs in', async () => {
    t.core.settings.update({ listener: { ...t.core.settings.get().listener, behindProxy: true } });
    const statuses: number[] = [];
    // The caller may write anything before the address the proxy appends: only the last counts.
    for (let i = 0; i <= MAX_PENDING_PER_CALLER; i++) statuses.push((await open(`stranger${i}.example`, `10.0.0.${i}, 203.0.113.7`)).status);
    expect(statuses).toEqual([...Array<number>(MAX_PENDING_PER_CALLER).fill(303), 429]);
    const refused = await open('stranger-more.example', '203.0.113.7');
    expect(refused.status).toBe(429);
    const page = await refused.text();
    expect(page).toMatch(/sign-ins from your address are already waiting for the author/);
    expect(page).toMatch(/If you are the author, open Tern \(Apps\): decline the waiting requests you do not recognise, or all of them at once, then try again\./);
    expect((await open('quill.example', '198.51.100.2')).status).toBe(303);
    expect(service.pending()).toHaveLength(MAX_PENDING_PER_CALLER + 1);
  });

  it('the Mastodon API’s /oauth/authorize counts the same places', async () => {
    t.core.settings.update({ listener: { ...t.core.settings.get().listener, behindProxy: true } });
    const statuses: number[] = [];
    for (let i = 0; i <= MAX_PENDING_PER_CALLER; i++) {
      const registered = await fetch(`${t.url}/api/v1/apps`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: `Stranger ${i}`, redirect_uris: `com.example.stranger${i}:/cb` }) });
      const app = (await registered.json()) as { client_id: string };
      const url = new URL(`${t.url}/oauth/authorize`);
      for (const [k, v] of Object.entries({ client_id: app.client_id, redirect_uri: `com.example.stranger${i}:/cb`, response_type: 'code', scope: 'read' })) url.searchParams.set(k, v);
      const response = await fetch(url, { redirect: 'manual', headers: { 'x-forwarded-for': '203.0.113.9' } });
      statuses.push(response.status);
      if (response.status === 429) expect(await response.text()).toMatch(/from your address are already waiting for the author.*open Tern \(Apps\)/s);
    }
    expect(statuses).toEqual([...Array<number>(MAX_PENDING_PER_CALLER).fill(303), 429]);
  });
});
