// Test support: how long work held the calling thread, measured as the longest gap between the
// ticks of a 1 ms timer that runs all along (the project's rule: remote input never holds a
// thread 100 ms). Not imported by production code.

/** Runs `work` while a 1 ms timer measures the longest the calling thread was held; an error
 * `work` throws is returned, not thrown. */
export async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T | Error; stallMs: number; ms: number }> {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 1);
  const t0 = performance.now();
  const result = await work().catch((error: Error) => error);
  clearInterval(timer);
  return { result, stallMs: worst, ms: performance.now() - t0 };
}
