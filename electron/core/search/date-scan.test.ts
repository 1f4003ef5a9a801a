// The date search of a match with a phrase, in steps (date-scan.ts): it finds what one FTS5
// query over the whole index finds, newest first — phrases, negated phrases, filters, words the
// tokenizer splits, prefixes —, however often it is stopped and resumed; and a search stops at
// its time budget between a few texts, having read no more than that of the index. The clock is
// a fake one, so nothing depends on this machine's speed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlite, type Sqlite } from '../../../db/client';
import { createDateScan } from './date-scan';
import { postMatch } from './match';
import { parseQuery } from './query';

const POSTS = 3000;
const WORDS = ['in', 'ut', 'dolor', 'sit', 'amet', 'Übung', 'don’t', 'x-ray', 'café', 'ut,', 'In'];
let index: Sqlite;

beforeAll(() => {
  index = openSqlite(':memory:');
  // The index's own table (migration c41f7a2e9d15).
  index.exec("CREATE VIRTUAL TABLE search_post USING fts5(body, facets, ref UNINDEXED, tokenize = 'unicode61 remove_diacritics 2')");
  const add = index.prepare('INSERT INTO search_post (rowid, body, facets, ref) VALUES (?, ?, ?, ?)');
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  index.transaction(() => {
    for (let i = 1; i <= POSTS; i++) {
      const words = Array.from({ length: 4 + Math.floor(random() * 12) }, () => WORDS[Math.floor(random() * WORDS.length)]!);
      const facets = [random() < 0.5 ? 'vpublic' : 'vdirect', ...(random() < 0.2 ? ['hmedia'] : [])].join(' ');
      add.run(BigInt(i * 2 ** 20), words.join(' '), facets, i);
    }
  })();
});
afterAll(() => index.close());

const matchOf = (text: string) => postMatch(parseQuery(text), () => ({ me: true }), (d) => Date.UTC(d.year, d.month - 1, d.day));
const everything = (match: string) =>
  index.prepare('SELECT rowid FROM search_post WHERE search_post MATCH ? ORDER BY rowid DESC').pluck().all(match) as number[];

/** A clock that moves `step` ms at each look. */
const ticking = (step: number) => {
  let now = 0;
  return () => (now += step);
};

describe('a phrase search in steps', () => {
  const queries = [
    '"in ut"',
    '"ut in ut"',
    '"in ut in ut in ut in ut in ut"',
    'dolor "sit amet"',
    'ut -"in ut"',
    '"dolor sit" visibility:direct',
    '"amet ut" has:media -"dolor dolor"',
    'don’t',
    '"x ray"',
    'x-ray -"in in"',
    '"cafe übung"',
    '"ut sit*"',
    '-"ut ut" has:media',
  ];

  it.each(queries)('%s: what one FTS5 query finds, newest first, whole or resumed after every few texts', (text) => {
    const m = matchOf(text);
    expect(m.phrasal).toBe(true);
    const expected = everything(m.match!);
    const whole = createDateScan(index).scan(m.match!, m.drivers, 0, 2 ** 62, POSTS + 1, Infinity);
    expect(whole.exhausted).toBe(true);
    expect(whole.rowids).toEqual(expected);

    // A clock that runs out at each look: every search checks one chunk of texts and stops.
    const scan = createDateScan(index, ticking(100));
    const found: number[] = [];
    let high = 2 ** 62;
    for (let calls = 0; calls < POSTS; calls++) {
      const r = scan.scan(m.match!, m.drivers, 0, high, POSTS + 1, 50);
      found.push(...r.rowids);
      expect(r.rowids.every((rowid) => rowid >= r.floor && rowid < high)).toBe(true);
      if (r.exhausted) break;
      expect(r.floor).toBeLessThan(high);
      high = r.floor;
    }
    expect(found).toEqual(expected);
  });

  it('dates bound it: matches in [low, high) only', () => {
    const m = matchOf('"in ut"');
    const low = 1000 * 2 ** 20;
    const high = 2000 * 2 ** 20;
    const r = createDateScan(index).scan(m.match!, m.drivers, low, high, POSTS, Infinity);
    expect(r.rowids).toEqual(everything(m.match!).filter((rowid) => rowid >= low && rowid < high));
    expect(r).toMatchObject({ floor: low, exhausted: true });
  });

  it('stops at its budget between a few texts, having read a few texts, and says where it got to', () => {
    // "in ut in ut …": words nearly every post holds; few posts have the phrase.
    const m = matchOf('"ut ut ut ut ut ut ut ut ut ut ut ut ut ut ut ut"');
    const r = createDateScan(index, ticking(10)).scan(m.match!, m.drivers, 0, 2 ** 62, 20, 30);
    expect(r.exhausted).toBe(false);
    // Every post from the newest down to `floor` was looked at: two or three chunks of 16 texts.
    const lookedAt = index.prepare('SELECT count(*) FROM search_post WHERE rowid >= ?').pluck().get(BigInt(r.floor)) as number;
    expect(lookedAt).toBeGreaterThan(0);
    expect(lookedAt).toBeLessThanOrEqual(4 * 16 * 2);
  });

  it('the driver is the word the fewest posts hold, and finds them all', () => {
    // hmedia: 1 post in 5; ut: most posts. Drivers of words not in the index find nothing, at once.
    const m = matchOf('"ut dolor" has:media');
    expect(m.drivers).toEqual(['"hmedia"', '"ut"', '"dolor"']);
    expect(createDateScan(index).scan(m.match!, m.drivers, 0, 2 ** 62, POSTS, Infinity).rowids).toEqual(everything(m.match!));
    const none = matchOf('"zebra ut"');
    expect(createDateScan(index, ticking(1)).scan(none.match!, none.drivers, 0, 2 ** 62, 20, 1000)).toEqual({ rowids: [], floor: 0, exhausted: true });
  });
});
