// Trailing slashes and fragments cut from remote ids: the same answers as the regexes they
// replace, and linear on the run of slashes a hostile id can hold.
import { describe, expect, it } from 'vitest';
import { bareOriginTwin, withoutFragment, withoutTrailingSlashes } from './trailing-slashes';

describe('withoutTrailingSlashes and withoutFragment', () => {
  it("answer as .replace(/\\/+$/, '') and .replace(/#.*$/, '') do on ids", () => {
    for (const id of ['https://a.example/users/x', 'https://a.example/users/x/', 'https://a.example///', '///', '', 'x/y']) {
      expect(withoutTrailingSlashes(id)).toBe(id.replace(/\/+$/, ''));
    }
    for (const id of ['https://a.example/u#main-key', 'https://a.example/u', '#', 'a#b#c']) expect(withoutFragment(id)).toBe(id.replace(/#.*$/, ''));
  });

  it('take a 1 MiB run of slashes followed by another character in one pass', () => {
    // The regex took 6 s for 64 KiB of this; the bound is generous, for a busy machine.
    const hostile = `https://a.example/${'/'.repeat(1024 * 1024)}x`;
    const started = performance.now();
    expect(withoutTrailingSlashes(hostile)).toBe(hostile);
    expect(withoutFragment(`${'#'.repeat(1024 * 1024)}\n`)).toBe('');
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('bareOriginTwin', () => {
  it('gives the other spelling of a bare origin, and nothing for an id with a path, a query or a fragment', () => {
    expect(bareOriginTwin('https://quill.example')).toBe('https://quill.example/');
    expect(bareOriginTwin('https://quill.example/')).toBe('https://quill.example');
    expect(bareOriginTwin('http://127.0.0.1:4861')).toBe('http://127.0.0.1:4861/');
    for (const id of ['https://quill.example/users/a', 'https://quill.example/users/a/', 'https://quill.example//', 'https://quill.example?x', 'https://quill.example/#k', 'https://', 'acct:a@quill.example', '']) {
      expect([id, bareOriginTwin(id)]).toEqual([id, null]);
    }
  });
});
