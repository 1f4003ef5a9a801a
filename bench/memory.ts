// Memory of the Tern process during the bench: the RSS high-water mark, sampled every few
// milliseconds per phase (on a thread of its own), and a forced-GC heap reading at checkpoints ("flat as rows grow").
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (() => void) | undefined;

export interface PhasePeak {
  phase: string;
  peakRssMb: number;
}

export interface MemorySampler {
  /** Starts a new phase; the previous one's peak is kept. */
  phase(name: string): void;
  stop(): PhasePeak[];
  overallPeakMb(): number;
}

export const mb = (bytes: number) => bytes / (1024 * 1024);

// The sampling runs on a thread of its own. On the app's thread it held that thread up: reading
// the process's RSS (/proc/self/stat) took 62 µs at the median but 3.6 ms at p99 and up to
// 8.5 ms while the workers were busy, 100 times a second, 234 ms in all over a BENCH_ONLY=inbox
// run (measured here): the bench's own stalls, counted in the accept latencies and the main
// thread's loop delay it reports. The peaks are kept in shared memory (KiB): [0] the current
// phase's, [1] the whole run's.
const SAMPLER_SOURCE = `
const { workerData } = require('node:worker_threads');
const cells = new Int32Array(workerData.cells);
${String(raise)}
setInterval(() => {
  const kib = Math.round(process.memoryUsage.rss() / 1024);
  raise(cells, 0, kib);
  raise(cells, 1, kib);
}, workerData.intervalMs);
`;

/** Sets cell `i` to `kib` if that is higher, without losing a reset made meanwhile by the other
 * thread (a compare-and-swap loop). The sampler thread runs its source (String(raise)). */
function raise(cells: Int32Array, i: number, kib: number): void {
  for (;;) {
    const seen = Atomics.load(cells, i);
    if (kib <= seen || Atomics.compareExchange(cells, i, seen, kib) === seen) return;
  }
}

export function startSampler(intervalMs = 10): MemorySampler {
  const cells = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
  const worker = new Worker(SAMPLER_SOURCE, { eval: true, workerData: { cells: cells.buffer, intervalMs }, name: 'bench-rss' });
  worker.unref();
  const peaks: PhasePeak[] = [];
  let current: PhasePeak | null = null;
  // One reading on this thread at each phase's edge (a handful in a run).
  const sampleHere = () => {
    const kib = Math.round(process.memoryUsage.rss() / 1024);
    raise(cells, 0, kib);
    raise(cells, 1, kib);
  };
  const endPhase = () => {
    sampleHere();
    const peakKib = Atomics.exchange(cells, 0, 0);
    if (current) current.peakRssMb = Math.max(current.peakRssMb, peakKib / 1024);
  };
  return {
    phase(name) {
      endPhase();
      current = { phase: name, peakRssMb: 0 };
      peaks.push(current);
      sampleHere();
    },
    stop() {
      endPhase();
      current = null;
      void worker.terminate();
      return peaks;
    },
    overallPeakMb: () => Atomics.load(cells, 1) / 1024,
  };
}

export interface Checkpoint {
  rows: number;
  rssMb: number;
  /** Heap in use after a full GC: what the process really keeps. */
  heapMb: number;
}

/** A reading after a full GC (when the flag could be set; otherwise as it is). */
export function checkpoint(rows: number): Checkpoint {
  gc?.();
  const usage = process.memoryUsage();
  return { rows, rssMb: mb(usage.rss), heapMb: mb(usage.heapUsed) };
}
