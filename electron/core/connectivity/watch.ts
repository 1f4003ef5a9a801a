// Whether Tern may use the network now: the machine's connectivity (from an injectable source)
// AND NOT the author's "Work offline" switch (settings.workOffline), like a mail client. The
// delivery loop attempts nothing while this says offline, and wakes the moment it says online.
//
// Sources: under Electron the shell feeds net.isOnline() and its online/offline events through
// `pushSource()`; headless mode uses `probeSource()` (probe.ts); tests use `manualSource()`.

export interface ConnectivitySource {
  /** 'electron', 'probe', 'manual', … — shown in the status line for diagnosis. */
  readonly kind: string;
  /** The last known state of the machine's network. */
  current(): boolean;
  subscribe(listener: (online: boolean) => void): () => void;
  /** Asks the source to re-check now (after deliveries failed at the network level). */
  recheck?(): void;
  close?(): void;
}

export interface ConnectivityState {
  /** The network may be used: the machine is online and "Work offline" is off. */
  online: boolean;
  /** What the source says of the machine. */
  network: 'online' | 'offline';
  workOffline: boolean;
  source: string;
  /** ISO-8601: when `online` last changed (or the watch started). */
  since: string;
}

export interface ConnectivityWatch {
  isOnline(): boolean;
  state(): ConnectivityState;
  /** Called with the new state whenever `online` flips. */
  onChange(listener: (state: ConnectivityState) => void): () => void;
  /** Replaces the source (the Electron shell installs its own once it is ready). */
  setSource(source: ConnectivitySource): void;
  recheck(): void;
  close(): void;
}

/** A source whose state is set by hand: tests, and the Electron shell's push of events. */
export interface ManualSource extends ConnectivitySource {
  set(online: boolean): void;
}

export function manualSource(initial = true, kind = 'manual'): ManualSource {
  let online = initial;
  const listeners = new Set<(online: boolean) => void>();
  return {
    kind,
    current: () => online,
    set(next) {
      if (next === online) return;
      online = next;
      for (const l of [...listeners]) l(online);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** What the Electron shell uses: net.isOnline() at start, then its online/offline events. */
export const pushSource = (initial: boolean): ManualSource => manualSource(initial, 'electron');

export function createConnectivityWatch(deps: {
  source: ConnectivitySource;
  /** The settings store, of which the watch reads only the "Work offline" switch. */
  settings: {
    get(): { workOffline: boolean };
    onChange(listener: (settings: { workOffline: boolean }) => void): () => void;
  };
  clock: () => Date;
}): ConnectivityWatch {
  let source = deps.source;
  let unsubscribeSource = source.subscribe(() => evaluate());
  let workOffline = deps.settings.get().workOffline;
  const compute = () => source.current() && !workOffline;
  let online = compute();
  let since = deps.clock();
  const listeners = new Set<(state: ConnectivityState) => void>();

  const state = (): ConnectivityState => ({
    online,
    network: source.current() ? 'online' : 'offline',
    workOffline,
    source: source.kind,
    since: since.toISOString(),
  });

  function evaluate(): void {
    const next = compute();
    if (next === online) return;
    online = next;
    since = deps.clock();
    const snapshot = state();
    for (const l of [...listeners]) l(snapshot);
  }

  const unsubscribeSettings = deps.settings.onChange((settings) => {
    workOffline = settings.workOffline;
    evaluate();
  });

  return {
    isOnline: () => online,
    state,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    setSource(next) {
      unsubscribeSource();
      source.close?.();
      source = next;
      unsubscribeSource = source.subscribe(() => evaluate());
      evaluate();
    },
    recheck: () => source.recheck?.(),
    close() {
      unsubscribeSource();
      unsubscribeSettings();
      source.close?.();
      listeners.clear();
    },
  };
}
