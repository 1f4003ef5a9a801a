// Printing the scale phase (bench/scale-phase.ts): each page's p50/p99 beside its target, the
// memory while scrolling the stream, and the lines of the run's summary.
import { n0, n1, n2, note, pass, rows, section, type Verdict } from './report';
import { runScale, type ScaleResult } from './scale-phase';

const env = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback;
};

// "Memory stays flat while scrolling": the heap after GC may not grow by more than this between
// the first and the last checkpoint of the scroll, however many rows were scrolled (20 rows of a
// page are ≈ 30 KB of views; keeping what was scrolled would show as ≈ 75 MB at 50,000 rows).
const FLAT_HEAP_MB = 8;

type Judge = (target: string, value: string, verdict: Verdict) => void;

export async function scalePhase(judge: Judge): Promise<void> {
  const inboxRows = env('BENCH_SCALE_INBOX', 1_000_000);
  try {
    const r = await runScale(
      {
        inboxRows,
        actors: 5000,
        outboxRows: 100_000,
        followers: 5000,
        following: 1000,
        notifications: 200_000,
        outgoing: 2_000_000,
        threads: 20,
        repliesPerThread: 500,
      },
      env('BENCH_SCALE_CALLS', 200),
      env('BENCH_SCALE_SCROLL', 50_000),
    );
    printScale(r, judge);
  } catch (error) {
    section('Scale');
    note(`not available: ${(error as Error).stack ?? String(error)}`);
    judge('scale targets', `not available: ${(error as Error).message}`, 'n/a');
  }
}

function printScale(r: ScaleResult, judge: Judge): void {
  section(`Scale: pages through the IPC handlers on ${n0(r.counts.inbox ?? 0)} inbox rows`);
  note(`data folder ${r.dataDir} — ${r.buildMs === null ? 'cached from an earlier run' : `built in ${n1(r.buildMs / 1000)} s`}`);
  note(`rows (max id): ${Object.entries(r.counts).map(([k, v]) => `${k} ${n0(v)}`).join(', ')}`);
  note(r.before);
  rows(
    r.cases.map((c) => ({
      label: c.name,
      value: `p50 ${n2(c.p50)} / p99 ${n2(c.p99)} ms (CPU ${n2(c.cpuUs / 1000)} ms a call${c.readBytes ? `; ${n1(c.readBytes / 1e6)} MB read from storage` : ''})`,
      target: `p99 ≤ ${c.targetMs} ms`,
      verdict: pass(c.p99 <= c.targetMs),
    })),
  );
  note(`${r.cases[0]?.calls ?? 0} calls per page, through dispatch (zod input check + handler), after 5 warm-up calls. Wall time per call is`);
  note(`what the verdict reads; "CPU" is this process's CPU time per call (mean, all threads), which other work on the machine`);
  note('does not inflate; "read from storage" is what came from the disk, not the OS\'s cache (a cold cache: wall time far over CPU).');
  note('One call of each returned:');
  for (const c of r.cases) note(`  ${c.name}: ${c.shape}`);
  for (const c of r.cases) judge(`scale: ${c.name} p99 ≤ ${c.targetMs} ms`, `p99 ${n2(c.p99)} ms, p50 ${n2(c.p50)} ms`, pass(c.p99 <= c.targetMs));

  const s = r.scroll;
  const first = s.memory[1] ?? s.memory[0]!;
  const last = s.memory.at(-1)!;
  const growth = last.heapMb - first.heapMb;
  rows([
    { label: `scroll the stream by cursor, 20 a page`, value: `${n0(s.rows)} rows, ${n0(s.pages)} pages in ${n1(s.ms / 1000)} s (${n2(s.ms / s.pages)} ms a page)${s.reachedEnd ? ', to the end' : ''}` },
    { label: '  after GC, by rows scrolled', value: 'heap MB / RSS MB' },
    ...s.memory.map((c) => ({ label: `  ${n0(c.rows)} rows`, value: `${n1(c.heapMb)} / ${n1(c.rssMb)}` })),
    {
      label: `  heap growth ${n0(first.rows)} → ${n0(last.rows)} rows`,
      value: `${n2(growth)} MB (RSS ${n1(last.rssMb - first.rssMb)} MB)`,
      target: `≤ ${FLAT_HEAP_MB} MB`,
      verdict: pass(growth <= FLAT_HEAP_MB),
    },
  ]);
  judge(`scale: heap flat scrolling ${n0(s.rows)} rows (≤ ${FLAT_HEAP_MB} MB)`, `${n2(growth)} MB after GC`, pass(growth <= FLAT_HEAP_MB));
}
