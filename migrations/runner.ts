// The schema revision runner: the chain of revisions, the database's place in it, and moving
// the database along it. The database's revision is kept as Alembic keeps it, in
// alembic_version(version_num), because the service behind the spec is an Alembic app: its
// databases are recognised, and one at a revision this build does not know is refused.
import type { Sqlite } from '../db/client';
import type { Revision } from './revision';
import { initial } from './f5717d82b3ff_initial';
import { outsideSpec } from './9b404c47970a_outside_spec';
import { oauthClient } from './4ab54becec04_oauth_client';
import { processingIndexes } from './0d4f0c70f784_processing_indexes';
import { featureIndexes } from './e7c3a9d51b20_feature_indexes';
import { interactionCountsIndex } from './9519a2c5ec87_interaction_counts_index';
import { fullTextSearch } from './c41f7a2e9d15_full_text_search';
import { optionalJsonNull } from './b3e1c5a7d902_optional_json_null';
import { scaleIndexes } from './d58a0b6c3e27_scale_indexes';
import { threadPeopleIndexes } from './70cce0da20c3_thread_people_indexes';
import { readableValues } from './5d0e8a3c71f4_readable_values';
import { listIndexes } from './4a475cedd483_list_indexes';
import { requestIndexes } from './ae35abd14d3a_request_indexes';

// Declared in revision.ts, which each revision file imports (not this file, which imports them).
export type { Revision } from './revision';

/** The chain, oldest first: each revision's parent is the one before it. The spec's chain ends
 * at 4ab54becec04; the revisions after it are Tern's own. */
export const REVISIONS: readonly Revision[] = [initial, outsideSpec, oauthClient, processingIndexes, featureIndexes, interactionCountsIndex, optionalJsonNull, fullTextSearch, scaleIndexes, threadPeopleIndexes, readableValues, listIndexes, requestIndexes];

/** The newest revision: the schema of db/schema.ts. */
export const HEAD: string = headOf(REVISIONS);

// Exactly the statement Alembic runs, so a Tern database and one of the service look alike.
const ALEMBIC_VERSION_DDL =
  'CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL, CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num))';

/** The target is neither a revision of the chain nor `head`/`base`. */
export class UnknownRevisionError extends Error {
  override name = 'UnknownRevisionError';
  readonly revision: string;
  constructor(revision: string, revisions: readonly Revision[] = REVISIONS) {
    super(
      `Unknown revision ${revision}: it is not in this build's chain (${ids(revisions).join(', ')}) ` +
        `and is neither "head" nor "base".`,
    );
    this.revision = revision;
  }
}

/** The database is stamped with a revision this build does not know: refused, left untouched. */
export class UnknownDatabaseRevisionError extends Error {
  override name = 'UnknownDatabaseRevisionError';
  readonly revision: string;
  constructor(stamped: readonly string[], revisions: readonly Revision[] = REVISIONS) {
    const what =
      stamped.length === 1
        ? `The database is at revision ${stamped[0]}, which this build of Tern does not know`
        : `The database is at several revisions at once (${stamped.join(', ')}), a branching this build of Tern does not know`;
    super(
      `${what} (its chain ends at ${headOf(revisions)}); it was made by a newer Tern or another ` +
        `application, so it was left untouched.`,
    );
    this.revision = stamped.join(', ');
  }
}

/** Upgrade to an older revision, or downgrade to a newer one. */
export class RevisionDirectionError extends Error {
  override name = 'RevisionDirectionError';
  constructor(direction: Direction, target: string, current: string | null) {
    const other = direction === 'upgrade' ? 'downgrade' : 'upgrade';
    super(
      `Cannot ${direction} to ${target}: the database is at ${current ?? 'base'}, ` +
        `which is ${direction === 'upgrade' ? 'newer' : 'older'}; ${other} instead.`,
    );
  }
}

