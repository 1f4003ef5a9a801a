// Hostile campaign, the author's Markdown as clients send it: posts (Mastodon API, Micropub) and
// the profile note (update_credentials) nested thousands of levels deep — block quotes, ordered
// and `+` lists, emphasis runs — where marked recurses once per level. A post short enough to be
// rendered on the main thread answered 500 after holding it for up to 300 ms, a longer one could
// exhaust the page reader's heap (and abort the process with it); a note was saved and then every
// render of the actor (its document, its page, the Mastodon account) answered 500. Each is
// refused with the reason and stores nothing. And short posts dense with emphasis marks, which
// marked reads in quadratic time, held the main thread for seconds; they are read on the worker.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openListeningCore, type ListeningCore } from '../../electron/core/listener/test-support';
import { issueToken } from '../../electron/core/indieauth/test-flow';
import { reportStalls, runCase } from './rig';

let t: ListeningCore;
let token: string;

beforeAll(async () => {
  t = await openListeningCore('alice', { allowPrivateAddresses: false });
  token = await issueToken(t.url, t.core, ['read', 'write', 'create', 'profile']);
});
afterAll(async () => {
  await t?.close();
  reportStalls('campaign-markdown');
});

const h = { sqlite: () => t.core.sqlite, markupExempt: ['outbox.source'] };
const json = (method: string, path: string, body: unknown) => () =>
  fetch(`${t.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** Markdown nested about `n` levels deep, each way marked recurses. */
const nested: [string, (n: number) => string][] = [
  ['block quotes', (n) => '>'.repeat(n)],
  ['spaced block quotes', (n) => '> '.repeat(n)],
  ['ordered lists', (n) => '1. '.repeat(n)],
  ['+ lists', (n) => '+ '.repeat(n)],
  ['quotes of lists', (n) => '> - '.repeat(n)],
  ['emphasis', (n) => `${'*'.repeat(n)}a${'*'.repeat(n)}`],
  ['underscore emphasis', (n) => `${'_'.repeat(n)}a${'_'.repeat(n)}`],
];
// 4,000 levels: under the 16 KiB rendered on the main thread; 30,000: on the page reader's worker.
const posts = nested.flatMap(([name, make]) => [4_000, 30_000].map((n) => [`${name}, ${n} deep`, make(n)] as const)).filter(([, s]) => s.length <= 100_000);

/** Why a post was refused. */
const READ_FAILED = /could not be rendered \(its Markdown is nested more than 100 levels deep\)/;

describe('a post nested thousands of levels deep', () => {
  it.each(posts)('Mastodon API, %s: 422 with the reason, nothing stored', (name, status) =>
    runCase(h, { name: `status: ${name}`, send: json('POST', '/api/v1/statuses', { status }), status: 422, reason: READ_FAILED }));

  it.each(posts)('Micropub, %s: 400 with the reason, nothing stored', (name, content) =>
    runCase(h, { name: `micropub: ${name}`, send: json('POST', '/micropub', { type: ['h-entry'], properties: { content: [content] } }), status: 400, reason: READ_FAILED }));

  it.each([
    ['a quote in a list', '- > **a _b_**\n  1. c'],
    ['100 levels of quotes', `${'>'.repeat(100)} deep`],
    ['a rule of 500 dashes', `above\n\n${'-'.repeat(500)}\n\nbelow`],
  ])('%s is still taken', (name, status) =>
    runCase(h, { name, send: json('POST', '/api/v1/statuses', { status }), status: 200, changes: { outbox: 1, outgoing_activity: 'any' } }));
});

describe('a short post of many emphasis marks', () => {
  // marked pairs them in quadratic time (markedjs/marked#4099): read on the worker, not here.
  const dense: [string, string][] = [
    ['`1.*` 1,500 times (4.5 KB)', '1.*'.repeat(1_500)],
    ['`_a*` 1,500 times (4.5 KB)', '_a*'.repeat(1_500)],
    ['`a_` 6,000 times (12 KB)', 'a_'.repeat(6_000)],
    ['1,500 emphasis openers, then their closers', `${'*a '.repeat(1_500)}x${' a*'.repeat(1_500)}`],
  ];
  it.each(dense)('%s: taken without holding the main thread', (name, status) =>
    runCase(h, { name, send: json('POST', '/api/v1/statuses', { status }), status: 200, changes: { outbox: 1, outgoing_activity: 'any' } }));
});

describe('a profile note nested thousands of levels deep', () => {
  /** As deep as the 5,000 characters of a summary allow. */
  const deepest = (make: (n: number) => string) => {
    let n = 1;
    while (make(n + 1).length <= 5_000) n++;
    return make(n);
  };
  const notes = nested.map(([name, make]) => [name, deepest(make)] as const);
  it.each(notes)('%s: 422 with the reason, the note kept, the actor still served', async (name, note) => {
    const before = t.core.settings.get().summary;
    await runCase(h, { name: `note: ${name}`, send: json('PATCH', '/api/v1/accounts/update_credentials', { note }), status: 422, reason: /nested more than 100 levels deep/ });
    expect(t.core.settings.get().summary).toBe(before);
    for (const path of ['/', '/api/v1/accounts/verify_credentials']) {
      const res = await fetch(`${t.url}${path}`, { headers: { accept: 'application/activity+json', authorization: `Bearer ${token}` } });
      expect(res.status, `${path}: ${await res.text()}`).toBe(200);
    }
  });

  // marked is quadratic in emphasis marks, and the note is rendered for every fetch of the actor:
  // 5,000 characters of `1.*` held the main thread 700 ms each time.
  it.each([
    ['`1.*` 1,666 times', '1.*'.repeat(1_666)],
    ['`_a*` 1,666 times', '_a*'.repeat(1_666)],
    ['800 emphasis openers, then their closers', `${'*a '.repeat(800)}x${' a*'.repeat(800)}`],
  ])('a note of %s: 422 with the reason, the note kept', async (name, note) => {
    const before = t.core.settings.get().summary;
    await runCase(h, { name: `note: ${name}`, send: json('PATCH', '/api/v1/accounts/update_credentials', { note }), status: 422, reason: /more than 256 emphasis marks/ });
    expect(t.core.settings.get().summary).toBe(before);
  });

  it('a note of many emphasis marks saved before they were refused is rendered once, not at every fetch', async () => {
    t.core.settings.update({ summary: '1.*'.repeat(1_666) });
    try {
      await fetch(`${t.url}/`, { headers: { accept: 'application/activity+json' } }).then((r) => r.text()); // the first render
      for (let i = 0; i < 3; i++) {
        await runCase(h, { name: `stored dense note, fetch ${i + 1}`, send: () => fetch(`${t.url}/`, { headers: { accept: 'application/activity+json' } }), status: 200 });
      }
    } finally {
      t.core.settings.update({ summary: '' });
    }
  });

  it('a note saved before this was refused is served as its text, not a 500', async () => {
    t.core.settings.update({ summary: '>'.repeat(4_000) });
    try {
      for (const path of ['/', '/api/v1/accounts/verify_credentials']) {
        await runCase(h, { name: `stored note: ${path}`, send: () => fetch(`${t.url}${path}`, { headers: { accept: 'application/activity+json', authorization: `Bearer ${token}` } }), status: 200, reason: /(&gt;){100}/ });
      }
    } finally {
      t.core.settings.update({ summary: '' });
    }
  });
});
