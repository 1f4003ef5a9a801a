// The Electron-touching adapters, with `electron` replaced by a stub: checks that hardenContents,
// hardenSession and registerIpc really apply the policy to the events Electron emits.
import { EventEmitter } from 'node:events';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const electron = vi.hoisted(() => ({
  openExternal: vi.fn(async () => {}),
  handlers: new Map<string, (event: unknown, input: unknown) => Promise<unknown>>(),
  listeners: new Map<string, (event: unknown) => void>(),
}));

vi.mock('electron', () => ({
  shell: { openExternal: electron.openExternal },
  ipcMain: {
    handle: (channel: string, handler: (event: unknown, input: unknown) => Promise<unknown>) => electron.handlers.set(channel, handler),
    removeHandler: (channel: string) => electron.handlers.delete(channel),
    on: (channel: string, listener: (event: unknown) => void) => electron.listeners.set(channel, listener),
    off: (channel: string) => electron.listeners.delete(channel),
  },
}));

const { hardenContents, hardenSession, webPreferencesFor } = await import('./security');
const { registerIpc } = await import('./ipc');
const { SHELL_EVENTS } = await import('./events');

class FakeContents extends EventEmitter {
  openHandler: ((details: { url: string }) => { action: string }) | null = null;
  mainFrame = { url: 'app://tern/index.html' };
  setWindowOpenHandler(handler: (details: { url: string }) => { action: string }) {
    this.openHandler = handler;
  }
  getURL() {
    return this.mainFrame.url;
  }
}

function emitPrevented(contents: EventEmitter, name: string, url: string): boolean {
  let prevented = false;
  contents.emit(name, { url, preventDefault: () => (prevented = true) });
  return prevented;
}

beforeEach(() => {
  electron.openExternal.mockClear();
  electron.handlers.clear();
  electron.listeners.clear();
});

describe('hardenContents', () => {
  it('blocks every navigation, frame navigation, redirect and webview', () => {
    const contents = new FakeContents();
    hardenContents(contents as never);
    expect(emitPrevented(contents, 'will-navigate', 'https://evil.example/')).toBe(true);
    expect(emitPrevented(contents, 'will-navigate', 'app://tern/index.html')).toBe(true);
    expect(emitPrevented(contents, 'will-frame-navigate', 'https://evil.example/')).toBe(true);
    expect(emitPrevented(contents, 'will-redirect', 'file:///etc/passwd')).toBe(true);
    expect(emitPrevented(contents, 'will-attach-webview', 'https://evil.example/')).toBe(true);
  });

  it('denies new windows, sending only http(s) links to the OS browser', () => {
    const contents = new FakeContents();
    hardenContents(contents as never);
    expect(contents.openHandler?.({ url: 'https://example.com/@ana' })).toEqual({ action: 'deny' });
    expect(contents.openHandler?.({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(contents.openHandler?.({ url: 'javascript:alert(1)' })).toEqual({ action: 'deny' });
    expect(electron.openExternal.mock.calls).toEqual([['https://example.com/@ana']]);
  });

  it('webPreferencesFor is the hardened set', () => {
    expect(webPreferencesFor('/p.cjs')).toMatchObject({ sandbox: true, contextIsolation: true, nodeIntegration: false, preload: '/p.cjs' });
  });
});

describe('hardenSession', () => {
  it('grants notifications to app:// only and denies every other permission; refuses downloads', () => {
    type Request = (contents: unknown, permission: string, callback: (ok: boolean) => void, details: { requestingUrl?: string }) => void;
    type Check = (contents: unknown, permission: string, origin: string) => boolean;
    const installed: { request?: Request; check?: Check } = {};
    const session = new EventEmitter() as EventEmitter & Record<string, unknown>;
    session.setPermissionRequestHandler = (h: Request) => (installed.request = h);
    session.setPermissionCheckHandler = (h: Check) => (installed.check = h);
    hardenSession(session as never);
    const ask = (permission: string, requestingUrl: string) => {
      let answer: boolean | null = null;
      installed.request?.(new FakeContents(), permission, (ok) => (answer = ok), { requestingUrl });
      return answer;
    };
    expect(ask('notifications', 'app://tern/index.html')).toBe(true);
    expect(ask('notifications', 'https://evil.example/')).toBe(false);
    expect(ask('media', 'app://tern/index.html')).toBe(false);
    expect(ask('geolocation', 'app://tern/index.html')).toBe(false);
    expect(installed.check?.(null, 'notifications', 'app://tern')).toBe(true);
    expect(installed.check?.(null, 'clipboard-read', 'app://tern')).toBe(false);
    expect(emitPrevented(session, 'will-download', '')).toBe(true);
  });
});

describe('registerIpc: every handler checks its sender', () => {
  function setup() {
    const window = new FakeContents();
    const handlers = { 'app.status': vi.fn(() => ({ fine: true })) };
    const hints: number[] = [];
    const unregister = registerIpc(handlers as never, () => window as never, () => void hints.push(1));
    return { window, handlers, hints, unregister };
  }

  it('registers one handler per contract channel, and removes them all', async () => {
    const { CHANNELS } = await import('../core/ipc/contract');
    const { unregister } = setup();
    expect([...electron.handlers.keys()].sort()).toEqual([...CHANNELS].sort());
    unregister();
    expect(electron.handlers.size).toBe(0);
    expect(electron.listeners.size).toBe(0);
  });

  it('serves our window’s main frame on app://, refuses anyone else without calling the handler', async () => {
    const { window, handlers } = setup();
    const call = (event: unknown) => electron.handlers.get('app.status')?.(event, {});
    const other = new FakeContents();
    const forbidden = { ok: false, error: { code: 'forbidden' } };
    expect(await call({ sender: other, senderFrame: other.mainFrame })).toMatchObject(forbidden);
    expect(await call({ sender: window, senderFrame: { url: 'app://tern/index.html' } })).toMatchObject(forbidden); // a subframe
    window.mainFrame.url = 'https://evil.example/';
    expect(await call({ sender: window, senderFrame: window.mainFrame })).toMatchObject(forbidden);
    expect(await call({ sender: window, senderFrame: null })).toMatchObject(forbidden);
    expect(handlers['app.status']).not.toHaveBeenCalled();
    window.mainFrame.url = 'app://tern/index.html#/stream';
    expect(await call({ sender: window, senderFrame: window.mainFrame })).toMatchObject({ ok: true, value: { fine: true } });
  });

  it('the page’s network hint is taken from our window only', () => {
    const { window, hints } = setup();
    const hint = electron.listeners.get(SHELL_EVENTS.networkHint);
    const other = new FakeContents();
    hint?.({ sender: other, senderFrame: other.mainFrame });
    expect(hints).toEqual([]);
    hint?.({ sender: window, senderFrame: window.mainFrame });
    expect(hints).toEqual([1]);
  });
});
