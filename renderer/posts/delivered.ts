// Whether a like or a boost has reached the servers it was sent to (UX.md "Posts": the action's
// pending mark stays until delivered; a failure is shown on the post with a retry). Read from
// the delivery queue's rows about the post: the newest Like (or Announce) and its rows.
import type { DeliveryRowView } from '../../electron/core/ipc/author-contract';
import { call } from '../api';
import type { Flag } from './send';

/** The activity a flag sends when set (unsetting sends an Undo, which is not followed). */
export const ACTIVITY_OF: Partial<Record<Flag, string>> = { liked: 'Like', boosted: 'Announce' };

export type Outcome =
  | { kind: 'pending'; nextTry: string | null }
  | { kind: 'delivered' }
  | { kind: 'failed'; ids: number[]; servers: number; why: string | null };

const PENDING: ReadonlySet<DeliveryRowView['state']> = new Set(['queued', 'resolving', 'sending', 'retrying']);

/** The outcome of the newest activity of `type` among a post's rows (newest first); delivered
 * when there is none (no one to send it to). */
export function outcomeOf(rows: readonly DeliveryRowView[], type: string): Outcome {
  const newest = rows.find((r) => r.activity.type === type);
  if (!newest) return { kind: 'delivered' };
  const mine = rows.filter((r) => r.activity.type === type && r.activity.apId === newest.activity.apId);
  const pending = mine.filter((r) => PENDING.has(r.state));
  if (pending.length > 0) {
    const next = pending.map((r) => r.nextTry).filter((t): t is string => t !== null).sort()[0] ?? null;
    return { kind: 'pending', nextTry: next };
  }
  const failed = mine.filter((r) => r.state === 'failed');
  if (failed.length === 0) return { kind: 'delivered' };
  return { kind: 'failed', ids: failed.map((r) => r.id), servers: failed.length, why: failed.find((r) => r.error)?.error ?? null };
}

const PAGE = 100;

/** Asks Tern how the post's newest `type` activity is doing. */
export async function checkDelivery(apId: string, type: string): Promise<Outcome> {
  const page = await call('deliveries.list', { postApId: apId, state: 'all', limit: PAGE });
  return outcomeOf(page.items, type);
}

/** Waits before asking again: soon at first, then less often (at most every 30 s), and not
 * before the next try is due when it is further off. */
export function waitBefore(attempt: number, nextTry: string | null, now: number): number {
  const backoff = Math.min(30_000, 1_000 * 2 ** attempt);
  const due = nextTry === null ? 0 : Date.parse(nextTry) - now;
  return Number.isFinite(due) && due > backoff ? Math.min(due + 500, 5 * 60_000) : backoff;
}
