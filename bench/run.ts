// `npm run bench`: Tern's federation throughput on this machine, in one run, as ratios against
// the raw cost of its parts and the targets of the issue. Everything runs on 127.0.0.1 against
// servers this process (or its child, remote.ts) starts; request counts are fixed.
// Benchmarks report, they never gate: the exit code is 0 whatever the verdicts.
//
// Sizes can be changed for a quick look: BENCH_INBOX_N (activities, default 5000),
// BENCH_ACTORS (8), BENCH_CONCURRENCY (32), BENCH_SERVERS (100), BENCH_FOLLOWERS_PER_SERVER (10),
// BENCH_PROCESS_BUDGET_MS (20000: the inbox loop is stopped then, done or not).
// BENCH_STARTUP_ROWS (inbox rows of the start-up fixture, 1000000), BENCH_STARTUP_RUNS (5);
// BENCH_ONLY=inbox runs the raw costs and the inbox phase alone (the inbox loop runs while
// accepting, as in the app; BENCH_INBOX_OVERLAP=0: accept first, then process);
// BENCH_ONLY=startup the start-up phase alone; BENCH_ONLY=polls the polls phase alone
// (BENCH_POLL_VOTERS, 200: each sends 5 votes, 3 valid); BENCH_ONLY=media the media phase alone;
// BENCH_ONLY=search the search phase alone, on 1,000,000 inbox and 100,000 outbox rows; in the
// full run it takes 100,000 and 10,000 (BENCH_SEARCH_ROWS, BENCH_SEARCH_OUTBOX, BENCH_SEARCH_RUNS: 100).
// BENCH_ONLY=fanout the raw costs and the fan-out phase alone; BENCH_ONLY=idle the idle phase alone
// (BENCH_IDLE_SECONDS, 60). BENCH_INBOX_WORKER=0: the inbox processor on the main thread; BENCH_LEAN=0:
// no lean baseline.
// BENCH_ONLY=scale the pages phase alone (bench/scale-phase.ts): BENCH_SCALE_CALLS (200 per page),
// BENCH_SCALE_SCROLL (50000 stream rows scrolled), BENCH_SCALE_INBOX (1000000 inbox rows); its data
// folder is cached in the OS temp folder between runs.
// BENCH_CPU_PROFILE=<folder> writes a CPU profile of each measured part there and prints where
// the time went (profiling slows the run: read its rates as relative only).
// BENCH_ACCEPT_TRACE=1 adds what the slowest accepts are made of to the inbox report
// (bench/accept-trace.ts; BENCH_ACCEPT_TRACE_OUT=<file> keeps the raw timeline as JSON).
// BENCH_PERF_MARKS=1 prints each measured part's window for `perf report --time` (run the bench
// under `perf record -e cpu-clock -g -k CLOCK_MONOTONIC`, node with --perf-basic-prof).
import { cpus, loadavg } from 'node:os';
import { measureInboxBreakdown, type Breakdown, type Cost } from './breakdown';
import { runFanout, type FanoutResult } from './fanout-phase';
import { noHooks, runInbox, type InboxResult, type PartHooks } from './inbox-phase';
import { mb, startSampler, type PhasePeak } from './memory';
import { createPhaseProfiler } from './profile';
import { measureRawCosts, type RawCosts } from './raw-costs';
import { startRemote } from './remote-client';
import { n0, n1, n2, note, pass, per, rows, section, type Verdict } from './report';
import { runStartup, stats, type StartupResult } from './startup-phase';
import { runPolls, type PollsResult } from './polls-phase';
import { runIdle } from './idle-phase';
import { openBenchTern } from './tern';
import { measureMedia, printMedia } from './media-phase';
import { runSearchBench, type SearchBenchResult } from './search-phase';
import { scalePhase } from './scale-report';

const env = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback;
};

// "Memory flat": the issue gives no number. Half a megabyte per 1,000 rows is well under the
// JSON of the rows themselves (≈ 1.1 MB per 1,000 here), so keeping rows in memory would fail.
// fanoutPerSec: issue 14's target (≥ 2,000 signed deliveries/s; the federation issue asked 1,000).
const TARGET = { idleCpuPercent: 0.5, idleWakesPerSec: 5, inboxPerSec: 2000, endToEndPerSec: 1500, loopDelayP99Ms: 20, ipcP99Ms: 50, p99Ms: 50, ratio: 3, fanoutPerSec: 2000, heapMbPer1k: 0.5, readyMs: 300 };

const summary: Array<{ target: string; value: string; verdict: Verdict }> = [];
const judge = (target: string, value: string, verdict: Verdict) => summary.push({ target, value, verdict });

function printRaw(raw: RawCosts): number {
  section('Raw costs on this machine (measured now)');
  // The floor: OpenSSL's verify (node:crypto, synchronous) + the insert. WebCrypto's verify, as
  // Fedify calls it, is shown too; it is slower by its thread-pool round trip.
  const sum = raw.verifyCpuUs + raw.insertUs;
  rows([
    { label: 'RSA-2048 verify, node:crypto KeyObject (OpenSSL)', value: `${n1(raw.verifyCpuUs)} µs`, target: 'issue: ≈ 24 µs' },
    { label: 'RSA-2048 verify, WebCrypto cached CryptoKey (Fedify\'s call without net/fast-subtle.ts)', value: `${n1(raw.verifyUs)} µs` },
    { label: `SQLite insert, ${n0(raw.payloadBytes)} B into incoming_activity`, value: `${n1(raw.insertUs)} µs`, target: 'issue: ≈ 130 µs' },
    { label: 'raw verify + insert (the floor of one activity)', value: `${n1(sum)} µs  → ${n0(1e6 / sum)}/s on one thread` },
    { label: 'RSA-2048 verify, 16 in flight (thread pool)', value: `${n0(raw.verifyParallelPerSec)}/s` },
    { label: 'RSA-2048 sign (the floor of one delivery)', value: `${n1(raw.signUs)} µs` },
    { label: 'RSA-2048 sign, 16 in flight (thread pool)', value: `${n0(raw.signParallelPerSec)}/s` },
  ]);
  note('SQLite as the app opens it: WAL, synchronous=NORMAL, one autocommit per row (as the listener writes).');
  return sum;
}

