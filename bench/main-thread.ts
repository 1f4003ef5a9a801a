// What the app's own thread feels during a burst: its event-loop delay (a timer due every 1 ms,
// the time between its runs, as perf_hooks' monitorEventLoopDelay records it) and the latency
// of a real IPC handler (timeline.stream, a page of 30) called every 100 ms, measured from when
// its timer was due to when its answer was ready, so waiting behind other work on the thread
// counts, as it would for the renderer.
import { createHistogram } from 'node:perf_hooks';
import type { Core } from '../electron/core/core';
import { createHandlers } from '../electron/core/ipc/handlers';

export interface MainThreadFeel {
  loopDelayMs: { p50: number; p99: number; max: number };
  ipc: { calls: number; p50: number; p99: number; max: number };
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
// The renderer asks far less often; this is a steady stream of calls to time, not a load.
const IPC_EVERY_MS = 100;

export interface MainThreadWatch {
  /** Runs `work` unwatched (the bench's own forced GCs between slices are not the app's stalls). */
  aside<T>(work: () => T): T;
  stop(): MainThreadFeel;
}

/** The loop delay as monitorEventLoopDelay({ resolution: 1 }) records it: each time a 1 ms
 * timer runs, the time since its last run (so an idle loop reads ≈ 1.1 ms). Not that histogram
 * itself: once disabled and enabled again, it records the whole time it was off as one delay
 * (Node 24), so work set aside showed up as the burst's worst stall. */
function loopDelaySampler() {
  const histogram = createHistogram();
  let last = performance.now();
  let paused = false;
  const tick = setInterval(() => {
    const now = performance.now();
    if (!paused) histogram.record(Math.max(1, Math.round((now - last) * 1e6)));
    last = now;
  }, 1);
  tick.unref(); // a watch never stopped (a part that threw) does not keep the bench running
  return {
    histogram,
    pause: () => void (paused = true),
    resume() {
      paused = false;
      last = performance.now();
    },
    stop: () => clearInterval(tick),
  };
}

export function watchMainThread(core: Core): MainThreadWatch {
  const loop = loopDelaySampler();
  const { histogram } = loop;
  const stream = createHandlers(core)['timeline.stream'];
  const latencies: number[] = [];
  let stopped = false;
  // Samples whose wait overlapped work set aside are dropped.
  let asideUntil = 0;
  let timer: NodeJS.Timeout | null = null;
  const call = (due: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      void Promise.resolve(stream({ limit: 30 })).then(() => {
        const end = performance.now();
        if (due > asideUntil) latencies.push(end - due);
        call(end + IPC_EVERY_MS);
      });
    }, IPC_EVERY_MS);
  };
  call(performance.now() + IPC_EVERY_MS);
  return {
    aside(work) {
      loop.pause();
      try {
        return work();
      } finally {
        asideUntil = performance.now();
        loop.resume();
      }
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      loop.stop();
      const sorted = [...latencies].sort((a, b) => a - b);
      const ms = (ns: number) => ns / 1e6;
      return {
        loopDelayMs: { p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max) },
        ipc: { calls: sorted.length, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), max: sorted.at(-1) ?? 0 },
      };
    },
  };
}
