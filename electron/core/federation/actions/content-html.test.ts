// A page of views sanitizes its texts within one budget per turn of the event loop; the texts
// past it are shown as plain text, then formatted a slice at a time and kept for the next view.
import { beforeEach, expect, it, vi } from 'vitest';
import { contentHtmlOf, textsWaiting } from './content-html';
import { unparsedText } from '../sanitize';
import { sanitizeStoredHtml } from '../sanitize-stored';

vi.mock('../sanitize-stored', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../sanitize-stored')>();
  return { ...actual, sanitizeStoredHtml: vi.fn(actual.sanitizeStoredHtml) };
});
const sanitizeCalls = () => vi.mocked(sanitizeStoredHtml).mock.calls.length;

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
async function allFormattedAfter(): Promise<void> {
  for (let turns = 0; textsWaiting() > 0 && turns < 10_000; turns++) await nextTurn();
  expect(textsWaiting()).toBe(0);
}

/** 19,900 characters of mention markup (1–3 ms to sanitize), unique to `i`. */
const markup = (i: number) =>
  ('<p>' + `<span class="h-card"><a href="https://x.example/${i}" class="u-url mention">@<span>x${i}</span></a></span> `.repeat(230)).slice(0, 19_890) + ` ${i}</p>`;
const formatted = (html: string) => html.includes('<a href=');

let next = 0;
const texts = (count: number, make: (i: number) => string) => Array.from({ length: count }, () => make(next++));

beforeEach(async () => {
  await allFormattedAfter();
  await nextTurn();
  vi.mocked(sanitizeStoredHtml).mockClear();
});

it('a page of 300 texts just under the kept size is formatted for 50 ms of its turn; the rest is shown as plain text, formatted after it and kept for the next view', async () => {
  const page = texts(300, markup);
  const first = page.map(contentHtmlOf);
  const shownFormatted = first.filter(formatted).length;
  expect(shownFormatted).toBeGreaterThan(0);
  expect(shownFormatted).toBeLessThan(page.length);
  // The first of the page (the newest) are the formatted ones; each other is its plain text.
  expect(first.slice(0, shownFormatted).every(formatted)).toBe(true);
  page.slice(shownFormatted).forEach((html, i) => expect(first[shownFormatted + i]).toBe(unparsedText(html)));
  expect(sanitizeCalls()).toBe(shownFormatted);
  expect(textsWaiting()).toBe(page.length - shownFormatted);

  // Formatted a slice at a time, each its own turn: not all in the next one.
  await nextTurn();
  expect(textsWaiting()).toBeGreaterThan(0);
  await allFormattedAfter();
  expect(sanitizeCalls()).toBe(page.length);

  // The next view: every text formatted, none sanitized again.
  const again = page.map(contentHtmlOf);
  const actual = await vi.importActual<typeof import('../sanitize-stored')>('../sanitize-stored');
  expect(again).toEqual(page.map((html) => actual.sanitizeStoredHtml(html)));
  expect(sanitizeCalls()).toBe(page.length);
});

it('an ordinary page of 20 short posts is formatted whole, and sanitized once', async () => {
  const page = texts(20, (i) => `<p>Hello <a href="https://x.example/@a${i}" class="u-url mention">@a${i}</a> &amp; <b>all</b></p>`);
  const first = page.map(contentHtmlOf);
  expect(first.every(formatted)).toBe(true);
  expect(textsWaiting()).toBe(0);
  await nextTurn();
  expect(page.map(contentHtmlOf)).toEqual(first);
  expect(sanitizeCalls()).toBe(20);
});

it('past the budget, a short post (a few lines) is still formatted, and kept', async () => {
  texts(200, markup).forEach((html) => contentHtmlOf(html));
  expect(contentHtmlOf(markup(next++))).not.toContain('<a href=');
  const short = texts(20, (i) => `<p>Hi <a href="https://x.example/@b${i}" class="u-url mention">@b${i}</a>, <b>look</b></p>`);
  expect(short.map(contentHtmlOf).every(formatted)).toBe(true);
  const calls = sanitizeCalls();
  short.forEach((html) => contentHtmlOf(html));
  expect(sanitizeCalls()).toBe(calls);
});

it('past the budget, a text shown before is still shown formatted', async () => {
  const [shown] = texts(1, (i) => `<p>Seen <a href="https://x.example/${i}">before</a></p>`);
  const kept = contentHtmlOf(shown!);
  await nextTurn();
  const spent = texts(200, markup).map(contentHtmlOf);
  expect(spent.some((html) => !formatted(html))).toBe(true);
  expect(contentHtmlOf(shown!)).toBe(kept);
});