function printInbox(r: InboxResult, rawSumUs: number): void {
  const o = r.options;
  section(`Inbox: ${n0(o.activities)} signed activities from ${o.actors} actors, ${o.concurrency} in flight, loopback HTTP`);
  note(`signed ahead in the remote process in ${n0(r.presign.ms)} ms: ${per(r.presign.bySpec)}; ${per(r.presign.byType)}; mean body ${n0(r.presign.meanBodyBytes)} B`);
  const a = r.accept;
  const p = r.process;
  const accepted = a.statuses['202'] ?? 0;
  const perActivityUs = 1e6 / r.combinedPerSec;
  const acceptRatio = 1e6 / a.perSec / rawSumUs;
  const ratio = perActivityUs / rawSumUs;
  const keysOk = r.keys.fetchesCounted <= o.actors && (r.keys.actorDocGets.actor ?? 0) <= o.actors;
  const f = r.feel;
  // Overlapping (the app's way) is judged by the end-to-end target; one after the other by the old one.
  const e2eTarget = r.overlap ? TARGET.endToEndPerSec : TARGET.inboxPerSec;
  note(
    r.overlap
      ? process.env.BENCH_INBOX_WORKER === '0'
        ? 'checks and processor on the main thread, processing while accepting'
        : 'as in the app: checks on the inbox checks worker, the processor on its worker, processing while accepting; the main thread reads and answers'
      : 'accepted first, then processed',
  );
  const lean = r.lean;
  if (lean) {
    note(`lean baseline (node:http + node:crypto, cached key, one insert; draft-cavage): ${n0(lean.perSec)}/s, p99 ${n1(lean.p99Ms)} ms` +
      (lean.failures > 0 ? `, ${lean.failures} refused` : ''));
  }
  // The issue's figures (QUOTED): 1,500/s end to end, where the lean baseline ran ≈ 2,153 / 0.52 /s.
  const E2E_SHARE_OF_LEAN = 1500 / (2153 / 0.52);
  const ofLean = (perSec: number) => (lean ? ` = ${n2(perSec / lean.perSec)}× lean` : '');
  rows([
    { label: 'answers', value: per(a.statuses) },
    { label: 'accepted/s (verify + incoming_activity + 202)', value: `${n0(a.perSec)}/s${ofLean(a.perSec)}` },
    { label: '  per 1,000-row slice', value: a.slices.map((s) => n0(s.acceptedPerSec)).join(' · ') },
    { label: '  p99 latency per slice (ms)', value: a.slices.map((s) => n0(s.p99Ms)).join(' · ') },
    { label: 'accept latency p50 / p90 / p99 / max', value: `${n1(a.latencyMs.p50)} / ${n1(a.latencyMs.p90)} / ${n1(a.latencyMs.p99)} / ${n1(a.latencyMs.max)} ms`, target: `p99 ≤ ${TARGET.p99Ms} ms`, verdict: pass(a.latencyMs.p99 <= TARGET.p99Ms) },
    { label: 'Tern CPU per accepted activity (all threads)', value: `${n0(a.cpuUsPerActivity)} µs = ${n1(a.cpuUsPerActivity / rawSumUs)}× raw` },
    { label: '  of which on the main thread', value: `${n0(a.mainThreadCpuUsPerActivity)} µs` },
    ...(a.byThread ? [{ label: '  by thread (µs each, processing meanwhile)', value: a.byThread }] : []),
    ...(a.machine ? [{ label: '  the machine’s CPU time meanwhile (/proc/stat)', value: a.machine }] : []),
    ...(a.waitedForCore ? [{ label: '  waiting for a core while runnable (ms per s, a kind’s threads summed)', value: a.waitedForCore }] : []),
    { label: 'key fetches while accepting (Tern count)', value: `${r.keys.fetchesCounted} for ${o.actors} actors`, target: `≈ ${o.actors} (one per actor)`, verdict: pass(keysOk) },
    { label: '  actor server saw', value: per(r.keys.actorDocGets) },
    { label: '  key cache hits / misses', value: `${n0(r.keys.cacheHits)} / ${n0(r.keys.cacheMisses)}` },
    { label: 'processed/s (core inbox loop, started)', value: `${n0(p.perSec)}/s` },
    { label: '  rows done in the time budget', value: `${n0(p.done)} of ${n0(p.of)} in ${n1(p.wallMs / 1000)} s${p.budgetHit ? ' (budget hit: stopped)' : ''}` },
    { label: '  first fifth / last fifth of the rows done', value: `${n0(p.firstFifthPerSec)}/s → ${n0(p.lastFifthPerSec)}/s` },
    { label: '  outcomes', value: `processed ${p.summary.processed}, dropped ${p.summary.dropped}, retrying ${p.summary.retried}, errored ${p.summary.errored}` },
    { label: '  Tern CPU per activity processed in this phase', value: `${n0(p.cpuUsPerActivity)} µs` },
    ...(p.byThread ? [{ label: '    by thread (µs each; forced GCs for the memory readings included)', value: p.byThread }] : []),
    { label: '  rows written', value: `inbox ${n0(p.inboxRows)}, notifications ${n0(p.notifications)}` },
    { label: '  fetches while processing (actor server)', value: per(p.actorServerGets) },
    {
      label: r.overlap ? 'end to end: accepted + processed (N / wall until all done)' : 'accepted + processed (1 / (1/accept + 1/process))',
      value: `${n0(r.combinedPerSec)}/s${ofLean(r.combinedPerSec)} (${n0(perActivityUs)} µs each)`,
      target: `≥ ${n0(e2eTarget)}/s`,
      verdict: pass(r.combinedPerSec >= e2eTarget),
    },
    ...(lean && r.overlap
      ? [
          {
            // QUOTED, not measured: the issue set 1,500/s on a machine where Tern's 2,153/s accept was
            // 0.52× the lean baseline (≈ 4,140/s there); as a share of lean, the target is machine-free.
            label: '  the target as a share of lean on the issue\'s machine (QUOTED: 1,500 of ≈ 4,140/s)',
            value: `${n2(E2E_SHARE_OF_LEAN)}× lean there; this run ${n2(r.combinedPerSec / lean.perSec)}×${r.warm ? `, second burst ${n2(r.warm.endToEndPerSec / lean.perSec)}×` : ''}`,
            target: 'comparison only',
          },
        ]
      : []),
    ...(r.warm
      ? [
          {
            label: `a second burst of ${n0(r.warm.accepted)} (code warm by then): accepted / end to end`,
            value: `${n0(r.warm.perSec)}/s / ${n0(r.warm.endToEndPerSec)}/s${ofLean(r.warm.endToEndPerSec)}, accept p99 ${n1(r.warm.p99Ms)} ms, ${n0(r.warm.cpuUsPerActivity)} µs CPU each`,
            target: 'comparison only',
          },
          ...(r.warm.byThread ? [{ label: '  by thread (µs each, until all done)', value: r.warm.byThread }] : []),
        ]
      : []),
    { label: 'main thread during the burst: loop delay p50 / p99 / max', value: `${n1(f.loopDelayMs.p50)} / ${n1(f.loopDelayMs.p99)} / ${n1(f.loopDelayMs.max)} ms`, target: `p99 ≤ ${TARGET.loopDelayP99Ms} ms`, verdict: pass(f.loopDelayMs.p99 <= TARGET.loopDelayP99Ms) },
    { label: `  IPC timeline.stream page, every 100 ms (${f.ipc.calls} calls)`, value: `p50 ${n1(f.ipc.p50)} / p99 ${n1(f.ipc.p99)} / max ${n1(f.ipc.max)} ms`, target: `p99 ≤ ${TARGET.ipcP99Ms} ms`, verdict: pass(f.ipc.p99 <= TARGET.ipcP99Ms) },
    ...(lean
      ? [
          { label: '  the same during the lean baseline\'s burst: loop delay', value: `p50 ${n1(lean.feel.loopDelayMs.p50)} / p99 ${n1(lean.feel.loopDelayMs.p99)} / max ${n1(lean.feel.loopDelayMs.max)} ms` },
          { label: '    IPC page (Tern idle, the machine as loaded)', value: `p50 ${n1(lean.feel.ipc.p50)} / p99 ${n1(lean.feel.ipc.p99)} / max ${n1(lean.feel.ipc.max)} ms` },
        ]
      : []),
    { label: 'accept only', value: `${n0(a.perSec)}/s`, target: `≥ ${n0(TARGET.inboxPerSec)}/s`, verdict: pass(a.perSec >= TARGET.inboxPerSec) },
    { label: 'per-activity time ÷ raw verify+insert', value: `${n1(ratio)}× end to end; ${n1(acceptRatio)}× accept only`, target: `≤ ${TARGET.ratio}×`, verdict: pass(ratio <= TARGET.ratio) },
  ]);
  if (!keysOk && r.keys.fetchesCounted > o.actors) {
    note(`${r.keys.fetchesCounted - o.actors} extra key fetches: the first requests of an actor, in flight together, each missed the`);
    note('cache and fetched the key (no single-flight of a fetch already under way). Run with BENCH_CONCURRENCY=1 to compare.');
  }
  for (const line of r.trace) note(line);
  if (Object.keys(p.dropReasons).length > 0) note(`drop/error reasons: ${per(p.dropReasons)}`);
  if (a.failures.length > 0) note(`request failures: ${a.failures.join('; ')}`);
  note('For scale (QUOTED from the issue, NOT measured in this run): the service behind the spec accepts');
  note('≈ 110 signed activities/s on this machine and processes ≈ 2/s; a Fedify application ≈ 100–150/s.');
  note(`This run: ${n1(a.perSec / 110)}× the quoted 110/s accept; ${n0(p.perSec / 2)}× the quoted 2/s processing.`);

  judge(`inbox accepted+processed ≥ ${n0(e2eTarget)}/s (2 cores)`, `${n0(r.combinedPerSec)}/s${ofLean(r.combinedPerSec)} (accept ${n0(a.perSec)}/s${ofLean(a.perSec)})`, pass(r.combinedPerSec >= e2eTarget));
  judge(`burst: main-thread loop delay p99 ≤ ${TARGET.loopDelayP99Ms} ms`, `${n1(f.loopDelayMs.p99)} ms (max ${n1(f.loopDelayMs.max)} ms)`, pass(f.loopDelayMs.p99 <= TARGET.loopDelayP99Ms));
  judge(`burst: IPC stream page p99 ≤ ${TARGET.ipcP99Ms} ms`, `${n1(f.ipc.p99)} ms over ${f.ipc.calls} calls`, pass(f.ipc.p99 <= TARGET.ipcP99Ms));
  if (lean) judge('  (the lean baseline\'s burst, same thread)', `loop delay p99 ${n1(lean.feel.loopDelayMs.p99)} ms; IPC p99 ${n1(lean.feel.ipc.p99)} ms`, 'info');
  judge(`inbox p99 accept ≤ ${TARGET.p99Ms} ms`, `${n1(a.latencyMs.p99)} ms`, pass(a.latencyMs.p99 <= TARGET.p99Ms));
  judge(`inbox within ${TARGET.ratio}× raw verify+insert`, `${n1(ratio)}× (accept only ${n1(acceptRatio)}×)`, pass(ratio <= TARGET.ratio));
  judge('inbox key fetched once per actor', `${r.keys.fetchesCounted} fetches / ${o.actors} actors`, pass(keysOk));
  void accepted;
}

