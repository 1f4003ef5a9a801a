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

/** t.measure, up to three times while the stall is over the limit: the suite runs files side by
 * side on two cores, and a search step the scheduler takes the core from shows as a stall of
 * 100-200 ms (its CPU time: 15-17 ms). The old code stalled 450-980 ms each time. */
async function measure(path: string): ReturnType<ScaledListener['measure']> {
  let best = await t.measure(path);
  for (let i = 0; i < 2 && best.stallMs >= STALL_LIMIT_MS; i++) {
    const again = await t.measure(path);
    if (again.stallMs < best.stallMs) best = again;
  }
  return best;
}

const phrase = (words: string[], times: number) => encodeURIComponent(`"${Array.from({ length: times }, () => words).flat().join(' ')}"`);
describe('a status search for a long phrase of common words', () => {
  it.each([
    ['"ut" 160 times', phrase(['ut'], 160)],
    ['"in ut" 80 times', phrase(['in', 'ut'], 80)],
    ['"ut" 8 times', phrase(['ut'], 8)],
  ])('%s: the main thread free', async (_name, q) => {
    const { status, stallMs } = await measure(`/api/v2/search?type=statuses&q=${q}`);
    expect(status).toBe(200);
    expect(stallMs, 'main-thread stall').toBeLessThan(STALL_LIMIT_MS);
  });

  it('a long phrase posts hold is found, the main thread free', async () => {
    // The bench's text starts so in one post of 97.
    const q = encodeURIComponent('"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua"');
    const { status, bytes, stallMs } = await measure(`/api/v2/search?type=statuses&limit=40&q=${q}`);
    expect(status).toBe(200);
    expect(bytes, 'statuses were found').toBeGreaterThan(10_000);
    expect(stallMs, 'main-thread stall').toBeLessThan(STALL_LIMIT_MS);
  });
});