/** A revision threw, or left foreign keys broken; its transaction was rolled back. */
export class RevisionFailedError extends Error {
  override name = 'RevisionFailedError';
  readonly revision: string;
  constructor(revision: Revision, direction: Direction, stayedAt: string | null, cause: unknown) {
    super(
      `Revision ${revision.id} failed to ${direction} and was rolled back; the database stays at ` +
        `${stayedAt ?? 'base'}. ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.revision = revision.id;
  }
}

type Direction = 'upgrade' | 'downgrade';

/** The database's revision; null when it has none (no alembic_version table, or an empty one). */
export function currentRevision(sqlite: Sqlite): string | null {
  if (!hasVersionTable(sqlite)) return null;
  const stamped = sqlite.prepare('SELECT version_num FROM alembic_version').pluck().all() as string[];
  if (stamped.length > 1) throw new UnknownDatabaseRevisionError(stamped);
  return stamped[0] ?? null;
}

/** The revisions `upgrade` would apply, in order. Reads only. */
export function pendingRevisions(sqlite: Sqlite, target = 'head', revisions: readonly Revision[] = REVISIONS): Revision[] {
  return upgradePlan(currentRevision(sqlite), target, revisions);
}

/** The revisions `downgrade` would revert, newest first. Reads only. */
export function revisionsToRevert(sqlite: Sqlite, target: string, revisions: readonly Revision[] = REVISIONS): Revision[] {
  return downgradePlan(currentRevision(sqlite), target, revisions);
}

/** What upgrading a database at `from` to `target` applies; throws before anything is done. */
export function upgradePlan(from: string | null, target = 'head', revisions: readonly Revision[] = REVISIONS): Revision[] {
  const [current, wanted] = positions(from, target, revisions);
  if (wanted < current) throw new RevisionDirectionError('upgrade', target, from);
  return revisions.slice(current + 1, wanted + 1);
}

/** What downgrading a database at `from` to `target` reverts; throws before anything is done. */
export function downgradePlan(from: string | null, target: string, revisions: readonly Revision[] = REVISIONS): Revision[] {
  const [current, wanted] = positions(from, target, revisions);
  if (wanted > current) throw new RevisionDirectionError('downgrade', target, from);
  return revisions.slice(wanted + 1, current + 1).reverse();
}

/** Applies the revisions up to `target`, each in its own transaction; returns their ids. */
export function upgrade(sqlite: Sqlite, target = 'head', revisions: readonly Revision[] = REVISIONS): string[] {
  const plan = pendingRevisions(sqlite, target, revisions);
  for (const revision of plan) runRevision(sqlite, revision, 'upgrade', revision.parent, revision.id);
  return plan.map((r) => r.id);
}

/** Reverts the revisions down to `target` (a revision, or `base`), newest first; returns their ids. */
export function downgrade(sqlite: Sqlite, target: string, revisions: readonly Revision[] = REVISIONS): string[] {
  const plan = revisionsToRevert(sqlite, target, revisions);
  for (const revision of plan) runRevision(sqlite, revision, 'downgrade', revision.id, revision.parent);
  return plan.map((r) => r.id);
}

// ---- internals ---------------------------------------------------------------------------

function ids(revisions: readonly Revision[]): string[] {
  return revisions.map((r) => r.id);
}

/** The head of a chain, after checking that it is one: ids unique, each parent the one before. */
function headOf(revisions: readonly Revision[]): string {
  revisions.forEach((revision, i) => {
    const expected = i === 0 ? null : revisions[i - 1]!.id;
    if (revision.parent !== expected) {
      throw new Error(`Broken revision chain: ${revision.id} has parent ${revision.parent}, expected ${expected}.`);
    }
  });
  const head = revisions.at(-1);
  if (!head) throw new Error('The revision chain is empty.');
  return head.id;
}

/** Positions in the chain (-1 is base) of the database's revision and of the target. */
function positions(from: string | null, target: string, revisions: readonly Revision[]): [number, number] {
  headOf(revisions);
  const wanted = target === 'head' ? revisions.length - 1 : target === 'base' ? -1 : revisions.findIndex((r) => r.id === target);
  if (wanted === -1 && target !== 'base') throw new UnknownRevisionError(target, revisions);
  const current = from === null ? -1 : revisions.findIndex((r) => r.id === from);
  if (current === -1 && from !== null) throw new UnknownDatabaseRevisionError([from], revisions);
  return [current, wanted];
}

function hasVersionTable(sqlite: Sqlite): boolean {
  return sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'alembic_version'").get() !== undefined;
}

/** Runs one revision and moves the stamp to `to`, in one transaction, or rolls both back. */
function runRevision(sqlite: Sqlite, revision: Revision, direction: Direction, from: string | null, to: string | null): void {
  if (sqlite.inTransaction) throw new Error('Revisions run in their own transactions; call upgrade/downgrade outside one.');
  // Foreign keys are off while a revision runs, as SQLite's procedure for schema changes asks
  // (the pragma is ignored inside a transaction, hence here): otherwise dropping one side of
  // inbox <-> outbox, or rebuilding a table, trips over the other side. PRAGMA
  // foreign_key_check proves the result consistent before the commit instead.
  const foreignKeysWereOn = sqlite.pragma('foreign_keys', { simple: true }) === 1;
  sqlite.pragma('foreign_keys = OFF');
  try {
    // References to missing rows the database already held (the sqlite3 shell and python3 have
    // foreign keys off unless told otherwise) made every revision fail, whatever it did, so Tern
    // could not open the database. They are the user's, and left as they are: only those the
    // revision made fail it. Which were there before is read only when the check finds any,
    // after rolling back, and the revision is run again: a database without any pays nothing.
    let before: Set<string> | undefined;
    while (!runOnce(sqlite, revision, direction, from, to, before)) before = new Set(foreignKeyViolations(sqlite).map(violationKey));
  } finally {
    if (foreignKeysWereOn) sqlite.pragma('foreign_keys = ON');
  }
}

/** One run of the revision in its transaction; false when it was rolled back to learn which
 * broken references the database held before it (`before` is then undefined). */
function runOnce(sqlite: Sqlite, revision: Revision, direction: Direction, from: string | null, to: string | null, before: Set<string> | undefined): boolean {
  sqlite.exec('BEGIN IMMEDIATE');
  try {
    revision[direction](sqlite);
    stamp(sqlite, to);
    const violations = foreignKeyViolations(sqlite);
    const made = violations.filter((v) => !before?.has(violationKey(v)));
    if (made.length > 0 && before === undefined) {
      sqlite.exec('ROLLBACK');
      return false;
    }
    if (made.length > 0) throw new Error(`Foreign key check failed: ${describeViolations(made)}.`);
    if (violations.length > 0) {
      const one = violations.length === 1;
      console.warn(
        `${revision.id}: ${violations.length} reference${one ? '' : 's'} to a missing row, stored before the revision ran, ${one ? 'was left as it was' : 'were left as they were'} ` +
          `(${describeViolations(violations)}); PRAGMA foreign_key_check lists ${one ? 'it' : 'them'}`,
      );
    }
    sqlite.exec('COMMIT');
    return true;
  } catch (error) {
    if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
    throw new RevisionFailedError(revision, direction, from, error);
  }
}

/** Records the database's revision; at base the table stays, empty, as Alembic leaves it. */
function stamp(sqlite: Sqlite, revision: string | null): void {
  if (!hasVersionTable(sqlite)) sqlite.exec(ALEMBIC_VERSION_DDL);
  sqlite.prepare('DELETE FROM alembic_version').run();
  if (revision !== null) sqlite.prepare('INSERT INTO alembic_version (version_num) VALUES (?)').run(revision);
}

interface ForeignKeyViolation {
  table: string;
  rowid: number | null;
  parent: string;
  fkid: number;
}

function foreignKeyViolations(sqlite: Sqlite): ForeignKeyViolation[] {
  return sqlite.pragma('foreign_key_check') as ForeignKeyViolation[];
}

/** A violation's identity: rebuilt tables keep their rowids, so a stored one is known again. */
const violationKey = (v: ForeignKeyViolation) => `${v.table}\u0000${v.rowid}\u0000${v.parent}\u0000${v.fkid}`;

function describeViolations(violations: readonly ForeignKeyViolation[]): string {
  const shown = violations
    .slice(0, 5)
    .map((v) => `${v.table} row ${v.rowid} references a missing ${v.parent}`)
    .join('; ');
  return `${shown}${violations.length > 5 ? `; and ${violations.length - 5} more` : ''}`;
}