function printBreakdown(b: Breakdown, raw: RawCosts, inbox: InboxResult | null): void {
  section('Where one accepted activity’s time goes (in-process, no sockets, key cached)');
  const cost = (c: Cost) => `${n0(c.us)} µs wall, ${n0(c.cpuUs)} µs CPU`;
  const rawSum = raw.verifyCpuUs + raw.insertUs;
  rows([
    { label: 'one at a time:', value: '' },
    ...b.steps.map((s) => ({ label: `  ${s.step}`, value: cost(s) })),
    { label: '  receiveInboxPost, whole', value: cost(b.receive), target: `${n1(b.receive.cpuUs / rawSum)}× raw (CPU)` },
    { label: '  listener app.fetch (Hono+body+receive+202)', value: cost(b.appFetch) },
    { label: 'listener app.fetch, 32 in flight', value: `${n0(b.appFetchConcurrent.perSec)}/s, ${n0(b.appFetchConcurrent.cpuUs)} µs CPU each` },
  ]);
  if (inbox) {
    const http = inbox.accept.cpuUsPerActivity - b.appFetchConcurrent.cpuUs;
    rows([
      { label: 'over loopback HTTP, 32 in flight (accept phase)', value: `${n0(inbox.accept.perSec)}/s, ${n0(inbox.accept.cpuUsPerActivity)} µs CPU each` },
      { label: '  → over HTTP minus app.fetch (the listener answers /inbox on node:http, not Hono)', value: `≈ ${n0(http)} µs CPU per activity` },
    ]);
  }
  note(`Raw for comparison: RSA verify (OpenSSL) ${n1(raw.verifyCpuUs)} µs + prepared INSERT ${n1(raw.insertUs)} µs = ${n1(rawSum)} µs.`);
}

