// What the inbox learned about a relayed activity's own signature, handed to the processor: when
// receiveInboxPost verified an LD signature or integrity proof (milliseconds of JSON-LD work),
// it remembers the verdict under the incoming_activity row's id, and the processor uses it
// instead of verifying the same stored bytes again. In memory only, so after a restart (or past
// the bound) the processor simply verifies itself; nothing a peer sends can put an entry here.
import { sqliteOf, type DbOrTx } from '../../../db/client';
import type { EmbeddedSignatureResult } from '../net/signatures';

export type Verified = Extract<EmbeddedSignatureResult, { ok: true }>;

/** Rows accepted but not yet processed whose verdicts are kept (oldest forgotten first). */
const KEPT = 1_000;
const verdicts = new WeakMap<object, Map<number, Verified>>();

export function rememberVerdict(db: DbOrTx, incomingId: number, verdict: Verified): void {
  let kept = verdicts.get(sqliteOf(db));
  if (kept === undefined) verdicts.set(sqliteOf(db), (kept = new Map()));
  kept.set(incomingId, verdict);
  if (kept.size > KEPT) kept.delete(kept.keys().next().value!);
}

/** The verdict the inbox reached for this row, once (it is forgotten as it is handed over). */
export function takeVerdict(db: DbOrTx, incomingId: number): Verified | undefined {
  const kept = verdicts.get(sqliteOf(db));
  const verdict = kept?.get(incomingId);
  kept?.delete(incomingId);
  return verdict;
}
