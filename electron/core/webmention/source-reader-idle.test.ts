// The page reader's thread (source-parse.ts) holds tens of MB: with nothing to read for
// READER_IDLE_MS it ends, and the next page starts another.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { READER_IDLE_MS, readerThreadsAlive, readSourcePage, stopSourceReader } from './source-parse';

afterAll(() => stopSourceReader());

const page = '<p><a href="https://target.example/post">a link</a></p>';
const read = () => readSourcePage(page, 'https://source.example/', 'https://target.example/post');

describe('the page reader when idle', () => {
  it('ends after READER_IDLE_MS with nothing to read, and the next page starts another', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      expect(await read()).toMatchObject({ ok: true, links: true });
      expect(readerThreadsAlive()).toBe(1);
      vi.advanceTimersByTime(READER_IDLE_MS - 1);
      await new Promise((resolve) => setImmediate(resolve));
      expect(readerThreadsAlive()).toBe(1);
      vi.advanceTimersByTime(1);
      await vi.waitFor(() => expect(readerThreadsAlive()).toBe(0), { timeout: 5_000 });
      expect(await read()).toMatchObject({ ok: true, links: true });
      expect(readerThreadsAlive()).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
