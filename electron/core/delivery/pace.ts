// A time budget per turn for the delivery loop's work on the app's thread. A fan-out keeps 64
// requests going: their signatures come back from the thread pool and their answers from the
// network in bunches, and each one's next step (building the request, sending it; starting the
// next attempt) is a few hundred µs. Run as they came, one turn of the event loop did tens of
// ms of them, and the app's timers and IPC answers waited that long.
//
// A turn here runs from one of the budget's timers to the next (a timer fires after the
// thread's other due timers, and ≥ 1 ms later). Work that asks while its turn has time left
// goes on at once; the rest waits, first come first served, and is let go one piece per
// macrotask in later turns: each piece asks only after the one before has done its part, so a
// turn never lets more go than its budget, however many were waiting.

export interface TurnBudget {
  /** Whether work may still run in this turn (the first ask of a turn is always yes). */
  hasTime(): boolean;
  /** Resolves at once when nothing waits and the turn has time left; else in a later turn, in
   * the order asked. */
  wait(): Promise<void>;
}

/** How the budget gets later turns: a timer (a new turn) and a macrotask (the next waiter). */
export interface TurnScheduler {
  timer(run: () => void): void;
  macrotask(run: () => void): void;
}

const nodeScheduler: TurnScheduler = {
  timer: (run) => setTimeout(run, 0),
  macrotask: (run) => setImmediate(run),
};

export function createTurnBudget(budgetMs: number, now: () => number = () => performance.now(), scheduler: TurnScheduler = nodeScheduler): TurnBudget {
  let turnStart = -1;
  const waiting: (() => void)[] = [];
  let timerSet = false;
  let releasing = false;

  const schedule = () => {
    if (timerSet) return;
    timerSet = true;
    scheduler.timer(() => {
      timerSet = false;
      turnStart = -1;
      release();
    });
  };
  const hasTime = () => {
    const t = now();
    if (turnStart >= 0) return t - turnStart < budgetMs;
    turnStart = t;
    schedule();
    return true;
  };
  // Lets the first waiter go; the next one asks in the next macrotask, after the first's work.
  const release = () => {
    releasing = false;
    if (waiting.length === 0) return;
    if (!hasTime()) return schedule();
    waiting.shift()!();
    if (waiting.length > 0) {
      releasing = true;
      scheduler.macrotask(release);
    }
  };

  return {
    hasTime,
    wait() {
      if (waiting.length === 0 && hasTime()) return Promise.resolve();
      return new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (!releasing) schedule();
      });
    },
  };
}
