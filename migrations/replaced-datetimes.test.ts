// The nearest time 5d0e8a3c71f4 can store for a datetime it cannot make canonical: the time the
// text says, brought within 0000…9999 UTC; a number (or a number's text) read as SQLite's 'auto'
// modifier reads it, alike in the 3.40 shell and better-sqlite3; other text gets 0000-01-01.
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../db/client';
import { nearestStorable, numberAsTime } from './replaced-datetimes';
import { versionOf } from './test-tools';

const MIN = '0000-01-01T00:00:00.000Z';
const MAX = '9999-12-31T23:59:59.999Z';

describe('nearestStorable', () => {
  it.each([
    ['0000-01-01T00:30:00+01:00', MIN], // -0001-12-31T23:30Z
    ['-0001-12-31T23:30:00.000Z', MIN],
    ['9999-12-31T23:30:00-01:00', MAX], // 10000-01-01T00:30Z
    ['9999-12-31T24:00:00Z', MAX],
    ['+010000-01-01T00:00:00Z', MAX],
    ['0000-01-01T01:00:00+01:00', MIN],
    ['0050-06-01t10:00:00z', '0050-06-01T10:00:00.000Z'], // not 1950, as Date.UTC would have it
    ['2025-06-30T23:59:60Z', '2025-07-01T00:00:00.000Z'], // a leap second, carried
    ['2025-02-30T10:00:00Z', '2025-03-02T10:00:00.000Z'], // as SQLite 3.54 reads it
    ['2025-02-01T10:00:00.123456+0530', '2025-02-01T04:30:00.123Z'], // digits past the millisecond cut
    ['2025-02-01T10:00:00+23:59', '2025-01-31T10:01:00.000Z'], // past SQLite's ±14:00
    ['2025-02-01T10:00:00', '2025-02-01T10:00:00.000Z'], // naive: UTC, as parseStoredDate reads it
  ])('%s is stored as %s', (text, stored) => expect(nearestStorable(text)).toBe(stored));

  it.each([['soon'], [''], ['now'], ['2025-13-01T00:00:00Z'], ['2025-02-00T00:00:00Z'], ['2025-02-01T10:60:00Z'], ['2025-02-01T25:00:00Z'], [12345], [null]])(
    '%s, which says no time, is stored as 0000-01-01T00:00:00.000Z',
    (value) => expect(nearestStorable(value)).toBe(MIN),
  );
});

describe('numberAsTime', () => {
  const sqlite = openSqlite(':memory:');
  afterAll(() => sqlite.close());
  const FORMAT = "'%Y-%m-%dT%H:%M:%fZ'";

  // As a TEXT column holds them: what the sqlite3 shell's julianday() and python's time.time()
  // store there, and the bounds of each of 'auto''s readings.
  const NUMBERS = [
    '2460000.5', // julianday('2023-02-25')
    '2460827.52426839', // julianday('2025-06-01 00:34:56.789'), as '%!.15g' writes it
    '1700000000', // Unix seconds, an integer (date +%s)
    '1700000000.12346', // time.time()
    '1748738096.789',
    '0', // Julian day 0: -4713-11-24T12:00Z, before 0000
    '1721059.5', // 0000-01-01T00:00Z
    '5373484.499999', // the last Julian day 'auto' documents
    '5373484.4999995', // …and the last it takes
    '5373484.5', // Unix seconds from here
    '-1',
    '-62167219200', // 0000-01-01T00:00Z in Unix seconds
    '-210866760000',
    '253402300799', // 9999-12-31T23:59:59Z
    '253402300799.5', // out of 'auto''s range
    '-210866760001',
    '1.0e+20',
    '1e9',
    '.5',
    '+2460000.5',
  ];

  it.skipIf(versionOf('shell') === null)('reads a number as the sqlite3 shell does, through what the value range names (3.40 has no auto)', () => {
    const shellSays = (value: string) => {
      const modifier = Number(value) >= 0 && Number(value) < 5373484.5 ? '' : Number(value) >= -210866760000 && Number(value) <= 253402300799 ? ", 'unixepoch'" : null;
      if (modifier === null) return null;
      const r = spawnSync('sqlite3', [':memory:', `SELECT strftime(${FORMAT}, '${value}'${modifier})`], { encoding: 'utf8' });
      return r.stdout.trim() || null;
    };
    for (const value of NUMBERS) expect(numberAsTime(sqlite, value), value).toBe(shellSays(value));
  });

  it('reads a number, or its text, as SQLite’s own auto modifier does (better-sqlite3’s SQLite has it)', () => {
    const auto = sqlite.prepare(`SELECT strftime(${FORMAT}, ?, 'auto')`).pluck();
    for (const value of NUMBERS) {
      expect(numberAsTime(sqlite, value), value).toBe(auto.get(value));
      expect(numberAsTime(sqlite, Number(value)), value).toBe(auto.get(Number(value)));
    }
    expect(numberAsTime(sqlite, '1700000000')).toBe('2023-11-14T22:13:20.000Z');
    expect(numberAsTime(sqlite, '2460000.5')).toBe('2023-02-25T00:00:00.000Z');
  });

  it('reads nothing else: dates, words, and a number with anything around it', () => {
    for (const value of ['2025-02-01', '2025-02-01T10:00:00Z', 'now', '', ' 1700000000', '1700000000 ', '1700000000Z', '0x10', '12abc', '1.2.3', '-', '.', null]) {
      expect(numberAsTime(sqlite, value), String(value)).toBeNull();
    }
  });

  it('a number out of range, or before 0000, is stored as the nearest storable time', () => {
    expect(nearestStorable(numberAsTime(sqlite, '0') ?? '0')).toBe(MIN);
    expect(nearestStorable(numberAsTime(sqlite, '-1000000000000') ?? '')).toBe(MIN);
    expect(nearestStorable(numberAsTime(sqlite, '1721059.5') ?? '')).toBe(MIN);
    expect(nearestStorable(numberAsTime(sqlite, '253402300799') ?? '')).toBe('9999-12-31T23:59:59.000Z');
  });
});
