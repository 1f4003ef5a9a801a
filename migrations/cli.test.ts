// `npm run db -- <command>` on database files in a temporary folder: each command's output and
// exit code, and the refusals, which must leave the file as it was (or not create it). The
// commands run in-process through main() (a spawn costs a second of start-up, mostly loading
// drizzle); a few are also spawned as a user runs them, Node 24 with tsx's loader, to prove
// the process wiring: stdout, stderr, exit code.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../db/client';
import { main } from './commands';
import { currentRevision, upgrade } from './runner';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tern-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
const newPath = () => join(dir, `db-${++files}.db`);

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** The command run in-process. */
function db(...args: string[]): Result {
  let stdout = '';
  let stderr = '';
  const code = main(args, { out: (text) => (stdout += text), err: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

/** The command run as a process, as `npm run db -- ...` runs it. */
function spawned(...args: string[]): Promise<Result> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'migrations/cli.ts', ...args], { cwd: ROOT }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** A database file stamped at `revision`, made without the CLI. */
function databaseAt(revision: string | null, stampUnknown?: string): string {
  const path = newPath();
  const sqlite = openSqlite(path);
  if (revision) upgrade(sqlite, revision);
  if (stampUnknown) sqlite.prepare('UPDATE alembic_version SET version_num = ?').run(stampUnknown);
  sqlite.close();
  return path;
}

function revisionOf(path: string): string | null {
  const sqlite = openSqlite(path, { readonly: true });
  try {
    return currentRevision(sqlite);
  } finally {
    sqlite.close();
  }
}

const ok = (stdout: string): Result => ({ code: 0, stdout: `${stdout}\n`, stderr: '' });

describe('npm run db', () => {
  it('history lists the revisions newest first, parent -> id, with the head marked', () => {
    expect(db('history')).toEqual(
      ok(
        [
          '4a475cedd483 -> ae35abd14d3a (head), indexes: follow requests newest first, webmentions by post, where actors receive, deliveries waiting',
          '5d0e8a3c71f4 -> 4a475cedd483, indexes: own posts counted, bookmarks, favourites, direct posts',
          '70cce0da20c3 -> 5d0e8a3c71f4, datetimes stored as UTC text, required JSON holds an object',
          'd58a0b6c3e27 -> 70cce0da20c3, indexes: replies with what the thread reads, standing Follows by actor',
          'c41f7a2e9d15 -> d58a0b6c3e27, indexes for pages at scale',
          'b3e1c5a7d902 -> c41f7a2e9d15, full-text search',
          '9519a2c5ec87 -> b3e1c5a7d902, optional JSON columns take NULL',
          'e7c3a9d51b20 -> 9519a2c5ec87, index: likes and boosts of a post counted from the index alone',
          '0d4f0c70f784 -> e7c3a9d51b20, indexes: attachment upload_id, notification webmention_id, sent webmentions, poll votes by actor',
          '4ab54becec04 -> 0d4f0c70f784, indexes: in_reply_to, inbox relates_to_outbox_object_id, due incoming_activity',
          '9b404c47970a -> 4ab54becec04, oauth_client',
          'f5717d82b3ff -> 9b404c47970a, outside the spec: intentionally empty',
          '<base> -> f5717d82b3ff, initial: the fifteen records of the spec',
        ].join('\n'),
      ),
    );
  });

  it('upgrade head creates a new database, applies the whole chain and says so; again, it has nothing to do', () => {
    const path = newPath();
    expect(db('upgrade', 'head', '--db', path)).toEqual(ok('upgraded: f5717d82b3ff -> 9b404c47970a -> 4ab54becec04 -> 0d4f0c70f784 -> e7c3a9d51b20 -> 9519a2c5ec87 -> b3e1c5a7d902 -> c41f7a2e9d15 -> d58a0b6c3e27 -> 70cce0da20c3 -> 5d0e8a3c71f4 -> 4a475cedd483 -> ae35abd14d3a (head)'));
    expect(revisionOf(path)).toBe('ae35abd14d3a');
    expect(db('upgrade', 'head', '--db', path)).toEqual(ok('already at ae35abd14d3a (head); nothing to upgrade'));
  });

  it('upgrade <rev> stops at that revision; current reports it', () => {
    const path = newPath();
    expect(db('upgrade', 'f5717d82b3ff', '--db', path)).toEqual(ok('upgraded: f5717d82b3ff'));
    expect(db('current', '--db', path)).toEqual(ok('current: f5717d82b3ff'));
  });

  it('current reports the head as such', () => {
    expect(db('current', '--db', databaseAt('head'))).toEqual(ok('current: ae35abd14d3a (head)'));
  });

  it('current reports base for a database without revision', () => {
    expect(db('current', '--db', databaseAt(null))).toEqual(ok('current: base'));
  });

  it('downgrade <rev> reverts down to it, downgrade base reverts the rest', () => {
    const path = databaseAt('head');
    expect(db('downgrade', '9b404c47970a', '--db', path)).toEqual(ok('downgraded: reverted ae35abd14d3a, 4a475cedd483, 5d0e8a3c71f4, 70cce0da20c3, d58a0b6c3e27, c41f7a2e9d15, b3e1c5a7d902, 9519a2c5ec87, e7c3a9d51b20, 0d4f0c70f784, 4ab54becec04; now at 9b404c47970a'));
    expect(db('downgrade', 'base', '--db', path)).toEqual(ok('downgraded: reverted 9b404c47970a, f5717d82b3ff; now at base'));
    expect(revisionOf(path)).toBeNull();
  });

  it('an unknown target revision is refused on stderr with exit code 1, and a new file is not created', () => {
    const path = newPath();
    const result = db('upgrade', 'deadbeef0000', '--db', path);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toContain('Unknown revision deadbeef0000');
    expect(existsSync(path)).toBe(false);
  });

  it('an unknown downgrade target is refused and the database is left as it was', () => {
    const path = databaseAt('head');
    const bytes = readFileSync(path);
    const result = db('downgrade', 'deadbeef0000', '--db', path);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toContain('Unknown revision deadbeef0000');
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  it('a database at a revision this build does not know (a209f0333f5a) is refused by upgrade, downgrade and current, untouched', () => {
    const path = databaseAt('head', 'a209f0333f5a');
    const bytes = readFileSync(path);
    for (const args of [['upgrade', 'head'], ['downgrade', 'base'], ['current']]) {
      const result = db(...args, '--db', path);
      expect(result).toMatchObject({ code: 1, stdout: '' });
      expect(result.stderr).toContain('The database is at revision a209f0333f5a, which this build of Tern does not know');
    }
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  it('an upgrade to an older revision is refused', () => {
    const result = db('upgrade', 'f5717d82b3ff', '--db', databaseAt('head'));
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toContain('Cannot upgrade to f5717d82b3ff: the database is at ae35abd14d3a');
  });

  it('current and downgrade on a path with no database are refused and do not create it', () => {
    const path = newPath();
    for (const args of [['current'], ['downgrade', 'base']]) {
      const result = db(...args, '--db', path);
      expect(result).toMatchObject({ code: 1, stdout: '' });
      expect(result.stderr).toContain(`There is no database at ${path}.`);
    }
    expect(existsSync(path)).toBe(false);
  });

  it('a command that needs --db is refused without it', () => {
    const result = db('upgrade', 'head');
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(/^upgrade needs --db PATH\.\nusage: npm run db -- <command>/);
  });

  it('an unknown command, or none, is refused with the usage', () => {
    const unknown = db('migrate', '--db', newPath());
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toMatch(/^Unknown command migrate\.\nusage:/);
    const none = db();
    expect(none).toMatchObject({ code: 1, stdout: '' });
    expect(none.stderr).toMatch(/^No command given\.\nusage:/);
  });
});

describe.concurrent('npm run db, spawned', () => {
  it('upgrade head --db PATH creates and migrates the file, exit 0', async () => {
    const path = newPath();
    expect(await spawned('upgrade', 'head', '--db', path)).toEqual(ok('upgraded: f5717d82b3ff -> 9b404c47970a -> 4ab54becec04 -> 0d4f0c70f784 -> e7c3a9d51b20 -> 9519a2c5ec87 -> b3e1c5a7d902 -> c41f7a2e9d15 -> d58a0b6c3e27 -> 70cce0da20c3 -> 5d0e8a3c71f4 -> 4a475cedd483 -> ae35abd14d3a (head)'));
    expect(revisionOf(path)).toBe('ae35abd14d3a');
  });

  it('a database at an unknown revision: the sentence on stderr, exit 1, file untouched', async () => {
    const path = databaseAt('head', 'a209f0333f5a');
    const bytes = readFileSync(path);
    const result = await spawned('downgrade', 'base', '--db', path);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toContain('The database is at revision a209f0333f5a, which this build of Tern does not know');
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });
});
