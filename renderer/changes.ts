// Tern's hints that something the window shows changed (electron/core/changes.ts): a new post
// in the stream, a notification, a link preview, a delivery, a sign-in waiting. A screen that
// follows a kind asks again through the ordinary channels when it is told, so what arrives
// shows at once instead of at the next poll (the polls stay, slower, as a backstop).
// Under Electron the preload passes main's hints (`window.ternChanges`); headless, one event
// stream (GET /ipc/events, with the link's token) is shared by every screen, and opened
// again, ever more slowly, when it breaks. Only known kinds are taken; nothing else is read.
import { useEffect, useRef } from 'react';
import type { ChangeKind, CHANGES_HTTP_PATH } from '../electron/core/ipc/changes-contract';
import { headlessToken } from './headlessToken';

declare global {
  interface Window {
    /** Present only under Electron, put there by the preload. */
    ternChanges?: { subscribe(listener: (kinds: ChangeKind[]) => void): () => void };
  }
}

// The renderer imports only types from electron/: these mirror the contract's values, and the
// types keep them the same (a kind missing here fails to compile).
const KINDS = ['timeline', 'notifications', 'previews', 'deliveries', 'sign-ins', 'status'] as const satisfies readonly ChangeKind[];
const ALL_KINDS: [Exclude<ChangeKind, (typeof KINDS)[number]>] extends [never] ? readonly ChangeKind[] : never = KINDS;
const CHANGES_PATH: typeof CHANGES_HTTP_PATH = '/ipc/events';

/** The stream is opened again after this long, doubling while it keeps failing, up to the max. */
export const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;
/** Tern writes a line every 30 s (CHANGE_STREAM_HEARTBEAT_MS): a silence this long is a stream
 * that died without closing (the machine slept, a proxy dropped it). */
const SILENCE_MS = 75_000;
/** What is kept of a stream waiting for its end of event: Tern's events are a few dozen bytes. */
const MAX_PENDING_CHARS = 16_384;

type Listener = (kinds: ReadonlySet<ChangeKind>) => void;
const listeners = new Set<Listener>();
let disconnect: (() => void) | null = null;

/** The kinds Tern named, known ones only. */
export function knownKinds(value: unknown): ChangeKind[] {
  if (!Array.isArray(value)) return [];
  return ALL_KINDS.filter((kind) => value.includes(kind));
}

function tell(kinds: readonly ChangeKind[]): void {
  if (kinds.length === 0) return;
  const set: ReadonlySet<ChangeKind> = new Set(kinds);
  for (const listener of [...listeners]) listener(set);
}

/** Follows Tern's hints while anything listens; returns an unsubscribe. */
export function onChanges(listener: Listener): () => void {
  listeners.add(listener);
  disconnect ??= connect();
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && disconnect) {
      disconnect();
      disconnect = null;
    }
  };
}

/** Calls `act` when Tern says one of `kinds` changed, for as long as the component is shown;
 * at most once per `atMostEveryMs` (a fan-out's deliveries change many times a second): a
 * hint inside that gap is acted on at its end. */
export function useChanges(kinds: readonly ChangeKind[], act: () => void, atMostEveryMs = 0): void {
  const actRef = useRef(act);
  actRef.current = act;
  const key = kinds.join(' ');
  useEffect(() => {
    const wanted = key.split(' ');
    let last = 0;
    let later: ReturnType<typeof setTimeout> | null = null;
    const run = () => {
      later = null;
      last = Date.now();
      actRef.current();
    };
    const unsubscribe = onChanges((changed) => {
      if (!wanted.some((kind) => changed.has(kind as ChangeKind)) || later !== null) return;
      const wait = last + atMostEveryMs - Date.now();
      if (wait <= 0) run();
      else later = setTimeout(run, wait);
    });
    return () => {
      unsubscribe();
      if (later !== null) clearTimeout(later);
    };
  }, [key, atMostEveryMs]);
}

function connect(): () => void {
  const bridge = typeof window === 'undefined' ? undefined : window.ternChanges;
  if (bridge) return bridge.subscribe((kinds) => tell(knownKinds(kinds)));
  return followStream();
}

/** One block of an event stream ("event: changed\ndata: [...]"): the kinds it names. */
export function kindsOfEvent(block: string): ChangeKind[] {
  const data = block
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim())
    .join('\n');
  if (data === '') return [];
  try {
    return knownKinds(JSON.parse(data));
  } catch {
    return [];
  }
}

function followStream(): () => void {
  let stopped = false;
  let retryMs = RETRY_FIRST_MS;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  let controller: AbortController | null = null;
  let opened = false;

  async function open(): Promise<void> {
    retryTimer = null;
    const token = headlessToken();
    // Opened without the link's token: Tern would answer 401; the screens' polls say so.
    if (token === null || stopped) return;
    controller = new AbortController();
    const mine = controller;
    let silence = setTimeout(() => mine.abort(), SILENCE_MS);
    try {
      const response = await fetch(CHANGES_PATH, {
        headers: { Accept: 'text/event-stream', Authorization: `Bearer ${token}` },
        cache: 'no-store',
        signal: mine.signal,
      });
      if (!response.ok || !response.body) throw new Error(`answered ${response.status}`);
      retryMs = RETRY_FIRST_MS;
      // Opened again after a break: what changed meanwhile was not told.
      if (opened) tell(ALL_KINDS);
      opened = true;
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let pending = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        clearTimeout(silence);
        silence = setTimeout(() => mine.abort(), SILENCE_MS);
        pending += value.replace(/\r\n?/g, '\n');
        let end: number;
        while ((end = pending.indexOf('\n\n')) >= 0) {
          tell(kindsOfEvent(pending.slice(0, end)));
          pending = pending.slice(end + 2);
        }
        if (pending.length > MAX_PENDING_CHARS) pending = '';
      }
    } catch {
      // Tern closed, restarted or refused (too many pages): opened again below.
    } finally {
      clearTimeout(silence);
    }
    if (stopped) return;
    retryTimer = setTimeout(() => void open(), retryMs);
    retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
  }

  void open();
  return () => {
    stopped = true;
    if (retryTimer) clearTimeout(retryTimer);
    controller?.abort();
  };
}
