// SQLite's answers when the disk, not Tern, is the problem: the disk is full, the file or its
// folder became read-only, or the storage failed under it. Each gets a sentence the author can
// act on; callers map it to "unavailable" (IPC), 503 with Retry-After (listener), or a retry
// (loops) — the transaction was rolled back, so nothing stored was lost.

export type StorageProblem = 'full' | 'readonly' | 'io';

const SENTENCES: Record<StorageProblem, string> = {
  full: 'The disk is full, so Tern could not save this. Nothing already saved was lost; free some space and try again.',
  readonly: 'Tern’s data folder is read-only right now, so nothing can be saved. Nothing already saved was lost; make the folder writable again.',
  io: 'The disk could not be written (an input/output error). Nothing already saved was lost; check the disk and try again.',
};

/** What kind of storage problem a thrown error is, or null when it is something else. */
export function storageProblem(error: unknown): StorageProblem | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC') return 'full';
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS') return 'readonly';
  if (code.startsWith('SQLITE_IOERR') || code === 'EIO') return 'io';
  return null;
}

export function storageSentence(problem: StorageProblem): string {
  return SENTENCES[problem];
}
