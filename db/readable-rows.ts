// Lists survive a row they cannot read. A row another tool wrote past the CHECKs (with
// ignore_check_constraints, or in a database at an older revision) may hold a datetime Date
// cannot read or an ap_object that is not an object; one such row made the whole notifications
// list, the stream or the profile fail. The lists make each item with viewsOf: a row whose
// item cannot be made is left out, and said so on the console with its table and id, and the
// page goes on.

/** Where a skipped row is reported; the console unless a test listens. */
export type SkipLog = (message: string) => void;

let skipLog: SkipLog = (message) => console.warn(message);

/** Replaces where skipped rows are reported (tests); returns the previous one. */
export function setSkipLog(log: SkipLog): SkipLog {
  const previous = skipLog;
  skipLog = log;
  return previous;
}

/** A datetime read from the database that Date could read (an unreadable one is an Invalid Date). */
export const isReadableDate = (date: Date): boolean => !Number.isNaN(date.getTime());

/**
 * Each row's item, made by `view`; a row for which `view` throws is left out and reported as
 * `<what> <id>: <error>`.
 */
export function viewsOf<R, V>(rows: readonly R[], view: (row: R) => V, what: (row: R) => string): V[] {
  const out: V[] = [];
  for (const row of rows) {
    try {
      out.push(view(row));
    } catch (error) {
      skipLog(`skipped ${what(row)}, which cannot be read: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return out;
}
