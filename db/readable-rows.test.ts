// viewsOf: a row whose item cannot be made is left out and reported; the others are kept, in order.
import { describe, expect, it } from 'vitest';
import { isReadableDate, setSkipLog, viewsOf } from './readable-rows';
import { notifications } from './schema';

describe('viewsOf', () => {
  it('leaves out a row whose view throws, reports it with its name and the error, and keeps the rest in order', () => {
    const skipped: string[] = [];
    const previous = setSkipLog((m) => skipped.push(m));
    try {
      const rows = [{ id: 1, at: new Date('2025-01-01T00:00:00Z') }, { id: 2, at: new Date(Number.NaN) }, { id: 3, at: new Date('2025-01-03T00:00:00Z') }];
      expect(viewsOf(rows, (r) => r.at.toISOString(), (r) => `row ${r.id}`)).toEqual(['2025-01-01T00:00:00.000Z', '2025-01-03T00:00:00.000Z']);
      expect(skipped).toEqual(['skipped row 2, which cannot be read: Invalid time value']);
    } finally {
      setSkipLog(previous);
    }
  });

  it('a datetime column reads text Date cannot read as an Invalid Date instead of failing the whole query', () => {
    const read = notifications.createdAt.mapFromDriverValue('2025-02-01T24:30:00Z') as Date;
    expect(isReadableDate(read)).toBe(false);
    expect(notifications.createdAt.mapFromDriverValue('2025-02-01 10:00:00')).toEqual(new Date('2025-02-01T10:00:00Z'));
  });
});
