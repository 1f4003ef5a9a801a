// The token of the printed link: read from the #fragment, kept in the tab's storage, and taken
// out of the address so the app's routes (also #…) never see it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { adoptTokenFromAddress, headlessToken, splitTokenFragment } from './headlessToken';

afterEach(() => vi.unstubAllGlobals());

describe('splitTokenFragment', () => {
  it('reads the token of the printed link, with or without a place after it', () => {
    expect(splitTokenFragment('#token=abc123')).toEqual({ token: 'abc123', rest: '' });
    expect(splitTokenFragment('#token=abc123#/thread?ap=x')).toEqual({ token: 'abc123', rest: '#/thread?ap=x' });
    expect(splitTokenFragment('#token=a%2Bb')).toEqual({ token: 'a+b', rest: '' });
  });

  it('finds nothing in a route, an empty token or a broken escape', () => {
    expect(splitTokenFragment('#/stream')).toBeNull();
    expect(splitTokenFragment('')).toBeNull();
    expect(splitTokenFragment('#token=')).toBeNull();
    expect(splitTokenFragment('#token=%E0%A4%A')).toBeNull();
  });
});

/** A page at `url`: location, history and this tab's sessionStorage. */
function fakePage(url: string) {
  const location = new URL(url);
  const store = new Map<string, string>();
  const listeners: (() => void)[] = [];
  vi.stubGlobal('sessionStorage', {
    getItem: (key: string) => store.get(key) ?? null,
    setItem: (key: string, value: string) => void store.set(key, value),
  });
  vi.stubGlobal('window', {
    location,
    history: { state: null, replaceState: (_s: unknown, _t: string, to: string) => (location.href = new URL(to, location.href).href) },
    addEventListener: (type: string, listener: () => void) => type === 'hashchange' && listeners.push(listener),
  });
  return { location, store, navigate: (to: string) => ((location.href = to), listeners.forEach((l) => l())) };
}

describe('adoptTokenFromAddress', () => {
  it('keeps the token for this tab and leaves the address without it (a reload finds it again)', () => {
    const page = fakePage('http://127.0.0.1:4860/#token=secret-0123456789#/compose');
    adoptTokenFromAddress();
    expect(headlessToken()).toBe('secret-0123456789');
    expect(page.location.href).toBe('http://127.0.0.1:4860/#/compose');
  });

  it('takes a link opened again in the same tab (only the fragment changes, no reload)', () => {
    const page = fakePage('http://127.0.0.1:4860/#/stream');
    adoptTokenFromAddress();
    expect(headlessToken()).toBeNull();
    page.navigate('http://127.0.0.1:4860/#token=new-token-0123456789');
    expect(headlessToken()).toBe('new-token-0123456789');
    expect(page.location.hash).toBe('');
  });

  it('keeps the token for the page when the tab’s storage refuses it (full), though reading works', () => {
    const page = fakePage('http://127.0.0.1:4860/#token=kept-in-memory-0123');
    vi.stubGlobal('sessionStorage', {
      getItem: (key: string) => page.store.get(key) ?? null,
      setItem: () => {
        throw new DOMException('full', 'QuotaExceededError');
      },
    });
    adoptTokenFromAddress();
    expect(headlessToken()).toBe('kept-in-memory-0123');
  });
});