function printFanout(r: FanoutResult, signUs: number, rsaPerSec: number): void {
  const coldReceived = 'unavailable' in r.coldLean ? 0 : r.coldLean.received;
  const o = r.options;
  const expected = o.servers * o.followersPerServer;
  section(`Fan-out: 1 post → ${n0(expected)} followers on ${o.servers} loopback servers (${o.followersPerServer} each, own inboxes)`);
  note('compose: core.services.author.createPost; delivery: core.loops.delivery (the core’s wiring, default options)');
  rows([{ label: 'createPost: post + outgoing_activity rows (1 tx)', value: `${n0(r.rows)} rows in ${n1(r.composeMs)} ms`, target: `${n0(expected)} rows`, verdict: pass(r.rows === expected) }]);
  if (r.workerStartMs !== null) rows([{ label: '  then the delivery worker up (started by those rows; under tsx)', value: `${n0(r.workerStartMs)} ms`, target: 'comparison only' }]);
  if ('unavailable' in r.loop) {
    rows([{ label: 'delivery loop', value: `not available: ${r.loop.unavailable}`, verdict: 'n/a' }]);
    judge(`fan-out ≥ ${n0(TARGET.fanoutPerSec)} signed deliveries/s`, `not available: ${r.loop.unavailable}`, 'n/a');
  } else {
    const l = r.loop;
    const complete = l.received === expected && l.serversWithAll === o.servers;
    rows([
      { label: 'signed deliveries/s (delivery loop, drained)', value: `${n0(l.perSec)}/s (${n0(l.wallMs)} ms)`, target: `≥ ${n0(TARGET.fanoutPerSec)}/s`, verdict: pass(l.perSec >= TARGET.fanoutPerSec) },
      { label: '  rows after drain', value: per(l.rowStates) },
      { label: '  received / servers with all their requests', value: `${n0(l.received)} / ${l.serversWithAll} of ${o.servers}, over ${n0(l.connections)} connections`, target: `${n0(expected)} / ${o.servers}`, verdict: pass(complete) },
      { label: '  distinct inboxes hit', value: n0(l.distinctInboxes) },
      { label: '  with Signature / Signature-Input header', value: `${n0(l.withSignature)} / ${n0(l.withSignatureInput)}` },
      { label: '  Tern CPU per delivery', value: `${n0(l.cpuUsPerDelivery)} µs = ${n1(l.cpuUsPerDelivery / signUs)}× one RSA sign` },
      { label: '    of which on the main thread', value: `${n0(l.mainThreadCpuUsPerDelivery)} µs (the rest: signing on the thread pool, GC)` },
      ...(l.byThread ? [{ label: '    by thread (µs each)', value: l.byThread }] : []),
      ...(l.waitedForCore ? [{ label: '    waiting for a core while runnable (ms per s, a kind’s threads summed)', value: l.waitedForCore }] : []),
      { label: '  receivers’ CPU per delivery (remote process)', value: `${n0(l.receiverCpuUsPerDelivery)} µs` },
      { label: '  main thread meanwhile: loop delay p50 / p99 / max', value: `${n1(l.feel.loopDelayMs.p50)} / ${n1(l.feel.loopDelayMs.p99)} / ${n1(l.feel.loopDelayMs.max)} ms` },
      { label: `    IPC timeline.stream page, every 100 ms (${l.feel.ipc.calls} calls)`, value: `p50 ${n1(l.feel.ipc.p50)} / p99 ${n1(l.feel.ipc.p99)} / max ${n1(l.feel.ipc.max)} ms` },
      // Both processes share this machine's cores: what the run could reach with every core busy.
      { label: `  ceiling at this CPU cost on ${cpus().length} cores (Tern + receivers)`, value: `${n0((cpus().length * 1e6) / (l.cpuUsPerDelivery + l.receiverCpuUsPerDelivery))}/s` },
    ]);
    const s2 = r.secondPost;
    if (s2) {
      rows([
        { label: 'second post, same followers (code optimised by then)', value: `${n0(s2.perSec)}/s (${n0(s2.wallMs)} ms)`, target: 'comparison only' },
        { label: '  received / servers with all their requests', value: `${n0(s2.received)} / ${s2.serversWithAll} of ${o.servers}, over ${n0(s2.connections)} new connections` },
        { label: '  Tern CPU per delivery (main thread)', value: `${n0(s2.cpuUsPerDelivery)} µs (${n0(s2.mainThreadCpuUsPerDelivery)} µs)` },
        ...(s2.byThread ? [{ label: '    by thread (µs each)', value: s2.byThread }] : []),
        ...(s2.waitedForCore ? [{ label: '    waiting for a core while runnable (ms per s, a kind’s threads summed)', value: s2.waitedForCore }] : []),
      ]);
    }
    judge(`fan-out ≥ ${n0(TARGET.fanoutPerSec)} signed deliveries/s`, `${n0(l.perSec)}/s`, pass(l.perSec >= TARGET.fanoutPerSec));
    const [cold, warm] = 'unavailable' in r.coldLean ? [] : r.coldLean.rounds;
    if (cold && warm) {
      judge(
        '  (the lean floor on a new thread: first round cold, second warm)',
        `${n0(cold.perSec)}/s and ${n0(warm.perSec)}/s; Tern's first post ${n2(l.perSec / cold.perSec)}× the cold round${s2 ? `, second post ${n2(s2.perSec / warm.perSec)}× the warm one` : ''}`,
        'info',
      );
    }
    judge('fan-out: every server got every request', `${n0(l.received)} of ${n0(expected)}, ${l.serversWithAll}/${o.servers} servers complete`, pass(complete));
  }
  const b = r.baseline;
  rows([
    { label: `signedFetch alone, ${o.baselineConcurrency} in flight (no queue)`, value: `${n0(b.perSec)}/s (${n0(b.wallMs)} ms)`, target: 'comparison only' },
    { label: '  received / servers with all their requests', value: `${n0(b.received)} / ${b.serversWithAll} of ${o.servers}, over ${n0(b.connections)} new connections` },
    { label: '  Tern CPU per request', value: `${n0(b.cpuUsPerDelivery)} µs = ${n1(b.cpuUsPerDelivery / signUs)}× one RSA sign` },
    { label: '    of which on the main thread', value: `${n0(b.mainThreadCpuUsPerDelivery)} µs` },
    { label: `lean floor, ${o.baselineConcurrency} in flight: node:crypto sign + node:http`, value: `${n0(r.lean.perSec)}/s (${n0(r.lean.wallMs)} ms)`, target: 'comparison only' },
    { label: '  received / servers with all their requests', value: `${n0(r.lean.received)} / ${r.lean.serversWithAll} of ${o.servers}, over ${n0(r.lean.connections)} new connections` },
    { label: '  CPU per request (main thread)', value: `${n0(r.lean.cpuUsPerDelivery)} µs (${n0(r.lean.mainThreadCpuUsPerDelivery)} µs)` },
    // The same code on a thread just started, as the delivery worker is at the first post after
    // it starts (it stops after 10 minutes with nothing to send): what the code's being cold
    // costs any Node program, before anything of Tern's.
    ...('unavailable' in r.coldLean
      ? [{ label: 'lean floor on a new thread', value: `not available: ${r.coldLean.unavailable}`, verdict: 'n/a' as const }]
      : r.coldLean.rounds.map((round, i) => ({
          label: i === 0 ? `lean floor on a new thread, first round (code cold)` : '  second round (warm)',
          value: `${n0(round.perSec)}/s, CPU ${n0(round.cpuUsPerDelivery)} µs a request${i === 0 ? `; over both rounds: receivers ${n0(round.receiverCpuUsPerDelivery)} µs a request, ${n0(coldReceived)} received` : ''}`,
          target: 'comparison only',
        }))),
    ...('unavailable' in r.loop
      ? []
      : [
          { label: 'Tern’s delivery loop ÷ lean floor', value: `${n2(r.loop.perSec / r.lean.perSec)}× the deliveries/s, ${n1(r.loop.cpuUsPerDelivery / r.lean.cpuUsPerDelivery)}× the CPU per delivery` },
          // The issue's figure was set where RSA signs ran at ≈ 7,000/s on two cores.
          { label: 'loop rate scaled to RSA signing at 7,000/s', value: `${n0((r.loop.perSec * 7000) / rsaPerSec)}/s (this machine signs ${n0(rsaPerSec)}/s now; for comparison across machines only)` },
        ]),
    { label: 'signatures verified with verifyInbound (sample)', value: `${r.verified.ok} of ${r.verified.checked} valid, key = Tern's actor`, target: 'all', verdict: pass(r.verified.checked > 0 && r.verified.ok === r.verified.checked) },
  ]);
  if ('unavailable' in r.tls) rows([{ label: 'over TLS', value: `not available: ${r.tls.unavailable}`, verdict: 'n/a' }]);
  else {
    rows(
      r.tls.rounds.flatMap((t, i) => [
        {
          label: i === 0 ? `over TLS: a post to ${o.tlsServers} HTTPS servers, a new connection each (the delivery loop)` : '  a second post, with the TLS sessions kept',
          value: `${n0(t.perSec)}/s (${n0(t.wallMs)} ms), ${n0(t.resumed)} of ${n0(t.received)} resumed`,
          target: 'comparison only',
        },
        { label: '    Tern CPU per delivery (main thread)', value: `${n0(t.cpuUsPerDelivery)} µs (${n0(t.mainThreadCpuUsPerDelivery)} µs); receivers ${n0(t.receiverCpuUsPerDelivery)} µs` },
        { label: '    main thread meanwhile: loop delay p50 / p99 / max', value: `${n1(t.feel.loopDelayMs.p50)} / ${n1(t.feel.loopDelayMs.p99)} / ${n1(t.feel.loopDelayMs.max)} ms` },
        { label: `      IPC timeline.stream page, every 100 ms (${t.feel.ipc.calls} calls)`, value: `p50 ${n1(t.feel.ipc.p50)} / p99 ${n1(t.feel.ipc.p99)} / max ${n1(t.feel.ipc.max)} ms` },
      ]),
    );
  }
  if (r.verified.failures.length > 0) note(`verification failures: ${r.verified.failures.join('; ')}`);
  judge('fan-out signatures verify (sample, one per server)', `${r.verified.ok}/${r.verified.checked}`, pass(r.verified.checked > 0 && r.verified.ok === r.verified.checked));
}

