// The delivery loop over `outgoing_activity`: one due-row query, one function per outcome
// (sent, retry later, give up), after microblog.pub's policy, made concurrent like its fork.
//
//  * Due = not sent, not errored, next_try <= now, and the OLDEST pending row of its recipient:
//    each recipient URL gets its rows strictly in order (Create before Update before Delete),
//    while different recipients run side by side — at most `concurrency` requests in all and
//    `perHost` per server, so a dead server holds two slots, never the queue. A request still
//    waiting after `slowAfterMs` stops counting against `concurrency` (up to `maxSlow` such):
//    fifty servers that never answer cannot fill every slot for the whole time limit while
//    healthy servers wait behind them.
//  * Offline (connectivity watch) the loop starts nothing and spends no try; coming online wakes
//    it at once, oldest first. A request that fails because the network went away mid-flight is
//    not counted either.
//  * Bookkeeping: last_try is written as the request leaves (store.ts claim: a request out may
//    have reached the peer, answer or not), and taken back if it never left (the HTTP client's
//    onSent never came: stopped first, refused, no such host); so last_try is when a request
//    of the row last left Tern. Then one UPDATE per answer: is_sent (or the retry
//    time, or is_errored) together with tries, last_try, last_status_code, last_response and
//    error. The answers of one turn of the event loop are written together, in one transaction,
//    before the queue is read again (so a row answered is never picked twice), and before
//    stop() and drain() return. A row is never half-recorded: stopping aborts requests still
//    waiting for an answer and leaves their rows due, no try counted (last_try says a request
//    went out); an answer once received is always recorded (stop() writes what is waiting at
//    once, before it awaits anything), so nothing acknowledged is sent twice. Only a crash of
//    the process within that turn could lose an answer, as it could before the single write it
//    replaced.
//  * Sleep: a laptop that slept finds every row whose retry time passed meanwhile due at once.
//    The loop notices the wake (the wall clock moved much further than the monotonic one, which
//    stands still while the machine sleeps — or the shell says so: resumed()), looks at the
//    network again, spreads the overdue rows (each recipient's next one) over the next minute with jitter instead of sending
//    them in one burst, and for a short while after waking counts no try for a failure without
//    an HTTP answer (Wi-Fi and DNS come back a few seconds after the lid opens): a retry's
//    backoff is not spent on the machine's own sleep.
//  * Rows whose recipient is an address (acct:, actor: — see addresses.ts) first go through a
//    resolution step (`deps.resolve`) that turns them into inbox URLs.
// The loop knows nothing of ActivityPub: what to POST comes from `deps.payload`.
import { createHash } from 'node:crypto';
import type { Sqlite } from '../../../db/client';
import { parseStoredDate, type OutgoingActivity } from '../../../db/schema';
import type { HttpClient } from '../net/http-client';
import { signedFetch } from '../net/signatures';
import { createTurnBudget, type TurnBudget } from './pace';
import type { ConnectivityWatch } from '../connectivity/watch';
import { hostOfRecipient, isAddress } from './addresses';
import { onDeliveriesQueued } from './queue';
import { MAX_TRIES, backoffMs, judgeError, judgeResponse, looksLikeLocalNetworkDown, type Verdict } from './policy';
import { createDeliveryStore, type Attempt, type Head, type Seen } from './store';

export type DeliveryPayload =
  | { kind: 'send'; body: string }
  /** A Webmention: a form POST of source and target, unsigned (W3C Webmention §3.1.3). */
  | { kind: 'form'; body: string }
  | { kind: 'cancel'; reason: string };
export type ResolveOutcome = { kind: 'resolved' } | { kind: 'retry'; reason: string } | { kind: 'gone'; reason: string };

