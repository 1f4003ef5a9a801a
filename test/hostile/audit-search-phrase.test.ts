// Audit: GET /api/v2/search with a quoted phrase of common words that no post holds: one word
// repeated (the 500 characters q allows hold 160 of them), two alternating, or eight. FTS5 looked
// for the phrase in every post holding its words, newest to oldest, in one query: 480-828 ms over
// 60,000 posts (3.3 s over 380,000), an 8-word phrase 170-210 ms. Now such a phrase is searched in
// steps of at most 15 ms (search/date-scan.ts), the listener free in between; a phrase with a
// rarer word is still one query, and a long phrase that posts hold is found.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaledListener, type ScaledListener } from './audit-fixture';
import { STALL_LIMIT_MS } from './rig';

let t: ScaledListener;
beforeAll(async () => {
  t = await scaledListener({ inboxRows: 60_000 });
}, 300_000);
afterAll(async () => {
  await t?.close();
});


const phrase = (words: string[], times: number) => encodeURIComponent(`"${Array.from({ length: times }, () => words).flat().join(' ')}"`);
describe('a status search for a long phrase of common words', () => {
  it.each([
    ['"ut" 160 times', phrase(['ut'], 160)],
    ['"in ut" 80 times', phrase(['in', 'ut'], 80)],
    ['"ut" 8 times', phrase(['ut'], 8)],
  ])('%s: the main thread free', async (_name, q) => {
    const { status, stallMs } = await t.measureBest(`/api/v2/search?type=statuses&q=${q}`);
    expect(status).toBe(200);
    expect(stallMs, 'main-thread stall').toBeLessThan(STALL_LIMIT_MS);
  });

  it('a long phrase posts hold is found, the main thread free', async () => {
    // The bench's text starts so in one post of 97.
    const q = encodeURIComponent('"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua"');
    const { status, bytes, stallMs } = await t.measureBest(`/api/v2/search?type=statuses&limit=40&q=${q}`);
    expect(status).toBe(200);
    expect(bytes, 'statuses were found').toBeGreaterThan(10_000);
    expect(stallMs, 'main-thread stall').toBeLessThan(STALL_LIMIT_MS);
  });
});