function printMemory(inbox: InboxResult | null, peaks: PhasePeak[], overallPeak: number): void {
  section('Memory of the Tern process');
  rows(peaks.map((p) => ({ label: `peak RSS: ${p.phase}`, value: `${n1(p.peakRssMb)} MB` })));
  rows([{ label: 'peak RSS over the whole run', value: `${n1(overallPeak)} MB` }]);
  if (!inbox) return;
  const points = inbox.memory;
  const acceptPoints = points.slice(0, inbox.accept.slices.length + 1);
  rows([
    { label: 'accepting: after GC, by incoming_activity rows', value: 'heap MB / RSS MB' },
    ...acceptPoints.map((c) => ({ label: `  ${n0(c.rows)} rows`, value: `${n1(c.heapMb)} / ${n1(c.rssMb)}` })),
    { label: 'processing: after GC, by rows done', value: 'heap MB / RSS MB' },
    ...inbox.process.memory.map((c) => ({ label: `  ${n0(c.rows)} rows done`, value: `${n1(c.heapMb)} / ${n1(c.rssMb)}` })),
    ...points.slice(acceptPoints.length).map((c) => ({ label: `  after processing + GC (${n0(c.rows)} done)`, value: `${n1(c.heapMb)} / ${n1(c.rssMb)}` })),
  ]);
  // Slope between the 1k checkpoint and the last accept checkpoint.
  const first = acceptPoints.find((c) => c.rows >= 1000) ?? acceptPoints[1];
  const last = acceptPoints.at(-1);
  if (first && last && last.rows > first.rows) {
    const k = (last.rows - first.rows) / 1000;
    const heapPer1k = (last.heapMb - first.heapMb) / k;
    const rssPer1k = (last.rssMb - first.rssMb) / k;
    rows([
      {
        label: `growth ${n0(first.rows)} → ${n0(last.rows)} rows, per 1k rows`,
        value: `heap ${n2(heapPer1k)} MB, RSS ${n2(rssPer1k)} MB`,
        target: `heap ≤ ${TARGET.heapMbPer1k} MB/1k`,
        verdict: pass(heapPer1k <= TARGET.heapMbPer1k),
      },
    ]);
    note(`(a 1k-row slice is ≈ ${n1((inbox.presign.meanBodyBytes * 1000) / (1024 * 1024))} MB of JSON: keeping rows in memory would show as that much per 1k)`);
    judge('memory flat as rows grow (accepting)', `heap ${n2(heapPer1k)} MB / RSS ${n2(rssPer1k)} MB per 1k rows`, pass(heapPer1k <= TARGET.heapMbPer1k));
  }
  const pm = inbox.process.memory;
  const p0 = pm[0];
  const p1 = pm.at(-1);
  if (p0 && p1 && p1.rows > p0.rows) {
    const k = (p1.rows - p0.rows) / 1000;
    const heapPer1k = (p1.heapMb - p0.heapMb) / k;
    const rssPer1k = (p1.rssMb - p0.rssMb) / k;
    rows([
      {
        label: `processing: growth ${n0(p0.rows)} → ${n0(p1.rows)} rows, per 1k`,
        value: `heap ${n2(heapPer1k)} MB, RSS ${n2(rssPer1k)} MB`,
        target: `heap ≤ ${TARGET.heapMbPer1k} MB/1k`,
        verdict: pass(heapPer1k <= TARGET.heapMbPer1k),
      },
    ]);
    judge('memory flat as rows grow (processing)', `heap ${n2(heapPer1k)} MB / RSS ${n2(rssPer1k)} MB per 1k rows`, pass(heapPer1k <= TARGET.heapMbPer1k));
  }
  note('Verdicts use the heap after GC; RSS is shown beside it (it moves with page reclaim when the machine is busy).');
  judge('peak memory (reported)', `${n1(overallPeak)} MB RSS`, 'info');
}

