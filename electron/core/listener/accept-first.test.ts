import { describe, expect, it } from 'vitest';
import { createAcceptFirst, HOLD_MAX_MS } from './accept-first';

/** One turn of the event loop: resolves in the next turn's check phase. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('accept first, then work', () => {
  it('starts work at the end of the turn when no connection is arriving', async () => {
    const gate = createAcceptFirst();
    const started: string[] = [];
    const done = gate.run(async () => {
      started.push('work');
      return 42;
    });
    started.push('sync');
    expect(await done).toBe(42);
    expect(started).toEqual(['sync', 'work']);
  });

  it('holds work while each turn accepts a connection, then starts it all in arrival order', async () => {
    const gate = createAcceptFirst(() => 0); // the clock stands still: only turns count
    const started: number[] = [];
    gate.connection();
    const runs = [1, 2, 3].map((n) => gate.run(async () => void started.push(n)));
    for (let turn = 0; turn < 5; turn++) {
      await nextTurn();
      expect(started).toEqual([]);
      gate.connection(); // the next turn accepts another
    }
    await nextTurn(); // this turn accepted one: still held
    expect(started).toEqual([]);
    await nextTurn(); // a turn without a connection: released
    await Promise.all(runs);
    expect(started).toEqual([1, 2, 3]);
  });

  it('never holds work longer than HOLD_MAX_MS, however fast connections keep coming', async () => {
    let clock = 0;
    const gate = createAcceptFirst(() => clock);
    let started = false;
    gate.connection();
    const run = gate.run(async () => void (started = true));
    while (clock < HOLD_MAX_MS) {
      await nextTurn();
      expect(started).toBe(false);
      gate.connection();
      clock += 1;
    }
    await nextTurn();
    await run;
    expect(started).toBe(true);
  });

  it('passes on what the work throws or rejects with', async () => {
    const gate = createAcceptFirst();
    await expect(gate.run(() => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    await expect(
      gate.run(() => {
        throw new Error('thrown');
      }),
    ).rejects.toThrow('thrown');
    // The gate still works after a failure.
    await expect(gate.run(async () => 'next')).resolves.toBe('next');
  });
});
