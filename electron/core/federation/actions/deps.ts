// What the author's actions need from the core, passed in so tests can hand real SQLite and
// loopback HTTP with a fake clock or connectivity.
import type { Db } from '../../../../db/client';
import type { FederationContext } from '../../ports';
import { BadInputError } from '../../errors';
import type { LocalActor } from '../identity';

export interface ActionDeps {
  db: Db;
  fed: FederationContext;
  clock: () => Date;
  /** The local actor, or null before the base URL and user name are set. */
  identity: () => LocalActor | null;
  /** Whether the network may be used now (connectivity watch: OS state and "Work offline"). */
  isOnline: () => boolean;
  /** Wakes the delivery loop after new rows were queued. */
  wake: () => void;
  /** One of the author's posts was written or edited (its outbox id): its link previews are
   * looked for (previews/runner.ts). */
  postWritten?: (outboxId: number) => void;
  /** The data folder's uploads/ (deleting a post removes files no other post uses). */
  uploadsDir?: string;
  /** Uploads kept even when no post uses them (the author's picture and header image). */
  keepUploads?: () => readonly number[];
}

/** The local actor; posting needs one. */
export function requireLocal(deps: Pick<ActionDeps, 'identity'>): LocalActor {
  const local = deps.identity();
  if (!local) throw new BadInputError('Set your public address and user name in Settings before posting.');
  return local;
}
