// The commands of `npm run db` (see cli.ts): move a Tern database file along the revision
// chain, or report where it is. Every refusal (unknown revision, unknown database revision,
// bad usage) is a sentence on stderr and exit code 1, decided before the database is opened
// for writing.
import { existsSync } from 'node:fs';
import { openSqlite, type Sqlite } from '../db/client';
import { HEAD, REVISIONS, currentRevision, downgrade, downgradePlan, upgrade, upgradePlan } from './runner';

const USAGE = `usage: npm run db -- <command>
  upgrade <head|revision> --db PATH     apply revisions up to the target (creates PATH if missing)
  downgrade <revision|base> --db PATH   revert revisions down to the target
  current --db PATH                     print the database's revision
  history                               list the revisions, newest first`;

class UsageError extends Error {}

interface Command {
  name: string;
  args: string[];
  db: string | undefined;
}

function parse(argv: readonly string[]): Command {
  const positional: string[] = [];
  let db: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--db') {
      db = argv[++i];
      if (db === undefined || db === '') throw new UsageError('--db needs a path.');
    } else if (arg.startsWith('--db=')) {
      db = arg.slice('--db='.length);
      if (db === '') throw new UsageError('--db needs a path.');
    } else if (arg.startsWith('-')) {
      throw new UsageError(`Unknown option ${arg}.`);
    } else {
      positional.push(arg);
    }
  }
  const [name, ...args] = positional;
  if (name === undefined) throw new UsageError('No command given.');
  return { name, args, db };
}

const label = (revision: string | null) => (revision === null ? 'base' : revision === HEAD ? `${revision} (head)` : revision);

function needs(command: Command, argCount: number, what: string): void {
  if (command.args.length !== argCount) throw new UsageError(`${command.name} takes ${what}.`);
}

function needDb(command: Command): string {
  if (command.db === undefined) throw new UsageError(`${command.name} needs --db PATH.`);
  return command.db;
}

/** The revision of the file at `path`, read without writing anything; null when there is no file. */
function revisionOfFile(path: string): string | null {
  if (!existsSync(path)) return null;
  const sqlite = openSqlite(path, { readonly: true });
  try {
    return currentRevision(sqlite);
  } finally {
    sqlite.close();
  }
}

function mustExist(path: string): void {
  if (!existsSync(path)) throw new UsageError(`There is no database at ${path}.`);
}

/** Runs `work` on the database opened for writing, closing it afterwards. */
function withDatabase<T>(path: string, work: (sqlite: Sqlite) => T): T {
  const sqlite = openSqlite(path);
  try {
    return work(sqlite);
  } finally {
    sqlite.close();
  }
}

function run(command: Command, out: (line: string) => void): void {
  switch (command.name) {
    case 'upgrade': {
      needs(command, 1, 'one target: head or a revision id');
      const [target] = command.args as [string];
      const path = needDb(command);
      const from = revisionOfFile(path);
      // Planned first, on a read-only look, so a refusal neither creates nor writes the file.
      if (upgradePlan(from, target).length === 0) {
        out(`already at ${label(from)}; nothing to upgrade`);
        return;
      }
      const applied = withDatabase(path, (sqlite) => upgrade(sqlite, target));
      out(`upgraded: ${applied.map(label).join(' -> ')}`);
      return;
    }
    case 'downgrade': {
      needs(command, 1, 'one target: a revision id or base');
      const [target] = command.args as [string];
      const path = needDb(command);
      mustExist(path);
      const from = revisionOfFile(path);
      if (downgradePlan(from, target).length === 0) {
        out(`already at ${label(from)}; nothing to downgrade`);
        return;
      }
      const reverted = withDatabase(path, (sqlite) => downgrade(sqlite, target));
      const now = REVISIONS.find((r) => r.id === reverted.at(-1))?.parent ?? null;
      out(`downgraded: reverted ${reverted.join(', ')}; now at ${label(now)}`);
      return;
    }
    case 'current': {
      needs(command, 0, 'no argument');
      const path = needDb(command);
      mustExist(path);
      const revision = revisionOfFile(path);
      // Refuse a stamp this build does not know, as upgrade and downgrade would.
      upgradePlan(revision, 'head');
      out(`current: ${label(revision)}`);
      return;
    }
    case 'history': {
      needs(command, 0, 'no argument');
      if (command.db !== undefined) throw new UsageError('history takes no --db.');
      for (const revision of [...REVISIONS].reverse()) {
        out(`${revision.parent ?? '<base>'} -> ${label(revision.id)}, ${revision.description}`);
      }
      return;
    }
    default:
      throw new UsageError(`Unknown command ${command.name}.`);
  }
}

export interface Output {
  out(text: string): void;
  err(text: string): void;
}

/** Runs one command; returns the exit code. */
export function main(argv: readonly string[], output: Output): number {
  try {
    run(parse(argv), (line) => output.out(`${line}\n`));
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    output.err(`${message}\n${error instanceof UsageError ? `${USAGE}\n` : ''}`);
    return 1;
  }
}
