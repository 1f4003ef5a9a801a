// What the entity mappers (entities.ts, account-entity.ts) read, declared apart so that both can
// take it without importing each other.
import type { Reads } from '../federation/actions/reads';
import type { LocalActor } from '../federation/identity';
import type { PeopleLists } from '../ipc/author-contract';
import type { Settings } from '../settings';

export interface MapperDeps {
  local: LocalActor;
  settings: () => Settings;
  reads: Reads;
  /** The People view without the follow requests (their number is remote actors' to decide). */
  people: () => PeopleLists;
  /** One actor's relationship with the author, looked up alone. */
  relation: (actorId: number) => { following: boolean; followedBy: boolean; requestedBy: boolean };
}
