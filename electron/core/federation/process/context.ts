// What every inbox handler receives and returns. A handler does its network work first (actors,
// parents, announced objects), then writes everything the activity causes in ONE transaction.
// Deliberate drops are a result, not a failure: the loop marks them processed with the reason and
// never retries them; any thrown error is a failure, retried with backoff.
import type { Db } from '../../../../db/client';
import type { Actor, IncomingActivity } from '../../../../db/schema';
import type { FederationContext } from '../../ports';
import type { Settings } from '../../settings';
import { TernError } from '../../errors';
import type { LocalActor } from '../identity';
import type { Json } from '../ap';
import { withoutTrailingSlashes } from '../../trailing-slashes';

export interface ProcessDeps {
  db: Db;
  fed: FederationContext;
  clock: () => Date;
  identity: LocalActor;
  settings: Pick<Settings, 'manuallyApprovesFollowers' | 'blockedServers'>;
}

/** An activity that passed the preamble (well-formed, not a duplicate, actor known). */
export interface Received {
  row: IncomingActivity;
  activity: Json;
  id: string;
  type: string;
  actor: Actor;
  /** The HTTP signer is not the activity's actor (a forwarded activity) and no LD signature by
   * the actor vouches for it: the embedded copy is not to be believed. */
  forwarded: boolean;
  /** The actor's LD signature verified (true), did not (false), or was not checked yet (null;
   * process/forward.ts checks it when it matters). */
  ldVerified?: boolean | null;
  now: Date;
}

export type ProcessOutcome =
  | {
      status: 'processed';
      inboxObjectId: number | null;
      /** A received post whose links may have changed (an Update of its content): its link
       * previews were cleared, to be looked for again (previews/runner.ts). */
      previewsFor?: number;
      /** An answer about one of the author's quotes (an Accept, a Reject, the Delete of an
       * authorization): when its quotes turn unanswered may have changed (quote-deadlines.ts). */
      quoteAnswered?: true;
    }
  | { status: 'dropped'; reason: string };

/** Thrown (also from inside a transaction, which then rolls back) to drop an activity on purpose. */
export class ActivityDropped extends TernError {
  override name = 'ActivityDropped';
}

export function drop(reason: string): never {
  throw new ActivityDropped(reason);
}

export const processed = (inboxObjectId: number | null): ProcessOutcome => ({ status: 'processed', inboxObjectId });

/** Ids compared as the same actor or object whatever their trailing slash (interop-notes). */
export function sameId(a: string | null | undefined, b: string | null | undefined): boolean {
  if (!a || !b) return false;
  return withoutTrailingSlashes(a) === withoutTrailingSlashes(b);
}

export { originOf } from '../ap';