function printStartup(r: StartupResult): void {
  const o = r.options;
  const f = r.fixture;
  section(`Start-up: the core on a database with ${n0(o.inboxRows)} inbox rows, beside the sqlite3 shell on the same file`);
  const ready = stats(r.core.map((c) => c.readyMs));
  const wall = stats(r.core.map((c) => c.wallMs));
  const boot = stats(r.core.map((c) => c.nodeBootMs));
  const load = stats(r.core.map((c) => c.moduleLoadMs));
  const open = stats(r.core.map((c) => c.openCoreMs));
  const status = stats(r.core.map((c) => c.statusMs));
  const close = stats(r.core.map((c) => c.closeMs));
  const shell = stats(r.shell.wallMs);
  const bare = stats(r.bareNode.wallMs);
  const ok = ready.max < TARGET.readyMs && r.core.every((c) => c.inboxCount === f.counts.inbox && !c.migrated);
  const ms = (x: number) => `${n1(x)} ms`;
  rows([
    { label: 'fixture built (openCore once + 1 INSERT…SELECT tx)', value: `${n1(f.buildMs / 1000)} s, ${n0(f.bytes / (1024 * 1024))} MB file` },
    { label: '  rows', value: per(Object.fromEntries(Object.entries(f.counts).map(([k, v]) => [k, n0(v)] as const)) as unknown as Record<string, number>) },
    { label: '  mean inbox ap_object', value: `${n0(f.meanApObjectBytes)} B` },
    { label: `openCore → status.get() ready (${r.core.length} runs)`, value: `median ${ms(ready.median)}, max ${ms(ready.max)}`, target: `< ${TARGET.readyMs} ms`, verdict: pass(ok) },
    { label: '  openCore / status.get() / close', value: `${ms(open.median)} / ${ms(status.median)} / ${ms(close.median)} (medians)` },
    { label: 'process wall, spawn → exit', value: `median ${ms(wall.median)}, max ${ms(wall.max)}` },
    { label: '  Node start + bundle read/compile', value: `${ms(boot.median)} (${n0((100 * boot.median) / wall.median)}% of wall)` },
    { label: '  module load (bundle evaluated)', value: `${ms(load.median)} (${n0((100 * load.median) / wall.median)}% of wall)` },
    { label: '  openCore → ready', value: `${ms(ready.median)} (${n0((100 * ready.median) / wall.median)}% of wall)` },
    { label: `${r.shell.tool}: open + count`, value: `median ${ms(shell.median)}, max ${ms(shell.max)} (${r.shell.count} rows)`, target: 'comparison only' },
    { label: 'Node + better-sqlite3 alone: open + count', value: `median ${ms(bare.median)}, max ${ms(bare.max)} (${r.bareNode.count} rows)`, target: 'comparison only' },
  ]);
  if (r.parts) {
    const p = r.parts;
    rows([{ label: 'the steps openCore takes, one by one (1 run):', value: `module load ${ms(p.moduleLoadMs)}, wall ${ms(p.wallMs)}` }]);
    rows(Object.entries(p.steps).map(([step, t]) => ({ label: `  ${step}`, value: ms(t) })));
  }
  note(`Warm page cache (the file was just written). Child bundled by esbuild in ${n0(r.bundleMs)} ms; no tsx in what is timed.`);
  judge(`core ready on ${n0(o.inboxRows)} inbox rows < ${TARGET.readyMs} ms`, `median ${ms(ready.median)}, max ${ms(ready.max)} (process ${ms(wall.median)}; ${r.shell.tool.split(' (')[0]} ${ms(shell.median)})`, pass(ok));
}

function printPolls(r: PollsResult): void {
  section(`Polls: ${n0(r.rows)} vote activities from ${n0(r.options.voters)} actors on two polls, processed by the core's inbox loop`);
  rows([
    { label: 'votes processed/s (valid + rejected)', value: `${n0(r.perSec)}/s (${n0(r.rows)} in ${n1(r.wallMs / 1000)} s)` },
    { label: '  valid votes counted/s', value: `${n0(r.validPerSec)}/s (${n0(r.valid)})` },
    { label: '  same loop, plain Create{Note} rows/s', value: `${n0(r.notesPerSec)}/s (for scale: ${n2(r.perSec / r.notesPerSec)}× as fast)` },
    { label: '  outcomes', value: `processed ${r.summary.processed}, dropped ${r.summary.dropped}, retrying ${r.summary.retried}, errored ${r.summary.errored}` },
    { label: '  tallies from poll_answer', value: r.tallies, target: 'match what was sent', verdict: pass(r.talliesRight) },
    { label: 'one sweep after all the votes', value: `${r.updates} Updates queued in ${n1(r.sweepMs)} ms`, target: '1 per poll', verdict: pass(r.updates === 2) },
  ]);
  judge('polls: votes processed/s', `${n0(r.perSec)}/s; tallies ${r.talliesRight ? 'right' : 'WRONG'}; no vote retried or errored`, pass(r.talliesRight && r.summary.retried === 0 && r.summary.errored === 0));
}

