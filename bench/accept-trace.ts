// BENCH_ACCEPT_TRACE=1: what the slowest accepts are made of. The remote numbers its requests
// (x-bench-seq, unsigned) and says when each was sent; this side records, on Tern's main thread,
// when node:http accepted each connection and handed each request over, when its body was read,
// when it was handed to the inbox checks worker and its answer came back (or, checked on this
// thread, to the inbox worker's insert and its id back), when its 202
// was finished; the documents the listener loaded; the main thread's GC pauses
// (PerformanceObserver) and its event-loop gaps (a 1 ms interval timer late by > 3 ms). The
// slowest 1 % of requests are set beside the median ones, part by part. Tracing costs a little
// (the timer, the hooks): read its rates as slightly low. BENCH_ACCEPT_TRACE_OUT=<file> keeps
// the raw timeline as JSON.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import type { Core } from '../electron/core/core';
import type { InboxWorkerHost } from '../electron/core/federation/inbox-worker-host';

interface ServerSide {
  start: number;
  bodyAt?: number;
  /** Handed to the inbox checks worker, and its verdict back (when the checks run there). */
  checkAt?: number;
  checkedAt?: number;
  /** Handed to the inbox worker's insert (verified), and its ids back. */
  writeAt?: number;
  writtenAt?: number;
  queuedAt?: number;
  finish?: number;
}
interface Span {
  start: number;
  ms: number;
  kind: string;
}
export interface ClientRecord {
  seq: number;
  sentAt: number;
  /** When the request's last byte was handed to the client's socket (after connecting). */
  writtenAt: number;
  ms: number;
}

const now = () => performance.timeOrigin + performance.now();

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak-cb',
};

export interface AcceptTrace {
  /** The bench's own forced GCs between slices are not counted. */
  aside(from: number, to: number): void;
  stop(): void;
  /** `shape`: the blast's slice size and requests in flight (each slice starts on new connections). */
  report(client: ClientRecord[], shape: { slice: number; concurrency: number }): string[];
}

