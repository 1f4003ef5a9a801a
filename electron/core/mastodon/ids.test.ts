// Status ids as 64-bit integers: they fit a signed 64-bit number, sort by time as numbers and as
// strings, and decode back to exactly the row that made them (the finder here stands for
// row-keys.ts, which the API tests run against SQLite).
import { describe, expect, it } from 'vitest';
import type { Origin, RowKey } from '../federation/actions/reads';
import { boundKey, idTimeOf, parseStatusId, statusId, type IdParts } from './ids';

const BIG_ROW = 2 ** 21 + 5;

const key = (iso: string, origin: Origin, id: number): RowKey => ({ published: new Date(iso), origin, id });
const INT64_MAX = (1n << 63n) - 1n;

describe('status ids', () => {
  const rows = [
    key('2026-11-25T14:00:00.250Z', 'inbox', 7),
    key('2026-11-25T14:00:00.900Z', 'outbox', 3),
    key('2026-11-25T14:00:01.000Z', 'inbox', 2),
    key('2026-11-25T14:00:01.000Z', 'inbox', BIG_ROW),
    key('1999-01-01T00:00:00Z', 'outbox', 12),
    key('1960-01-01T00:00:00Z', 'inbox', 1),
    key('2300-01-01T00:00:00Z', 'outbox', 2 ** 40),
  ];
  const find = ({ time, origin, low }: IdParts) => rows.find((r) => r.origin === origin && r.id % 2 ** 21 === low && idTimeOf(r.published) === time) ?? null;

  it('are at most 19 digits and below 2^63 - 1, even for far-future or pre-2000 times and huge rows', () => {
    for (const r of rows) {
      const id = statusId(r);
      expect(id).toMatch(/^\d{19}$/);
      expect(BigInt(id) <= INT64_MAX).toBe(true);
      expect(BigInt(id) < INT64_MAX).toBe(true);
    }
  });

  it('decode to the exact row, with or without the padding a client may strip', () => {
    for (const r of rows) {
      expect(parseStatusId(statusId(r), find)).toEqual(r);
      expect(parseStatusId(BigInt(statusId(r)).toString(), find)).toEqual(r);
    }
  });

  it('sort as numbers and as strings in time order to the millisecond (then origin, then row)', () => {
    const ids = rows.slice(0, 4).map(statusId);
    expect([...ids].sort()).toEqual(ids);
    expect(ids.map(BigInt).every((n, i, all) => i === 0 || all[i - 1]! < n)).toBe(true);
    expect(statusId(rows[4]!) < statusId(rows[0]!)).toBe(true);
  });

  it('a row id with another second, a gone row, or a malformed id names nothing', () => {
    const id = BigInt(statusId(rows[0]!));
    expect(parseStatusId((id + (1n << 22n)).toString(), find)).toBeNull();
    expect(parseStatusId((id + 1n).toString(), find)).toBeNull();
    expect(parseStatusId('12a', find)).toBeNull();
    expect(parseStatusId((INT64_MAX + 1n).toString(), find)).toBeNull();
  });

  it('as page bounds: a stored row gives its exact key; other digits the key they spell', () => {
    expect(boundKey(statusId(rows[1]!), find)).toEqual(rows[1]);
    expect(boundKey(statusId(rows[3]!), find)).toEqual(rows[3]);
    const unknown = statusId(key('2026-11-25T14:00:00.900Z', 'inbox', 99));
    expect(boundKey(unknown, find)).toEqual(key('2026-11-25T14:00:00.900Z', 'inbox', 99));
    expect(boundKey('5', find)).toEqual(key('2000-01-01T00:00:00Z', 'inbox', 5));
    expect(boundKey('9'.repeat(30), find)!.published.getTime()).toBe(8.64e15);
    expect(boundKey(undefined, find)).toBeNull();
  });
});