async function idlePhase(): Promise<void> {
  const seconds = env('BENCH_IDLE_SECONDS', 60);
  section(`Idle: the core with its loops running and nothing to do, for ${seconds} s`);
  try {
    const r = await runIdle(seconds);
    const wakes = r.wakesPerSec ? Object.entries(r.wakesPerSec).filter(([, n]) => n >= 0.05).sort((a, b) => b[1] - a[1]) : [];
    rows([
      { label: 'CPU, whole process (all threads)', value: `${n2(r.cpuPercentOfCore)} % of a core`, target: `≤ ${TARGET.idleCpuPercent} %`, verdict: pass(r.cpuPercentOfCore <= TARGET.idleCpuPercent) },
      { label: '  of which the main thread', value: `${n2(r.mainThreadCpuPercent)} %` },
      r.totalWakesPerSec === null
        ? { label: 'wake-ups', value: 'not measured (no /proc)' }
        : { label: 'wake-ups (voluntary context switches), all threads', value: `${n1(r.totalWakesPerSec)}/s`, target: `≤ ${TARGET.idleWakesPerSec}/s`, verdict: pass(r.totalWakesPerSec <= TARGET.idleWakesPerSec) },
      ...wakes.map(([name, n]) => ({ label: `  ${name}`, value: `${n2(n)}/s, CPU ${n2(r.cpuByThread?.[name] ?? 0)} %` })),
    ]);
    judge(`idle CPU ≤ ${TARGET.idleCpuPercent} % of a core`, `${n2(r.cpuPercentOfCore)} % over ${seconds} s`, pass(r.cpuPercentOfCore <= TARGET.idleCpuPercent));
    if (r.totalWakesPerSec !== null) judge(`idle wake-ups ≤ ${TARGET.idleWakesPerSec}/s`, `${n1(r.totalWakesPerSec)}/s`, pass(r.totalWakesPerSec <= TARGET.idleWakesPerSec));
  } catch (error) {
    note(`not available: ${(error as Error).stack ?? String(error)}`);
    judge('idle targets', `not available: ${(error as Error).message}`, 'n/a');
  }
}

async function pollsPhase(): Promise<void> {
  const tern = await openBenchTern();
  try {
    printPolls(await runPolls(tern, { voters: env('BENCH_POLL_VOTERS', 200) }));
  } catch (error) {
    section('Polls');
    note(`not available: ${(error as Error).stack ?? String(error)}`);
    judge('polls targets', `not available: ${(error as Error).message}`, 'n/a');
  } finally {
    await tern.close();
  }
}

async function mediaPhase(): Promise<void> {
  try {
    const cases = await measureMedia();
    printMedia(cases);
    const [big] = cases;
    if (big) judge('media: upload per megapixel (12 MP JPEG)', `${n1(big.uploadMs / big.megapixels)} ms/MP; sharp resize alone ${n1(big.resizeMs / big.megapixels)} ms/MP`, 'info');
  } catch (error) {
    section('Media');
    note(`not available: ${(error as Error).stack ?? String(error)}`);
  }
}

async function startupPhase(): Promise<void> {
  try {
    printStartup(
      await runStartup({
        inboxRows: env('BENCH_STARTUP_ROWS', 1_000_000),
        actors: 1000,
        outboxRows: 10_000,
        followers: 1000,
        notifications: 5000,
        runs: env('BENCH_STARTUP_RUNS', 5),
      }),
    );
  } catch (error) {
    section('Start-up');
    note(`not available: ${(error as Error).stack ?? String(error)}`);
    judge('core start-up target', `not available: ${(error as Error).message}`, 'n/a');
  }
}

async function searchPhase(full: boolean): Promise<void> {
  try {
    printSearch(
      await runSearchBench({
        inboxRows: env('BENCH_SEARCH_ROWS', full ? 1_000_000 : 100_000),
        outboxRows: env('BENCH_SEARCH_OUTBOX', full ? 100_000 : 10_000),
        actors: 1000,
        runs: env('BENCH_SEARCH_RUNS', 100),
      }),
    );
  } catch (error) {
    section('Search');
    note(`not available: ${(error as Error).stack ?? String(error)}`);
    judge('search targets', `not available: ${(error as Error).message}`, 'n/a');
  }
}

function printSearch(r: SearchBenchResult): void {
  const o = r.options;
  section(`Search: ${n0(o.inboxRows)} inbox + ${n0(o.outboxRows)} outbox rows (FTS5; ${o.runs} runs of each query through search.query's service)`);
  note(`fixture ${n1(r.fixtureMs / 1000)} s + words ${n1(r.wordsMs / 1000)} s; database ${n0(r.bytesBefore / 1e6)} MB before the index, ${n0(r.bytesAfter / 1e6)} MB after`);
  const rate = r.rebuild.rows / (r.rebuild.ms / 1000);
  rows([
    { label: 'revision c41f7a2e9d15 (tables, triggers, counts)', value: `${n0(r.revisionMs)} ms` },
    { label: 'index rebuild (the core’s indexer, 1 s steps)', value: `${n1(r.rebuild.ms / 1000)} s: ${n0(rate)} rows/s`, target: `${n0(r.rebuild.indexed)} posts indexed` },
  ]);
  rows(
    r.queries.map((q) => ({
      label: q.kind,
      value: `p50 ${n1(q.p50)} / p99 ${n1(q.p99)} ms; CPU p99 ${n1(q.cpuP99)} ms`,
      target: `p99 ≤ ${TARGET.p99Ms} ms`,
      verdict: pass(q.p99 <= TARGET.p99Ms),
    })),
  );
  note('Wall time is what the author waits; CPU time (this process) is the query’s own cost, whatever else the machine runs.');
  note('Best match reads the text of the newest 2,500 matches and ranks them (service.ts, rank.ts): the most a query costs,');
  note('whatever its words. Newest first, filters and dates read only as many matches as a page needs.');
  const failed = r.queries.filter((q) => q.p99 > TARGET.p99Ms);
  const worst = [...r.queries].sort((a, b) => b.p99 - a.p99)[0];
  const cpuFailed = r.queries.filter((q) => q.cpuP99 > TARGET.p99Ms);
  judge(
    `search p99 ≤ ${TARGET.p99Ms} ms per query kind (${n0(o.inboxRows)} rows)`,
    `${r.queries.length - failed.length} of ${r.queries.length} kinds; worst ${worst ? `${worst.kind} ${n1(worst.p99)} ms` : '—'}`,
    pass(failed.length === 0),
  );
  judge(
    `search CPU p99 ≤ ${TARGET.p99Ms} ms per query kind`,
    `${r.queries.length - cpuFailed.length} of ${r.queries.length} kinds; worst ${n1(Math.max(...r.queries.map((q) => q.cpuP99)))} ms`,
    pass(cpuFailed.length === 0),
  );
  judge('search index rebuild', `${n0(rate)} rows/s (${n1(r.rebuild.ms / 1000)} s for ${n0(r.rebuild.rows)} rows)`, 'info');
}