export function startAcceptTrace(core: Core): AcceptTrace {
  const server = new Map<number, ServerSide>();
  const gcs: Span[] = [];
  const gaps: Span[] = [];
  const asides: Array<[number, number]> = [];
  const onStart = (message: unknown) => {
    const { request } = message as { request: IncomingMessage };
    const seq = Number(request.headers['x-bench-seq']);
    if (!Number.isInteger(seq)) return;
    const entry: ServerSide = { start: now() };
    server.set(seq, entry);
    request.once('end', () => (entry.bodyAt = now()));
  };
  const onFinish = (message: unknown) => {
    const { request } = message as { request: IncomingMessage };
    const entry = server.get(Number(request.headers['x-bench-seq']));
    if (entry) entry.finish = now();
  };
  const connections: number[] = [];
  const onConnection = () => connections.push(now());
  subscribe('net.server.socket', onConnection);
  subscribe('http.server.request.start', onStart);
  subscribe('http.server.response.finish', onFinish);
  // The activity's number is in its id (…/statuses/<i>/activity, …/likes/<i>).
  const entryOf = (apId: string | null) => {
    const match = /\/(?:statuses|likes)\/(\d+)/.exec(apId ?? '');
    return match ? server.get(Number(match[1])) : undefined;
  };
  const offQueued = core.inboxEvents.onQueued((queued) => {
    const entry = entryOf(queued.apId);
    if (entry) entry.queuedAt = now();
  });
  // The worker's insert (incoming-writer routes the listener's rows to it): when each row was
  // handed over and when its id came back.
  // Documents the listener loads (keys, actors; contexts are preloaded): when, and how long.
  const loads: Array<{ url: string; start: number; ms: number }> = [];
  const fed = core.fed as { documentLoader: Core['fed']['documentLoader'] };
  const loader = fed.documentLoader;
  fed.documentLoader = async (url, options) => {
    const start = now();
    try {
      return await loader(url, options);
    } finally {
      loads.push({ url, start, ms: now() - start });
    }
  };
  // With the checks on their worker (core.inboxAccept): when each POST was handed to it (after
  // its body was read) and when its verdict came back; the row is then inserted by the processor.
  let checksOnWorker = false;
  const accept = core.inboxAccept;
  if (accept) {
    core.inboxAccept = (post) => {
      const at = now();
      const i = post.headers.findIndex((h, k) => k % 2 === 0 && h.toLowerCase() === 'x-bench-seq');
      const entry = i < 0 ? undefined : server.get(Number(post.headers[i + 1]));
      const pending = accept(post);
      if (pending !== null && entry) {
        checksOnWorker = true;
        entry.checkAt = at;
        void pending.then(() => (entry.checkedAt = now()), () => undefined);
      }
      return pending;
    };
  }
  const host = core.loops.inbox as Partial<InboxWorkerHost>;
  const insert = host.insert;
  if (insert) {
    host.insert = (rows) => {
      const at = now();
      const entries = rows.map((row) => entryOf(row.apId));
      for (const e of entries) if (e) e.writeAt = at;
      const pending = insert(rows);
      void pending?.then(() => {
        const back = now();
        for (const e of entries) if (e) e.writtenAt = back;
      });
      return pending;
    };
  }
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = GC_KINDS[((e as PerformanceEntry & { detail?: { kind?: number } }).detail)?.kind ?? -1] ?? 'other';
      gcs.push({ start: performance.timeOrigin + e.startTime, ms: e.duration, kind });
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  let last = performance.now();
  const ticker = setInterval(() => {
    const t = performance.now();
    if (t - last > 4) gaps.push({ start: performance.timeOrigin + last + 1, ms: t - last - 1, kind: 'gap' });
    last = t;
  }, 1);

  const overlap = (spans: Span[], from: number, to: number, kind?: string) => {
    let ms = 0;
    for (const s of spans) {
      if (kind !== undefined && s.kind !== kind) continue;
      const a = Math.max(from, s.start);
      const b = Math.min(to, s.start + s.ms);
      if (b > a) ms += b - a;
    }
    return ms;
  };
  const isAside = (s: Span) => asides.some(([a, b]) => s.start >= a && s.start <= b);

  return {
    aside: (from, to) => asides.push([from, to]),
    stop() {
      unsubscribe('net.server.socket', onConnection);
      unsubscribe('http.server.request.start', onStart);
      unsubscribe('http.server.response.finish', onFinish);
      offQueued?.();
      if (insert) host.insert = insert;
      if (accept) core.inboxAccept = accept;
      fed.documentLoader = loader;
      observer.disconnect();
      clearInterval(ticker);
    },
    report(client, shape) {
      // BENCH_ACCEPT_TRACE_OUT=<file>: the raw timeline, to lay beside a CPU profile (its times are
      // the monotonic clock in µs; hrOriginMs maps them: profile µs / 1000 − hrOriginMs = epoch − timeOrigin).
      const out = process.env.BENCH_ACCEPT_TRACE_OUT;
      if (out) {
        const hrOriginMs = Number(process.hrtime.bigint() / 1000n) / 1000 - performance.now();
        writeFileSync(out, JSON.stringify({ timeOrigin: performance.timeOrigin, hrOriginMs, gcs, gaps, asides, loads, connections, client, server: [...server.entries()] }));
      }
      const gcIn = gcs.filter((s) => !isAside(s));
      const gapIn = gaps.filter((s) => !isAside(s));
      const sorted = [...client].sort((a, b) => a.ms - b.ms);
      const p99 = sorted[Math.floor(0.99 * sorted.length)]?.ms ?? 0;
      const slow = sorted.filter((r) => r.ms >= p99);
      const mid = sorted.slice(Math.floor(0.45 * sorted.length), Math.floor(0.55 * sorted.length));
      const parts = (set: ClientRecord[]) => {
        const sum = { ms: 0, pre: 0, read: 0, toChecks: 0, checks: 0, verify: 0, write: 0, answer: 0, back: 0, gc: 0, scav: 0, mc: 0, gap: 0, n: 0 };
        for (const r of set) {
          const s = server.get(r.seq);
          if (!s?.finish || !s.bodyAt || !s.queuedAt || !s.writeAt || !s.writtenAt) continue;
          if (checksOnWorker && (!s.checkAt || !s.checkedAt)) continue;
          const end = r.sentAt + r.ms;
          sum.n++;
          sum.ms += r.ms;
          sum.pre += s.start - r.sentAt;
          sum.read += s.bodyAt - s.start;
          if (checksOnWorker) {
            sum.toChecks += s.checkAt! - s.bodyAt;
            sum.checks += s.checkedAt! - s.checkAt!;
            sum.verify += s.writeAt - s.checkedAt!;
          } else sum.verify += s.writeAt - s.bodyAt;
          sum.write += s.writtenAt - s.writeAt;
          sum.answer += s.finish - s.writtenAt;
          sum.back += end - s.finish;
          sum.gc += overlap(gcIn, r.sentAt, end);
          sum.scav += overlap(gcIn, r.sentAt, end, 'scavenge');
          sum.mc += overlap(gcIn, r.sentAt, end, 'mark-compact');
          sum.gap += overlap(gapIn, r.sentAt, end);
        }
        const m = (x: number) => (x / Math.max(1, sum.n)).toFixed(1).padStart(5);
        // With the checks on their worker: the body is handed to it, its verdict comes back, the
        // main thread hands the row to the processor's insert (inbox worker), its id comes back.
        const middle = checksOnWorker
          ? `to the checks worker ${m(sum.toChecks)} + checks (there and back) ${m(sum.checks)} + to the insert ${m(sum.verify)} + insert (processor, there and back) ${m(sum.write)}`
          : `verify ${m(sum.verify)} + worker insert ${m(sum.write)}`;
        return `n ${String(sum.n).padStart(3)}: ${m(sum.ms)} ms = before the listener ${m(sum.pre)} + body ${m(sum.read)} + ${middle} + answer ${m(sum.answer)} + back ${m(sum.back)}; overlapping: GC ${m(sum.gc)} (scavenge ${m(sum.scav)}, mark-compact ${m(sum.mc)}), loop gaps > 3 ms ${m(sum.gap)}`;
      };
      const byKind = new Map<string, { n: number; ms: number; max: number }>();
      for (const s of gcIn) {
        const k = byKind.get(s.kind) ?? { n: 0, ms: 0, max: 0 };
        k.n++;
        k.ms += s.ms;
        k.max = Math.max(k.max, s.ms);
        byKind.set(s.kind, k);
      }
      const first = client.reduce((a, r) => Math.min(a, r.sentAt), Infinity);
      const last = client.reduce((a, r) => Math.max(a, r.sentAt + r.ms), 0);
      const gapsDuring = gapIn.filter((s) => s.start >= first && s.start <= last);
      const longGaps = [...gapsDuring].sort((a, b) => b.ms - a.ms).slice(0, 8);
      // The remote opens a new connection per request in flight at the start of each slice.
      const firstWave = shape.concurrency;
      const isFirst = (r: ClientRecord) => r.seq % shape.slice < firstWave;
      const q = (sorted: number[], at: number) => (sorted[Math.min(sorted.length - 1, Math.floor(at * sorted.length))] ?? 0).toFixed(1);
      const firstWaveMs = client.filter(isFirst).map((r) => r.ms).sort((a, b) => a - b);
      const restMs = client.filter((r) => !isFirst(r)).map((r) => r.ms).sort((a, b) => a - b);
      const slowBySlice = new Map<number, number>();
      for (const r of slow) slowBySlice.set(Math.floor(r.seq / 1000), (slowBySlice.get(Math.floor(r.seq / 1000)) ?? 0) + 1);
      return [
        `accept trace (BENCH_ACCEPT_TRACE): ${client.length} requests, p99 ${p99.toFixed(1)} ms; the slowest 1 % by 1,000-row slice: ${[...slowBySlice.entries()].sort((a, b) => a[0] - b[0]).map(([k, n]) => `${k}: ${n}`).join(', ')}`,
        `  slowest 1 %  ${parts(slow)}`,
        `  median 10 %  ${parts(mid)}`,
        `  main-thread GC while accepting (forced GCs set aside): ${[...byKind.entries()].map(([k, v]) => `${k} ${v.n}× total ${v.ms.toFixed(0)} ms, max ${v.max.toFixed(1)} ms`).join('; ')}`,
        `  documents loaded by the listener${checksOnWorker ? ' on the main thread (the checks worker loads its own, not seen here)' : ''}: ${loads.length}${loads.length ? `, ${loads.map((l) => l.ms).sort((a, b) => a - b).map((ms) => ms.toFixed(0)).join(' ')} ms, the last done at +${(Math.max(...loads.map((l) => l.start + l.ms)) - first).toFixed(0)} ms` : ''}`,
        `  new connections accepted (node:http takes one per event-loop turn): ${connections.length}; a slice's first ${firstWave} requests (one new connection each) took p50 ${q(firstWaveMs, 0.5)} / max ${q(firstWaveMs, 1)} ms, the others p99 ${q(restMs, 0.99)} ms`,
        `  loop gaps > 3 ms: ${gapsDuring.length}, total ${gapsDuring.reduce((a, s) => a + s.ms, 0).toFixed(0)} ms; longest: ${longGaps.map((s) => `${s.ms.toFixed(0)} ms (+${(s.start - first).toFixed(0)} ms, GC ${overlap(gcIn, s.start, s.start + s.ms).toFixed(0)})`).join(', ')}`,
      ];
    },
  };
}
