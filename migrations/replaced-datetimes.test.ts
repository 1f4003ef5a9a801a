// The nearest time 5d0e8a3c71f4 can store for a datetime it cannot make canonical: the time the
// text says, brought within 0000…9999 UTC; text without a time gets 0000-01-01.
import { describe, expect, it } from 'vitest';
import { nearestStorable } from './replaced-datetimes';

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