export interface DeliveryLoopOptions {
  /** Requests in flight at once, in all. Default 8 (the core asks for 16). */
  concurrency?: number;
  /** Requests in flight at once to one server (host:port). Default 2. */
  perHost?: number;
  maxTries?: number;
  /** A request still waiting this long no longer takes one of the `concurrency` slots. Default 2 s. */
  slowAfterMs?: number;
  /** At most this many slow requests besides the `concurrency` ones. Default 8 × concurrency. */
  maxSlow?: number;
  /** Limit for one POST, answer included. Default 10 s. */
  requestTimeoutMs?: number;
  /** How long stop() lets requests in flight finish before aborting them. Default 5 s. */
  stopGraceMs?: number;
  /** Rows of a post wait this many tries of a pending `acct:` resolution (so the mention can
   * still be linked in what everyone receives) before going out without it. Default 3. */
  holdTries?: number;
  random?: () => number;
  /** A monotonic clock in ms (stands still while the machine sleeps). Default performance.now. */
  monotonic?: () => number;
  /** Overdue rows are spread over this long after a wake from sleep. Default 60 s. */
  wakeSpreadMs?: number;
  /** After a wake, failures without an HTTP answer spend no try for this long. Default 60 s. */
  wakeGraceMs?: number;
  /** Time one turn may spend starting and sending attempts before the rest wait for a later
   * turn. Default TURN_BUDGET_MS. Infinity: no pacing at all, for a loop on a thread of its own
   * (the delivery worker), where nothing else waits for the thread. */
  turnBudgetMs?: number;
}

/**
 * The loop's own work per turn of the event loop (pace.ts): starting attempts (each runs up to
 * its first wait: building and signing its request, a few hundred µs, more while the code is
 * cold) and sending the signed ones. Starting 64 in one go, and sending signatures as they came
 * back in bunches, held the thread for tens of ms while the app's timers and IPC answers waited.
 */
export const TURN_BUDGET_MS = 4;

export interface DeliveryLoopDeps {
  /** The queue's database (better-sqlite3: the loop's statements are prepared once). */
  sqlite: Sqlite;
  clock: () => Date;
  client: HttpClient;
  connectivity: Pick<ConnectivityWatch, 'isOnline' | 'onChange' | 'recheck'>;
  /** The key to sign with, or null while the local actor is not set up (nothing is sent). */
  signer: () => { keyId: URL; publishedKeyId?: string; privateKey: CryptoKey } | null;
  /** What to POST; may take a moment the first time (an LD signature), hence the promise. */
  payload: (row: OutgoingActivity) => DeliveryPayload | Promise<DeliveryPayload>;
  resolve: (row: OutgoingActivity, signal: AbortSignal) => Promise<ResolveOutcome>;
  /** The row's recipient answered 410 Gone (its row is given up): looks at what that says of the
   * actors behind it (federation/actions/gone.ts). Awaited within the row's task. */
  gone?: (row: OutgoingActivity) => Promise<void>;
  log?: (line: string) => void;
  /** Called whenever a row starts or stops being in flight (inFlight() changed). */
  onInFlightChange?: () => void;
  options?: DeliveryLoopOptions;
}

export interface DeliveryLoop {
  start(): void;
  /** Stops starting requests; lets those in flight finish for `graceMs`, then aborts the rest
   * (their rows stay due). Resolves when nothing is in flight. */
  stop(options?: { graceMs?: number }): Promise<void>;
  /** Something changed (rows queued, retried, settings): look for due rows now. */
  wake(): void;
  /** Resolves once nothing is in flight and nothing is due (or the loop cannot send now). */
  drain(): Promise<void>;
  /** Ids of the rows being sent right now ("sending" in the UI). */
  inFlight(): ReadonlySet<number>;
  /** The machine woke from sleep (the shell's resume event); also detected by the loop itself. */
  resumed(): void;
  readonly running: boolean;
}

interface Task {
  row: Head;
  host: string;
  controller: AbortController;
  done: Promise<void>;
  /** Waiting longer than slowAfterMs: not counted against `concurrency` any more. */
  slow: boolean;
}

/** The budget of a loop with the thread to itself: every turn has time. */
const unpaced: TurnBudget = { hasTime: () => true, wait: () => Promise.resolve() };