function printTargets(started: number): void {
  section('Targets');
  for (const s of summary) console.log(`  ${s.verdict === 'info' ? '    ' : s.verdict.padEnd(4)}  ${s.target.padEnd(48)} ${s.value}`);
  console.log(`\nLoad average (1 min) at end: ${n2(loadavg()[0] ?? 0)} (this bench alone adds up to ≈ 2).`);
  console.log(`bench took ${n1((performance.now() - started) / 1000)} s; final RSS ${n1(mb(process.memoryUsage.rss()))} MB. Benchmarks report; exit code 0.`);
}

async function main(): Promise<void> {
  const started = performance.now();
  const inboxOptions = {
    activities: env('BENCH_INBOX_N', 5000),
    actors: env('BENCH_ACTORS', 8),
    concurrency: env('BENCH_CONCURRENCY', 32),
    createBytes: 2048,
    slice: 1000,
    processBudgetMs: env('BENCH_PROCESS_BUDGET_MS', 20_000),
  };
  const fanoutOptions = {
    servers: env('BENCH_SERVERS', 100),
    followersPerServer: env('BENCH_FOLLOWERS_PER_SERVER', 10),
    baselineConcurrency: 64, // the core's delivery loop's concurrency
    tlsServers: env('BENCH_TLS_SERVERS', 300),
    samplesToVerify: 5,
  };
  console.log(`Tern bench — ${new Date().toISOString()} — Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}`);
  console.log('All traffic on 127.0.0.1 between this process (Tern: core + listener + loops) and one child process (remote actors, inbox servers).');
  const loadAtStart = loadavg()[0] ?? 0;
  console.log(`Load average (1 min) at start: ${n2(loadAtStart)} on ${cpus().length} cores${loadAtStart > 0.5 ? ' — other work is running: figures below are lower than on an idle machine' : ''}.`);

  if (process.env.BENCH_ONLY === 'polls' || process.env.BENCH_ONLY === 'media') {
    await (process.env.BENCH_ONLY === 'polls' ? pollsPhase() : mediaPhase());
    printTargets(started);
    return;
  }
  if (process.env.BENCH_ONLY === 'search') {
    await searchPhase(true);
    printTargets(started);
    return;
  }
  if (process.env.BENCH_ONLY === 'idle') {
    await idlePhase();
    printTargets(started);
    return;
  }
  if (process.env.BENCH_ONLY === 'scale') {
    await scalePhase(judge);
    printTargets(started);
    return;
  }
  if (process.env.BENCH_ONLY === 'startup') {
    await startupPhase();
    printTargets(started);
    return;
  }

  const only = process.env.BENCH_ONLY;
  const profileDir = process.env.BENCH_CPU_PROFILE;
  const profiler = profileDir ? await createPhaseProfiler(profileDir) : null;
  const profileLines: string[] = [];
  const hooks: PartHooks = profiler
    ? {
        start: (part) => {
          profileLines.push(`\n  -- ${part}`);
          return profiler.start(part);
        },
        stop: async () => void profileLines.push(...(await profiler.stop())),
      }
    : process.env.BENCH_PERF_MARKS === '1'
      ? perfMarks()
      : noHooks;

  const sampler = startSampler();
  sampler.phase('raw costs');
  const raw = await measureRawCosts();
  const rawSum = printRaw(raw);

  const remote = startRemote();
  const tern = await openBenchTern();
  let inbox: InboxResult | null = null;
  try {
    // BENCH_ONLY=fanout: not the inbox phase nor its breakdown.
    if (only !== 'fanout') {
      try {
        inbox = await runInbox(tern, remote, sampler, inboxOptions, hooks);
        printInbox(inbox, rawSum);
      } catch (error) {
        section('Inbox');
        note(`not available: ${(error as Error).stack ?? String(error)}`);
        judge('inbox targets', `not available: ${(error as Error).message}`, 'n/a');
      }
    }
    // BENCH_ONLY=inbox: not the breakdown nor the fan-out.
    if (only !== 'inbox') {
      if (only !== 'fanout') {
        sampler.phase('inbox: in-process breakdown');
        try {
          printBreakdown(await measureInboxBreakdown(), raw, inbox);
        } catch (error) {
          section('Inbox breakdown');
          note(`not available: ${(error as Error).stack ?? String(error)}`);
        }
      }
      sampler.phase('fan-out');
      try {
        printFanout(await runFanout(tern, remote, fanoutOptions, hooks), raw.signUs, raw.signParallelPerSec);
      } catch (error) {
        section('Fan-out');
        note(`not available: ${(error as Error).stack ?? String(error)}`);
        judge('fan-out targets', `not available: ${(error as Error).message}`, 'n/a');
      }
    }
  } finally {
    const { peaks, overallMb } = await sampler.stop();
    printMemory(inbox, peaks, overallMb);
    await remote.close();
    await tern.close();
  }

  if (profiler) {
    await profiler.close();
    section('CPU profiles (BENCH_CPU_PROFILE; rates above are slowed by profiling)');
    for (const line of profileLines) console.log(line);
  }

  if (only === 'inbox' || only === 'fanout') {
    printTargets(started);
    return;
  }
  await pollsPhase();
  await mediaPhase();
  await searchPhase(false);
  await idlePhase();
  // Last, on its own fixture: nothing else of the bench is running while it is timed.
  await startupPhase();
  await scalePhase(judge);
  printTargets(started);
}

main()
  .catch((error: unknown) => console.error(`bench failed: ${(error as Error).stack ?? String(error)}`))
  .finally(() => {
    process.exitCode = 0;
  });

/** BENCH_PERF_MARKS=1: each part's start and end on CLOCK_MONOTONIC (libuv's hrtime), for
 * `perf record -k CLOCK_MONOTONIC` and then `perf report --time <start>,<end>`: a CPU profile of
 * one part, every thread, off-CPU time left out (V8's sampler counts a preempted thread too). */
function perfMarks(): PartHooks {
  let part = '';
  let at = 0n;
  const seconds = (ns: bigint) => (Number(ns) / 1e9).toFixed(6);
  return {
    start: (name) => {
      part = name;
      at = process.hrtime.bigint();
      return Promise.resolve();
    },
    stop: () => {
      console.error(`perf window: ${part}: --time ${seconds(at)},${seconds(process.hrtime.bigint())} --pid ${process.pid}`);
      return Promise.resolve();
    },
  };
}
