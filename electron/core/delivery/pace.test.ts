import { describe, expect, it } from 'vitest';
import { createTurnBudget } from './pace';

const nextTimerTurn = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('createTurnBudget', () => {
  it('says yes to the first ask of a turn, then while the turn is under budget; a later turn starts afresh', async () => {
    let t = 1_000;
    const turn = createTurnBudget(4, () => t);
    expect(turn.hasTime()).toBe(true);
    t += 3;
    expect(turn.hasTime()).toBe(true);
    t += 1;
    expect(turn.hasTime()).toBe(false);
    await nextTimerTurn();
    expect(turn.hasTime()).toBe(true);
    // A budget of 0 still lets the turn's first piece of work run: no turn does nothing.
    const none = createTurnBudget(0, () => t);
    expect(none.hasTime()).toBe(true);
    expect(none.hasTime()).toBe(false);
  });

  it('lets waiters go one per macrotask, first come first served, and no more per turn than the budget allows', async () => {
    let t = 0;
    // Turns and macrotasks run when the test says (one queue each).
    const timers: (() => void)[] = [];
    const macrotasks: (() => void)[] = [];
    const turn = createTurnBudget(4, () => t, { timer: (run) => timers.push(run), macrotask: (run) => macrotasks.push(run) });
    const ran: string[] = [];
    const microtasks = async () => {
      for (let i = 0; i < 5; i++) await Promise.resolve();
    };
    /** Runs every queued macrotask (and what each lets go) until none is left. */
    const macrotasksDone = async () => {
      while (macrotasks.length > 0) {
        macrotasks.shift()!();
        await microtasks();
      }
    };
    const nextTurn = async () => {
      expect(timers).toHaveLength(1);
      timers.shift()!();
      await microtasks();
      await macrotasksDone();
    };
    // Four callbacks of one turn (as signatures coming back together); each takes 5 ms of the
    // clock once it goes on, more than the budget: one goes per turn.
    for (const name of ['a', 'b', 'c', 'd']) {
      void turn.wait().then(() => {
        ran.push(name);
        t += 5;
      });
      await microtasks();
    }
    expect(ran).toEqual(['a']);
    await nextTurn();
    expect(ran).toEqual(['a', 'b']);
    await nextTurn();
    expect(ran).toEqual(['a', 'b', 'c']);
    await nextTurn();
    expect(ran).toEqual(['a', 'b', 'c', 'd']);
    // Work of 1 ms each: four go in one turn (at 0, 1, 2, 3 ms of it), the fifth waits.
    for (const name of ['e', 'f', 'g', 'h', 'i']) {
      void turn.wait().then(() => {
        ran.push(name);
        t += 1;
      });
    }
    await nextTurn();
    expect(ran.slice(4)).toEqual(['e', 'f', 'g', 'h']);
    await nextTurn();
    expect(ran.slice(4)).toEqual(['e', 'f', 'g', 'h', 'i']);
  });

  it('lets several go in one turn while each leaves the turn under budget', async () => {
    let t = 0;
    const turn = createTurnBudget(4, () => t);
    const ran: string[] = [];
    t = 10; // the first ask starts the turn at 10
    expect(turn.hasTime()).toBe(true);
    t = 20; // the turn is spent: everyone waits
    const all = Promise.all(['a', 'b', 'c'].map((name) => turn.wait().then(() => ran.push(name))));
    expect(ran).toEqual([]);
    await all; // a later turn: each piece takes no clock time, so all three go in it
    expect(ran).toEqual(['a', 'b', 'c']);
  });
});
