import { join, normalize, posix, sep, win32 } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appRoute, externalUrl, isAppUrl, resolveAppFile } from './app-url';

describe('isAppUrl', () => {
  it('accepts the app:// origin and anything on it', () => {
    expect(isAppUrl('app://tern/index.html')).toBe(true);
    expect(isAppUrl('app://tern/index.html#/compose')).toBe(true);
    expect(isAppUrl('app://tern')).toBe(true);
  });

  it('refuses file://, other hosts, ports, credentials, look-alikes and nothing', () => {
    for (const url of [
      'file:///opt/tern/index.html',
      'app://evil/index.html',
      'app://tern:8080/index.html',
      'app://user@tern/index.html',
      'https://tern/index.html',
      'app://tern.evil.example/',
      'null',
      '',
      undefined,
      null,
      'not a url',
    ]) {
      expect(isAppUrl(url), String(url)).toBe(false);
    }
  });

  it('does not rely on URL.origin, which Node gives as "null" for app://', () => {
    expect(new URL('app://tern/').origin).toBe('null');
    expect(isAppUrl('app://tern/')).toBe(true);
  });
});

describe('appRoute', () => {
  it('builds in-app addresses from hash routes only', () => {
    expect(appRoute('#/compose')).toBe('app://tern/index.html#/compose');
    expect(appRoute('#/thread?ap=https%3A%2F%2Fx.example%2F1')).toBe('app://tern/index.html#/thread?ap=https%3A%2F%2Fx.example%2F1');
    expect(() => appRoute('https://evil.example/')).toThrow();
    expect(() => appRoute('#/x y')).toThrow();
  });
});

describe('externalUrl (links leave the app only as parsed http(s) URLs)', () => {
  it('passes http and https links through, normalised', () => {
    expect(externalUrl('https://example.com/a b')).toBe('https://example.com/a%20b');
    expect(externalUrl('http://example.com')).toBe('http://example.com/');
  });

  it('drops every other scheme, garbage and credentials', () => {
    for (const raw of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:text/html,<script>',
      'smb://host/share',
      'app://tern/index.html',
      'ms-msdt:/id',
      'vbscript:x',
      '//example.com',
      'example.com',
      'https://bank.example@evil.example/',
      '',
    ]) {
      expect(externalUrl(raw), raw).toBeNull();
    }
  });
});

describe('resolveAppFile (what app:// serves)', () => {
  const root = join('/opt', 'tern', 'dist', 'renderer');
  const posixPath = { join, normalize, sep };

  it('maps / to index.html and paths to files inside the renderer folder', () => {
    expect(resolveAppFile(root, 'app://tern/', posixPath)).toBe(join(root, 'index.html'));
    expect(resolveAppFile(root, 'app://tern/assets/main.js', posixPath)).toBe(join(root, 'assets', 'main.js'));
  });

  it('refuses traversal (plain, encoded, backslashed), NUL, other hosts and schemes', () => {
    // Plain dots are resolved by the URL parser itself: they stay inside the folder.
    expect(resolveAppFile(root, 'app://tern/../../etc/passwd', posixPath)).toBe(join(root, 'etc', 'passwd'));
    expect(resolveAppFile(root, 'app://tern/%2e%2e/%2e%2e/etc/passwd', posixPath)).toBe(join(root, 'etc', 'passwd'));
    for (const url of [
      'app://tern/..%2f..%2fetc%2fpasswd',
      'app://tern/a%00.html',
      'app://tern/%E0%A4%A',
      'app://evil/index.html',
      'file:///opt/tern/dist/renderer/index.html',
    ]) {
      expect(resolveAppFile(root, url, posixPath), url).toBeNull();
    }
    // A sibling folder whose name starts like the renderer folder's is outside it too.
    expect(resolveAppFile(root, 'app://tern/..%2frenderer-evil%2fx.js', posixPath)).toBeNull();
  });

  it('holds on Windows paths as well', () => {
    const winPath = { join: win32.join, normalize: win32.normalize, sep: win32.sep };
    const winRoot = 'C:\\Tern\\resources\\app.asar\\dist\\renderer';
    expect(resolveAppFile(winRoot, 'app://tern/index.html', winPath)).toBe(`${winRoot}\\index.html`);
    expect(resolveAppFile(winRoot, 'app://tern/..%5c..%5csecrets.txt', winPath)).toBeNull();
    expect(posix.sep).toBe('/');
  });
});
