// lazyJson columns (outbox.revisions): read back as StoredJson, parsed only when asked for.
import { describe, expect, it, vi } from 'vitest';
import { StoredJson, storedValue } from './columns';
import { outbox } from './schema';

describe('lazyJson', () => {
  it('reads the text without parsing it, parses once when asked, and writes it back as it was', () => {
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const stored = outbox.revisions.mapFromDriverValue('[{"source":"a"}]');
      expect(stored).toBeInstanceOf(StoredJson);
      expect(parse).not.toHaveBeenCalled();
      expect(storedValue(stored)).toEqual([{ source: 'a' }]);
      expect(storedValue(stored)).toBe(storedValue(stored));
      expect(parse).toHaveBeenCalledTimes(1);
      expect(outbox.revisions.mapToDriverValue(stored)).toBe('[{"source":"a"}]');
      expect(JSON.stringify({ revisions: stored })).toBe('{"revisions":[{"source":"a"}]}');
    } finally {
      parse.mockRestore();
    }
    expect(outbox.revisions.mapToDriverValue([{ source: 'b' }])).toBe('[{"source":"b"}]');
    expect(storedValue(null)).toBeNull();
  });
});
