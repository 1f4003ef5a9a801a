import { describe, expect, it } from 'vitest';
import { UI_CSP } from '../../core/ipc/http-transport';
import { allowNavigation, allowPermission, cspProblems, isTrustedSender, secureWebPreferences, windowOpenDecision } from './web-security';

describe('the window’s webPreferences', () => {
  const prefs = secureWebPreferences('/app/dist/electron/preload.cjs', 'linux');

  it('sandbox on, context isolation on, no Node integration anywhere', () => {
    expect(prefs).toMatchObject({
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
    });
  });

  it('web security on, no insecure content, no webview, no experimental features, no drag-drop navigation', () => {
    expect(prefs).toMatchObject({
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
    });
    expect(prefs.preload).toBe('/app/dist/electron/preload.cjs');
  });

  it('spellcheck only on macOS, which checks spelling itself; off where Chromium would download dictionaries from Google', () => {
    expect(secureWebPreferences('/p', 'darwin').spellcheck).toBe(true);
    expect(secureWebPreferences('/p', 'linux').spellcheck).toBe(false);
    expect(secureWebPreferences('/p', 'win32').spellcheck).toBe(false);
    expect(secureWebPreferences('/p', 'freebsd').spellcheck).toBe(false);
  });
});

describe('the CSP', () => {
  it('the app’s CSP (served over app:// and in headless mode) is strict', () => {
    expect(cspProblems(UI_CSP)).toEqual([]);
    expect(UI_CSP).not.toMatch(/unsafe-inline|unsafe-eval/);
  });

  it('finds what makes a CSP not strict', () => {
    expect(cspProblems("default-src 'self'; script-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")).toEqual([
      "script-src allows 'unsafe-inline'",
    ]);
    expect(cspProblems("default-src 'self' 'unsafe-eval'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")).toContain(
      "script-src allows 'unsafe-eval'",
    );
    expect(cspProblems("default-src *; base-uri 'none'; frame-ancestors 'none'")).toEqual(
      expect.arrayContaining(['default-src allows *', "object-src is not 'none'"]),
    );
    expect(cspProblems("script-src 'self'")).toContain('no default-src');
    expect(cspProblems("default-src 'self'; style-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")).toEqual([
      "style-src allows 'unsafe-inline'",
    ]);
  });
});

describe('navigation, new windows, permissions', () => {
  it('no navigation is ever allowed, not even to app:// itself', () => {
    for (const url of ['https://evil.example/', 'file:///etc/passwd', 'app://tern/index.html', 'about:blank']) expect(allowNavigation(url)).toBe(false);
  });

  it('new windows are denied; only http(s) links are opened, in the OS browser', () => {
    expect(windowOpenDecision('https://example.com/@ana')).toEqual({ action: 'deny', openExternally: 'https://example.com/@ana' });
    expect(windowOpenDecision('file:///etc/passwd')).toEqual({ action: 'deny', openExternally: null });
    expect(windowOpenDecision('javascript:alert(1)')).toEqual({ action: 'deny', openExternally: null });
    expect(windowOpenDecision('app://tern/index.html')).toEqual({ action: 'deny', openExternally: null });
  });

  it('permission requests are denied except notifications from the app itself', () => {
    expect(allowPermission('notifications', 'app://tern/index.html')).toBe(true);
    expect(allowPermission('notifications', 'app://tern')).toBe(true);
    expect(allowPermission('notifications', 'https://evil.example/')).toBe(false);
    expect(allowPermission('notifications', undefined)).toBe(false);
    for (const permission of ['media', 'geolocation', 'clipboard-read', 'openExternal', 'fullscreen', 'hid', 'serial', 'usb', 'pointerLock']) {
      expect(allowPermission(permission, 'app://tern/index.html'), permission).toBe(false);
    }
  });
});

describe('IPC sender check', () => {
  const ok = { isMainWindow: true, isMainFrame: true, frameUrl: 'app://tern/index.html#/stream' };

  it('serves our own window’s main frame on app://', () => {
    expect(isTrustedSender(ok)).toBe(true);
  });

  it('refuses another webContents, a subframe, and any page not on app://', () => {
    expect(isTrustedSender({ ...ok, isMainWindow: false })).toBe(false);
    expect(isTrustedSender({ ...ok, isMainFrame: false })).toBe(false);
    expect(isTrustedSender({ ...ok, frameUrl: 'https://evil.example/' })).toBe(false);
    expect(isTrustedSender({ ...ok, frameUrl: 'file:///opt/tern/index.html' })).toBe(false);
    expect(isTrustedSender({ ...ok, frameUrl: undefined })).toBe(false);
  });
});
