// Accept first, then work. node:http takes one new connection per turn of the event loop
// (libuv accepts a single connection each time epoll reports the listening socket —
// libuv/libuv#3696; strace shows one accept4 per epoll_pwait under Node 24), and while the
// listener is busy a turn is milliseconds of verifying and answering. A burst of new connections
// (many servers delivering at once, a peer opening its pool) then waits in the kernel's queue:
// in the bench, 32 connections opened at once were taken one every 2–3 ms over ~70 ms, and
// those requests (30–130 ms) were the whole of the accept p99.
// So inbox work ready to start waits while connections are arriving: in each turn that accepted
// a connection the work is held to the next turn (an empty turn takes microseconds, so the
// kernel's queue drains at once); in a turn without one, or after HOLD_MAX_MS, everything held
// starts, in arrival order. Work already under way (waiting for a key or the thread pool) is not
// held. With connections kept alive, work starts at the end of the turn that read it.

/** Work is never held longer than this, however fast connections keep arriving. */
export const HOLD_MAX_MS = 10;

export interface AcceptFirst {
  /** A connection was accepted (node:http's 'connection' event). */
  connection(): void;
  /** Runs `work` now, or at the end of the burst of connections under way. */
  run<T>(work: () => Promise<T>): Promise<T>;
}

export function createAcceptFirst(now: () => number = () => performance.now()): AcceptFirst {
  const held: Array<() => void> = [];
  let arrived = false;
  let heldSince = 0;
  let scheduled = false;

  const release = () => {
    for (const start of held.splice(0)) start();
  };
  // Once per turn (the check phase, after the turn's I/O) while work is held.
  const decide = () => {
    scheduled = false;
    if (held.length === 0) return;
    if (arrived && now() - heldSince < HOLD_MAX_MS) {
      arrived = false;
      schedule();
      return;
    }
    arrived = false;
    release();
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(decide);
  };

  return {
    connection() {
      arrived = true;
    },
    run(work) {
      return new Promise((resolve, reject) => {
        if (held.length === 0) heldSince = now();
        held.push(() => {
          try {
            work().then(resolve, reject);
          } catch (error) {
            reject(error);
          }
        });
        schedule();
      });
    },
  };
}
