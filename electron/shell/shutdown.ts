// Quitting cleanly: stop starting work, let a delivery in flight finish (up to the grace
// period; one still running then is aborted and its row stays due — never lost, never
// half-recorded, since a row is written only after its answer), stop the inbox processor and
// the listener, and only then close the database. Runs once however many times Quit is asked.
// Plain Node, given the core's parts.

export const QUIT_GRACE_MS = 5_000;

export interface ShutdownParts {
  delivery: { stop(options?: { graceMs?: number }): Promise<void> };
  inbox: { stop(): Promise<void> };
  listener: { stop(): Promise<void> };
  /** Background work that writes rows (link previews): stopped, its writes done, before closing. */
  others?: { stop(): Promise<void> }[];
  /** Shell things to undo before the database closes (timers, watches, tray). */
  beforeClose: () => void;
  close: () => void;
  log?: (line: string) => void;
}

export function createShutdown(parts: ShutdownParts, graceMs = QUIT_GRACE_MS): () => Promise<void> {
  let done: Promise<void> | null = null;
  return () =>
    (done ??= (async () => {
      const results = await Promise.allSettled([parts.delivery.stop({ graceMs }), parts.inbox.stop(), parts.listener.stop(), ...(parts.others ?? []).map((o) => o.stop())]);
      for (const r of results) if (r.status === 'rejected') parts.log?.(`stopping: ${String(r.reason)}`);
      try {
        parts.beforeClose();
      } finally {
        parts.close();
      }
    })());
}
