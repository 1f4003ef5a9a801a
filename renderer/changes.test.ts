// How the window follows Tern's change hints: under Electron through the preload's bridge,
// headless through one shared event stream that is opened again when it breaks. The page's
// reading of the stream is checked here against streams written by hand (split mid-line, CRLF,
// junk); the real stream, from the real server, in e2e/live.spec.ts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChangeKind } from '../electron/core/ipc/changes-contract';
import { kindsOfEvent, knownKinds, onChanges, RETRY_FIRST_MS } from './changes';
import { rememberToken } from './headlessToken';

afterEach(() => vi.unstubAllGlobals());

function tabStorage(): void {
  const store = new Map<string, string>();
  vi.stubGlobal('sessionStorage', {
    getItem: (key: string) => store.get(key) ?? null,
    setItem: (key: string, value: string) => void store.set(key, value),
    removeItem: (key: string) => void store.delete(key),
  });
}

describe('reading a hint', () => {
  it('takes the kinds Tern names and nothing else', () => {
    expect(kindsOfEvent('event: changed\ndata: ["timeline","notifications"]')).toEqual(['timeline', 'notifications']);
    expect(kindsOfEvent('data: ["previews","<img onerror=x>", 7, {"a":1}]')).toEqual(['previews']);
    expect(kindsOfEvent(': a comment line, no data')).toEqual([]);
    expect(kindsOfEvent('data: not json')).toEqual([]);
    expect(kindsOfEvent('data: {"timeline": true}')).toEqual([]);
    expect(knownKinds('timeline')).toEqual([]);
  });
});

describe('following under Electron (the preload bridge)', () => {
  it('subscribes once for all screens, and lets go when the last one leaves', () => {
    let told: ((kinds: ChangeKind[]) => void) | null = null;
    let unsubscribed = 0;
    vi.stubGlobal('window', {
      ternChanges: {
        subscribe(listener: (kinds: ChangeKind[]) => void) {
          told = listener;
          return () => void unsubscribed++;
        },
      },
    });
    const a: string[][] = [];
    const b: string[][] = [];
    const leaveA = onChanges((kinds) => a.push([...kinds]));
    const leaveB = onChanges((kinds) => b.push([...kinds]));
    told!(['sign-ins', 'bogus' as ChangeKind]);
    expect(a).toEqual([['sign-ins']]);
    expect(b).toEqual([['sign-ins']]);
    leaveA();
    expect(unsubscribed).toBe(0);
    leaveB();
    expect(unsubscribed).toBe(1);
  });
});

describe('following headless (the event stream)', () => {
  it('reads events split across chunks, opens the stream again when it ends, and then says everything may have changed', async () => {
    tabStorage();
    rememberToken('the-token-0123456789');
    vi.stubGlobal('window', {});
    const opened: { path: string; auth: string | null }[] = [];
    const streams: ReadableStreamDefaultController<Uint8Array>[] = [];
    vi.stubGlobal('fetch', async (path: string, init: RequestInit) => {
      opened.push({ path, auth: new Headers(init.headers).get('authorization') });
      const body = new ReadableStream<Uint8Array>({ start: (controller) => void streams.push(controller) });
      return new Response(body, { headers: { 'Content-Type': 'text/event-stream' } });
    });
    const heard: string[][] = [];
    const leave = onChanges((kinds) => heard.push([...kinds]));
    await vi.waitFor(() => expect(streams).toHaveLength(1));
    expect(opened[0]).toEqual({ path: '/ipc/events', auth: 'Bearer the-token-0123456789' });
    const bytes = (text: string) => new TextEncoder().encode(text);
    streams[0]!.enqueue(bytes(': following\r\n\r\nevent: changed\r\nda'));
    streams[0]!.enqueue(bytes('ta: ["notifications"]\r\n\r\n'));
    await vi.waitFor(() => expect(heard).toEqual([['notifications']]));
    // Tern restarted: the stream ends; it is opened again, and what changed meanwhile was not told.
    streams[0]!.close();
    await vi.waitFor(() => expect(streams).toHaveLength(2), { timeout: RETRY_FIRST_MS * 3 });
    await vi.waitFor(() => expect(heard[1]).toEqual(['timeline', 'notifications', 'previews', 'deliveries', 'sign-ins', 'status']));
    leave();
  });
});