const RESPONSE_CHARS = 500;
const DELIVERY_HEADERS = { 'content-type': 'application/activity+json', accept: 'application/activity+json, application/ld+json, */*;q=0.1' };
const encoder = new TextEncoder();
const IDLE_RECHECK_MS = 5_000;
/** The first wait after claims could not be written, and the longest (it doubles meanwhile). */
const CLAIM_RETRY_FIRST_MS = 1_000;
const CLAIM_RETRY_MAX_MS = 30_000;
/** The wall clock ran this much further than the monotonic one between two looks: a sleep. */
const SLEEP_GAP_MS = 60_000;

export function createDeliveryLoop(deps: DeliveryLoopDeps): DeliveryLoop {
  const o = deps.options ?? {};
  const concurrency = o.concurrency ?? 8;
  const slowAfterMs = o.slowAfterMs ?? 2_000;
  const maxSlow = o.maxSlow ?? concurrency * 8;
  const perHost = o.perHost ?? 2;
  const maxTries = o.maxTries ?? MAX_TRIES;
  const requestTimeoutMs = o.requestTimeoutMs ?? 10_000;
  const holdTries = o.holdTries ?? 3;
  const random = o.random ?? Math.random;
  const log = deps.log ?? (() => {});
  const { clock } = deps;
  const monotonic = o.monotonic ?? (() => performance.now());
  const turnBudgetMs = o.turnBudgetMs ?? TURN_BUDGET_MS;
  const turn = turnBudgetMs === Infinity ? unpaced : createTurnBudget(turnBudgetMs);
  const wakeSpreadMs = o.wakeSpreadMs ?? 60_000;
  const wakeGraceMs = o.wakeGraceMs ?? 60_000;
  // The last look at both clocks (sleep detection), and until when (monotonic) a try is not
  // spent on a failure without an answer.
  let lastLook: { wall: number; mono: number } | null = null;
  let graceUntil = -Infinity;

  let running = false;
  let pumpQueued = false;
  // Due rows left for a later turn by the turn budget (fill() stopped on it), and the start
  // that turn grants them.
  let deferred = false;
  let granted = false;
  let timer: NodeJS.Timeout | null = null;
  /** Every pending row has an id >= floor (rows below are sent or errored). */
  let floor = 0;
  const tasks = new Map<number, Task>();
  let slowCount = 0;
  /** Whether another request may start: `concurrency` counts only the requests not slow yet. */
  const hasRoom = () => tasks.size - slowCount < concurrency && tasks.size < concurrency + maxSlow;
  const busyRecipients = new Set<string>();
  const perHostCount = new Map<string, number>();
  let idleWaiters: (() => void)[] = [];
  let unsubscribe: (() => void)[] = [];
  // Due heads from the last query, not started yet. Taking the next one from here after each
  // answer saves re-running the query (which sorts the whole pending queue) for every delivery;
  // the query runs again when these cannot fill the free slots, and wake() (rows queued,
  // retried, resolved elsewhere) throws them away.
  let ready: Head[] = [];
  /** Every head of `ready` before this index is taken. */
  let readyFrom = 0;
  let held = new Set<number>();
  let nextAt: number | null = null;

  const store = createDeliveryStore(deps.sqlite);
  // A post's payload object is the same for all its recipients (createDeliveryPayloads): its
  // bytes and their digest are computed once, not once per inbox. Never written to after.
  const encodings = new WeakMap<DeliveryPayload, { bytes: ArrayBuffer; sha256: string }>();
  function encoded(payload: Extract<DeliveryPayload, { kind: 'send' }>): { bytes: ArrayBuffer; sha256: string } {
    let e = encodings.get(payload);
    if (e === undefined) {
      const bytes = encoder.encode(payload.body);
      e = { bytes: bytes.buffer, sha256: createHash('sha256').update(bytes).digest('base64') };
      encodings.set(payload, e);
    }
    return e;
  }

  // ---- one function per outcome -----------------------------------------------------------
  /** What an attempt read of its row (a row retried since keeps the author's Retry now). */
  const seenOf = (row: OutgoingActivity): Seen => ({ tries: row.tries, nextTry: row.nextTry });
  /** The error of a failed attempt whose row was retried while it was out. */
  const retriedMeanwhile = (reason: string) => `${reason} (That try began before Retry now; trying again now.)`;

  function retryLater(row: OutgoingActivity, attempt: Attempt, verdict: { at: Date; reason: string }): void {
    const tries = row.tries + 1;
    if (tries >= maxTries) return giveUp(row, attempt, `${verdict.reason} Tern gave up after ${tries} tries.`);
    store.retryLater(row.id, attempt, seenOf(row), verdict.at, `${verdict.reason} Next try at ${verdict.at.toISOString()}.`, retriedMeanwhile(verdict.reason));
  }

  /** A failure right after a wake: due again in a few seconds, no try counted. */
  function retrySoon(row: OutgoingActivity, error: unknown): void {
    const at = new Date(clock().getTime() + 2_000 + Math.round(random() * 8_000));
    const reason = `The network was not back yet after the computer woke (${(error as Error)?.message ?? String(error)})`;
    store.postpone(row.id, seenOf(row), at, `${reason}; trying again at ${at.toISOString()}.`, retriedMeanwhile(`${reason}.`));
  }

  /** The machine slept: look at the network again, and spread what fell due meanwhile. */
  function woke(now: number): void {
    graceUntil = monotonic() + wakeGraceMs;
    deps.connectivity.recheck();
    // Rows in flight are left to their attempt's outcome (a next_try moved under it reads as the
    // author's Retry now).
    const spread = store.spreadOverdue(now, wakeSpreadMs, random, undefined, new Set(tasks.keys()));
    log(`the computer woke from sleep: ${spread} overdue deliveries spread over the next ${Math.round(wakeSpreadMs / 1000)} s`);
    floor = 0;
    ready = [];
    readyFrom = 0;
  }

  function detectSleep(now: number): void {
    const mono = monotonic();
    const ahead = lastLook === null ? 0 : now - lastLook.wall - (mono - lastLook.mono);
    if (ahead > SLEEP_GAP_MS) woke(now);
    else if (ahead < -SLEEP_GAP_MS) setBack(now, -ahead);
    lastLook = { wall: now, mono };
  }

  /** The wall clock was set back (an NTP step, the author fixing a wrong date): the retry
   * times were written by the old clock, so each is moved back by the step. */
  function setBack(now: number, backMs: number): void {
    const moved = store.pullBack(now, backMs, new Set(tasks.keys()));
    log(`the clock was set back ${Math.round(backMs / 1000)} s: ${moved} waiting deliveries moved back with it`);
    ready = [];
    readyFrom = 0;
  }

  function giveUp(row: OutgoingActivity, attempt: Attempt | null, reason: string, wholeRecipient = false): void {
    store.giveUp(row.id, attempt === null ? null : { attempt, seen: seenOf(row), retriedError: retriedMeanwhile(reason) }, reason);
    // An address that cannot be resolved fails every row waiting for it, not one at a time.
    if (wholeRecipient) store.giveUpRecipient(row.recipient, reason);
    log(`delivery #${row.id} to ${row.recipient} given up: ${reason}`);
  }

  function apply(row: OutgoingActivity, attempt: Attempt, verdict: Verdict): void {
    if (verdict.kind === 'sent') store.markSent(row.id, attempt);
    else if (verdict.kind === 'retry') retryLater(row, attempt, verdict);
    else giveUp(row, attempt, verdict.reason);
  }

  // Claims asked for in one turn of the event loop are written together (a fan-out starts up to
  // `concurrency` attempts at once: one commit, and at most one busy wait, for them all).
  let claims: { id: number; at: Date; signal: AbortSignal; done: (claimed: boolean) => void }[] = [];
  // After claims could not be written (a full disk, the file held past the busy timeout), no
  // attempt starts until then (monotonic): its row would be read, its payload built and refused
  // again at once, round after round. The wait doubles while the writes keep failing.
  let claimsBlockedUntil = 0;
  let claimRetryMs = CLAIM_RETRY_FIRST_MS;
  function claim(row: OutgoingActivity, at: Date, signal: AbortSignal): Promise<boolean> {
    return new Promise((done) => {
      if (claims.length === 0) setImmediate(writeClaims);
      claims.push({ id: row.id, at, signal, done });
    });
  }
  function writeClaims(): void {
    // A task stopped meanwhile sends nothing, so its row gets no try on record.
    const batch = claims.filter((c) => !c.signal.aborted);
    for (const c of claims) if (c.signal.aborted) c.done(false);
    claims = [];
    if (batch.length === 0) return;
    let claimed: boolean[];
    try {
      claimed = store.claim(batch);
      claimRetryMs = CLAIM_RETRY_FIRST_MS;
    } catch (error) {
      // Not on record, so not sent: the rows stay due and are tried again, after a wait.
      claimsBlockedUntil = monotonic() + claimRetryMs;
      log(`${batch.length} deliveries not sent now, tried again in ${claimRetryMs / 1000} s: ${(error as Error)?.message ?? String(error)}`);
      claimRetryMs = Math.min(claimRetryMs * 2, CLAIM_RETRY_MAX_MS);
      claimed = batch.map(() => false);
    }
    batch.forEach((c, i) => c.done(claimed[i]!));
  }

  // ---- one attempt ------------------------------------------------------------------------
  async function attempt(head: Head, task: Task): Promise<void> {
    const row = store.pendingRow(head.id);
    // Sent or given up meanwhile, or re-addressed by a resolution: look again instead.
    if (!row || row.recipient !== head.recipient) return;
    const host = task.host;
    const signal = task.controller.signal;
    const at = clock();
    if (isAddress(row.recipient)) {
      let outcome: ResolveOutcome;
      try {
        outcome = await deps.resolve(row, signal);
      } catch (error) {
        outcome = { kind: 'retry', reason: `Could not look up ${host}: ${(error as Error).message}` };
      }
      if (outcome.kind === 'resolved') {
        ready = []; // rows joined other queues: read the order afresh
        readyFrom = 0;
      }
      if (signal.aborted || outcome.kind === 'resolved') return;
      if (!deps.connectivity.isOnline()) return;
      // A look-up, not a delivery: nothing of the row left, so last_try stays as it was.
      const attempt = { at: row.lastTry, status: null, body: null };
      if (outcome.kind === 'gone') giveUp(row, attempt, outcome.reason, true);
      else retryLater(row, attempt, { at: new Date(clock().getTime() + backoffMs(row.tries + 1, random)), reason: outcome.reason });
      return;
    }
    const signer = deps.signer();
    if (!signer) return;
    const payload = await deps.payload(row);
    if (payload.kind === 'cancel') return giveUp(row, null, payload.reason);
    // The try is on record before the request leaves: one whose answer is never recorded
    // (stopped, the network gone mid-flight) may still have reached the peer, and a Delete of
    // the post must then go there too (withheld.ts mayHaveReached). A row cancelled since it
    // was read (by the main thread, or a removed follower) is not sent.
    if (signal.aborted || !(await claim(row, at, signal))) return;
    // Stopped once claimed: nothing left, so the claim is taken back.
    if (signal.aborted) return store.unclaim(row.id, at, row.lastTry);
    // The request's own signal: stopping (the task's) or the time limit, answer included. One
    // timer per attempt, cleared when it ends (AbortSignal.timeout would keep each one alive
    // for the whole limit, a thousand of them after a fan-out).
    const request = new AbortController();
    const stopRequest = () => request.abort(signal.reason);
    signal.addEventListener('abort', stopRequest, { once: true });
    const timer = setTimeout(() => request.abort(new DOMException(`No answer within ${requestTimeoutMs} ms`, 'TimeoutError')), requestTimeoutMs);
    try {
      await send(row, payload, signer, host, at, request.signal, signal);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', stopRequest);
    }
  }

  async function send(
    row: OutgoingActivity,
    payload: Exclude<DeliveryPayload, { kind: 'cancel' }>,
    signer: { keyId: URL; publishedKeyId?: string; privateKey: CryptoKey },
    host: string,
    at: Date,
    requestSignal: AbortSignal,
    signal: AbortSignal,
  ): Promise<void> {
    let response: Response;
    // Whether the request left in full (the client's onSent): until then the peer cannot have it.
    let left = false;
    const onSent = () => {
      left = true;
    };
    try {
      if (payload.kind === 'form') {
        // A webmention: an unsigned form POST.
        response = await deps.client.fetch(row.recipient, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html, application/json, */*;q=0.1' },
          rawBody: encoder.encode(payload.body),
          signal: requestSignal,
          onSent,
        });
      } else {
        // The body goes to signedFetch as bytes beside the request's parts: no stream copies.
        const request = { url: row.recipient, method: 'POST', headers: DELIVERY_HEADERS };
        const { bytes, sha256 } = encoded(payload);
        response = await signedFetch(deps.client, request, {
          ...signer,
          body: bytes,
          bodySha256: sha256,
          signal: requestSignal,
          onSent,
          ...(turn === unpaced ? {} : { beforeSend: turn.wait }),
        });
      }
    } catch (error) {
      // Stopped, or the machine went offline meanwhile: the row stays due, no try spent. A
      // request that never left takes its claim back (no last try); one that left says why
      // its last try is not counted.
      if (signal.aborted || !deps.connectivity.isOnline()) {
        if (!left) return store.unclaim(row.id, at, row.lastTry);
        const why = signal.aborted ? 'Tern stopped' : 'the network went away';
        return store.unanswered(row.id, at, `${host} had not answered when ${why}; the delivery may have arrived. No try counted: it goes again.`);
      }
      if (looksLikeLocalNetworkDown(error)) deps.connectivity.recheck();
      // Just woke: the network may not be back yet. Try again shortly, no try spent.
      if (monotonic() < graceUntil) {
        if (!left) store.unclaim(row.id, at, row.lastTry);
        return retrySoon(row, error);
      }
      // A try, counted; but one whose request never left (refused, no such host) is no last try.
      apply(row, { at: left ? at : row.lastTry, status: null, body: null }, judgeError({ error, host, tries: row.tries + 1, now: clock(), random }));
      return;
    }
    // From here on the answer is known and is recorded whatever happens (stop included).
    const body = await readSnippet(response);
    const verdict = judgeResponse({ status: response.status, retryAfter: response.headers.get('retry-after'), host, tries: row.tries + 1, now: clock(), random });
    apply(row, { at, status: response.status, body }, verdict);
    if (response.status === 410 && deps.gone) {
      await deps.gone(row).catch((error: unknown) => log(`delivery #${row.id}: after its 410: ${(error as Error)?.message ?? String(error)}`));
    }
  }

  // ---- scheduling -------------------------------------------------------------------------
  function startTask(head: Head): void {
    const host = hostOf(head);
    const controller = new AbortController();
    const task = { row: head, host, controller, slow: false } as Task;
    tasks.set(head.id, task);
    const slowTimer = setTimeout(() => {
      task.slow = true;
      slowCount++;
      schedulePump();
    }, slowAfterMs);
    slowTimer.unref();
    busyRecipients.add(head.recipient);
    perHostCount.set(host, (perHostCount.get(host) ?? 0) + 1);
    deps.onInFlightChange?.();
    task.done = attempt(head, task)
      .catch((error: unknown) => log(`delivery #${head.id} failed inside Tern: ${(error as Error)?.stack ?? String(error)}`))
      .finally(() => {
        clearTimeout(slowTimer);
        if (task.slow) slowCount--;
        tasks.delete(head.id);
        busyRecipients.delete(head.recipient);
        const n = (perHostCount.get(host) ?? 1) - 1;
        if (n <= 0) perHostCount.delete(host);
        else perHostCount.set(host, n);
        deps.onInFlightChange?.();
        schedulePump();
      });
  }

  /** Writes the outcomes decided since the last time (one transaction). */
  function record(): void {
    try {
      store.flush();
    } catch (error) {
      log(`delivery loop: ${(error as Error)?.message ?? String(error)}`);
    }
  }

  function settleIdle(): void {
    if (tasks.size > 0 || deferred) return;
    record();
    const waiters = idleWaiters;
    idleWaiters = [];
    waiters.forEach((w) => w());
  }

  function query(now: number): void {
    floor = store.floor(floor);
    held = store.heldPosts(floor, holdTries);
    ready = [];
    readyFrom = 0;
    nextAt = null;
    for (const head of store.heads(floor, Math.max(200, concurrency * 25))) {
      const due = head.nextTry === null ? now : parseStoredDate(head.nextTry).getTime();
      if (due > now) {
        nextAt = due; // ordered by next_try: everything after is later still
        break;
      }
      ready.push(head);
    }
  }

  /** A head's server, parsed once: fill() looks at every ready head after each answer. */
  const hostOf = (head: Head): string => (head.host ??= hostOfRecipient(head.recipient));

  /** Starts what it can from `ready`, in its order, while the turn has time; returns true when
   * it stopped on the turn's budget (more could start: a later turn goes on). Started heads are
   * marked, not removed, and the scan stops once the slots are full: after each answer it reads
   * past the heads of the servers already busy, not through the whole list (1,600 heads at 64
   * in flight), and copies nothing. */
  function fill(): boolean {
    let cut = false;
    for (let i = readyFrom; i < ready.length && hasRoom(); i++) {
      const head = ready[i]!;
      if (head.taken === true) continue;
      // In flight since an earlier query: its answer decides what comes next for the recipient.
      if (tasks.has(head.id)) {
        head.taken = true;
        continue;
      }
      const host = hostOf(head);
      const blocked =
        busyRecipients.has(head.recipient) ||
        (perHostCount.get(host) ?? 0) >= perHost ||
        (head.outboxObjectId !== null && held.has(head.outboxObjectId) && !head.recipient.startsWith('acct:'));
      if (blocked) continue;
      // The turn that let a deferred fill go gives it one start without asking again (with a
      // small budget, asking could say no every time).
      if (granted) granted = false;
      else if (!turn.hasTime()) {
        cut = true;
        break;
      }
      head.taken = true;
      startTask(head);
    }
    while (readyFrom < ready.length && ready[readyFrom]!.taken === true) readyFrom++;
    return cut;
  }

  function pump(): void {
    pumpQueued = false;
    if (timer) clearTimeout(timer);
    timer = null;
    record(); // before the queue is read: a row answered is not due any more
    if (!running) return settleIdle();
    const now = clock().getTime();
    try {
      // Inside: a wake's spreading writes, and a write can fail (a lock held too long, a full
      // disk); the loop logs it and goes on, as for its other writes.
      detectSleep(now);
      if (!deps.connectivity.isOnline() || deps.signer() === null) return settleIdle();
      // Answers not written yet (the other connection held the file past the busy timeout)
      // leave their rows looking due: nothing starts until they are, or those would go twice.
      // Nor while claims cannot be written (above).
      const unwritten = store.unwritten > 0 || monotonic() < claimsBlockedUntil;
      let cut = !unwritten && fill();
      if (!unwritten && !cut && hasRoom()) {
        query(now);
        cut = fill();
      }
      // Out of time for this turn: the rest start in a later one, after the thread's timers
      // and I/O have had theirs. Meanwhile the loop is not idle (drain waits for it).
      if (cut && !deferred) {
        deferred = true;
        void turn.wait().then(() => {
          deferred = false;
          granted = true;
          if (running) schedulePump();
          else settleIdle();
        });
      }
    } catch (error) {
      log(`delivery loop: ${(error as Error)?.message ?? String(error)}`);
    }
    // Re-check at the next due time, and at least every 5 s (rows written by another process,
    // clock changes, held rows): with the floor, an idle look costs two index probes.
    let wait = nextAt === null ? IDLE_RECHECK_MS : Math.min(Math.max(nextAt - now, 0), IDLE_RECHECK_MS);
    const blockedFor = claimsBlockedUntil - monotonic();
    if (blockedFor > 0) wait = Math.max(wait, Math.min(blockedFor, IDLE_RECHECK_MS));
    timer = setTimeout(pump, wait);
    timer.unref();
    settleIdle();
  }

  function schedulePump(): void {
    if (pumpQueued || !running) return;
    pumpQueued = true;
    setImmediate(pump);
  }

  function wake(): void {
    if (!running) return;
    floor = 0; // rows may have become pending again (retry now), below the old floor
    ready = [];
    readyFrom = 0;
    schedulePump();
  }

  return {
    get running() {
      return running;
    },
    start() {
      if (running) return;
      running = true;
      floor = 0;
      // Nothing is in flight yet: claims left without an outcome were ended with Tern.
      try {
        const orphaned = store.explainOrphanedClaims();
        if (orphaned > 0) log(`delivery: ${orphaned} request(s) were out when Tern last stopped; they go again`);
      } catch (error) {
        log(`delivery: could not mark requests left out when Tern stopped: ${error instanceof Error ? error.message : String(error)}`);
      }
      unsubscribe = [
        deps.connectivity.onChange((state) => {
          if (state.online) wake();
        }),
        // Rows queued anywhere (this core or, in tests, another one: a spurious look is harmless).
        onDeliveriesQueued(() => wake()),
      ];
      schedulePump();
    },
    async stop(options = {}) {
      running = false;
      // Answers already received are written now, before anything is awaited: a caller that
      // closes the database right after calling stop() (quitting) loses none of them.
      record();
      unsubscribe.forEach((u) => u());
      unsubscribe = [];
      if (timer) clearTimeout(timer);
      timer = null;
      const grace = options.graceMs ?? o.stopGraceMs ?? 5_000;
      const all = () => Promise.allSettled([...tasks.values()].map((t) => t.done));
      if (tasks.size > 0 && grace > 0) {
        let timeout: NodeJS.Timeout | undefined;
        await Promise.race([all(), new Promise<void>((r) => (timeout = setTimeout(r, grace)))]);
        clearTimeout(timeout);
      }
      for (const t of tasks.values()) t.controller.abort(new Error('Tern is stopping'));
      await all();
      record();
      settleIdle();
    },
    wake,
    drain() {
      if (!running || !deps.connectivity.isOnline()) return Promise.resolve();
      return new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        wake();
      });
    },
    inFlight: () => new Set(tasks.keys()),
    resumed() {
      record();
      try {
        woke(clock().getTime());
      } catch (error) {
        log(`delivery loop: ${(error as Error)?.message ?? String(error)}`);
      }
      lastLook = { wall: clock().getTime(), mono: monotonic() };
      schedulePump();
    },
  };
}

/** The start of a response body for `last_response`: at most 500 characters, read for at most
 * 2 s, never failing (the status is what matters and is already known). */
async function readSnippet(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const timer = setTimeout(() => void reader.cancel().catch(() => {}), 2_000);
  try {
    while (size < RESPONSE_CHARS * 4) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // a body cut short: keep what arrived
  } finally {
    clearTimeout(timer);
    void reader.cancel().catch(() => {});
  }
  const text = new TextDecoder().decode(Buffer.concat(chunks));
  return text.length > RESPONSE_CHARS ? `${text.slice(0, RESPONSE_CHARS - 1)}…` : text;
}
