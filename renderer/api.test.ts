// The client's choice of transport and how each kind of failure becomes an ApiError.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AppStatus, IpcResult, TernBridge } from '../electron/core/ipc/contract';
import { ApiError, call } from './api';
import { rememberToken } from './headlessToken';
import { strings } from './strings';

const status = { revision: '4ab54becec04', head: '4ab54becec04' } as AppStatus;
const json = (body: unknown, init?: ResponseInit) =>
  new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json' }, ...init });

afterEach(() => vi.unstubAllGlobals());

/** This tab's sessionStorage, as the page has it after opening the printed link. */
function tabStorage(): Map<string, string> {
  const store = new Map<string, string>();
  vi.stubGlobal('sessionStorage', {
    getItem: (key: string) => store.get(key) ?? null,
    setItem: (key: string, value: string) => void store.set(key, value),
    removeItem: (key: string) => void store.delete(key),
  });
  return store;
}

describe('call over HTTP (no window.tern)', () => {
  beforeEach(() => {
    tabStorage();
    rememberToken('the-token-0123456789');
  });

  it('POSTs the input as JSON to /ipc/<channel> with the token as a bearer header, and returns the value', async () => {
    const fetch = vi.fn(async () => json({ ok: true, value: status }));
    vi.stubGlobal('fetch', fetch);
    await expect(call('app.status', {})).resolves.toEqual(status);
    expect(fetch).toHaveBeenCalledWith('/ipc/app.status', expect.objectContaining({
      method: 'POST',
      body: '{}',
      credentials: 'same-origin',
      headers: expect.objectContaining({ 'Content-Type': 'application/json', Authorization: 'Bearer the-token-0123456789' }),
    }));
  });

  it('without the link\'s token asks for the link, and sends nothing', async () => {
    tabStorage();
    const fetch = vi.fn();
    vi.stubGlobal('fetch', fetch);
    await expect(call('app.status', {})).rejects.toMatchObject({ code: 'forbidden', message: strings.errors.forbidden });
    expect(fetch).not.toHaveBeenCalled();
  });

  it('turns {ok:false} into an ApiError with its code and sentence', async () => {
    vi.stubGlobal('fetch', async () => json({ ok: false, error: { code: 'conflict', message: 'Already there.' } }, { status: 409 }));
    const error = await call('app.status', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'conflict', message: 'Already there.', channel: 'app.status' });
  });

  it('turns a 401 into "forbidden" asking for the link with the token', async () => {
    vi.stubGlobal('fetch', async () => new Response('<h1>401</h1>', { status: 401 }));
    await expect(call('app.status', {})).rejects.toMatchObject({ code: 'forbidden', message: strings.errors.forbidden });
  });

  it('turns a network failure into "unavailable"', async () => {
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('Failed to fetch');
    });
    await expect(call('app.status', {})).rejects.toMatchObject({ code: 'unavailable', message: strings.errors.unavailable });
  });

  it('turns an answer that is not an IpcResult into "internal"', async () => {
    vi.stubGlobal('fetch', async () => json({ hello: 'world' }));
    await expect(call('app.status', {})).rejects.toMatchObject({ code: 'internal', message: strings.errors.badAnswer });
  });

  it('turns a gateway error page into "unavailable"', async () => {
    vi.stubGlobal('fetch', async () => new Response('Bad gateway', { status: 502 }));
    await expect(call('app.status', {})).rejects.toMatchObject({ code: 'unavailable' });
  });
});

describe('call through the Electron preload (window.tern)', () => {
  it('uses window.tern and never fetch', async () => {
    const bridge = { 'app.status': vi.fn(async (): Promise<IpcResult<AppStatus>> => ({ ok: true, value: status })) } satisfies Pick<TernBridge, 'app.status'>;
    const fetch = vi.fn();
    vi.stubGlobal('window', { tern: bridge });
    vi.stubGlobal('fetch', fetch);
    await expect(call('app.status', {})).resolves.toEqual(status);
    expect(bridge['app.status']).toHaveBeenCalledWith({});
    expect(fetch).not.toHaveBeenCalled();
  });

  it('turns a rejected IPC call into "internal"', async () => {
    vi.stubGlobal('window', { tern: { 'app.status': async () => Promise.reject(new Error('No handler registered')) } });
    await expect(call('app.status', {})).rejects.toMatchObject({ code: 'internal', message: strings.errors.internal });
  });
});
