import { describe, expect, it } from 'vitest';
import { createShutdown, QUIT_GRACE_MS } from './shutdown';

function parts(options: { deliveryFails?: boolean } = {}) {
  const events: string[] = [];
  let finishDelivery: () => void = () => {};
  const rig = {
    events,
    finishDelivery: () => finishDelivery(),
    parts: {
      delivery: {
        stop: (o?: { graceMs?: number }) => {
          events.push(`delivery.stop(${o?.graceMs})`);
          return new Promise<void>((resolve, reject) => {
            finishDelivery = () => (options.deliveryFails ? reject(new Error('boom')) : resolve());
          });
        },
      },
      inbox: { stop: async () => void events.push('inbox.stop') },
      listener: { stop: async () => void events.push('listener.stop') },
      beforeClose: () => void events.push('beforeClose'),
      close: () => void events.push('close'),
      log: (line: string) => void events.push(`log ${line}`),
    },
  };
  return rig;
}

describe('quitting', () => {
  it('the database closes only after the delivery in flight has finished (or its grace ran out)', async () => {
    const rig = parts();
    const quit = createShutdown(rig.parts);
    const done = quit();
    await Promise.resolve();
    expect(rig.events).toEqual([`delivery.stop(${QUIT_GRACE_MS})`, 'inbox.stop', 'listener.stop']);
    rig.finishDelivery();
    await done;
    expect(rig.events.slice(-2)).toEqual(['beforeClose', 'close']);
  });

  it('background writers (link previews) are stopped, their writes done, before the database closes', async () => {
    const rig = parts();
    let finishPreviews = () => {};
    const previews = { stop: () => new Promise<void>((resolve) => (finishPreviews = () => (rig.events.push('previews.stopped'), resolve()))) };
    const done = createShutdown({ ...rig.parts, others: [previews] })();
    rig.finishDelivery();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(rig.events).not.toContain('close');
    finishPreviews();
    await done;
    expect(rig.events.slice(-3)).toEqual(['previews.stopped', 'beforeClose', 'close']);
  });

  it('runs once however many times Quit is asked', async () => {
    const rig = parts();
    const quit = createShutdown(rig.parts, 10);
    const a = quit();
    const b = quit();
    expect(a).toBe(b);
    rig.finishDelivery();
    await Promise.all([a, b]);
    expect(rig.events.filter((e) => e === 'close')).toHaveLength(1);
    expect(rig.events[0]).toBe('delivery.stop(10)');
  });

  it('a loop that fails to stop is logged and the database still closes', async () => {
    const rig = parts({ deliveryFails: true });
    const done = createShutdown(rig.parts)();
    rig.finishDelivery();
    await done;
    expect(rig.events).toContain('log stopping: Error: boom');
    expect(rig.events.at(-1)).toBe('close');
  });
});
