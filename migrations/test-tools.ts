// Test support: running one SQL statement on a database file through each tool that opens
// Tern's database — the system `sqlite3` shell and python3's sqlite3 module (SQLite 3.40 on
// Debian 12, here and in CI) and better-sqlite3 (Tern's, newer). Not imported by production code.
import { spawnSync } from 'node:child_process';
import { openSqlite } from '../db/client';

/** Runs one statement through a tool; null when it succeeded, else the tool's error. */
export type Tool = (db: string, statement: string) => string | null;

export const shell: Tool = (db, statement) => {
  const r = spawnSync('sqlite3', ['-bail', db, statement], { encoding: 'utf8' });
  return r.status === 0 ? null : r.stderr.trim() || `exit ${r.status}`;
};

export const python: Tool = (db, statement) => {
  const code = 'import sqlite3,sys\nc=sqlite3.connect(sys.argv[1])\nc.execute(sys.argv[2])\nc.commit()';
  const r = spawnSync('python3', ['-c', code, db, statement], { encoding: 'utf8' });
  return r.status === 0 ? null : r.stderr.trim().split('\n').at(-1) ?? `exit ${r.status}`;
};

export const betterSqlite: Tool = (db, statement) => {
  const sqlite = openSqlite(db);
  try {
    sqlite.exec(statement);
    return null;
  } catch (error) {
    return (error as Error).message;
  } finally {
    sqlite.close();
  }
};

export const TOOLS: [string, Tool][] = [
  ['the sqlite3 shell', shell],
  ["python3's sqlite3 module", python],
  ['better-sqlite3', betterSqlite],
];

/** The SQLite version of the shell or of python3's module; null when the tool is absent. */
export function versionOf(tool: 'shell' | 'python'): string | null {
  const r =
    tool === 'shell'
      ? spawnSync('sqlite3', ['-version'], { encoding: 'utf8' })
      : spawnSync('python3', ['-c', 'import sqlite3;print(sqlite3.sqlite_version)'], { encoding: 'utf8' });
  return r.status === 0 ? (r.stdout.split(' ')[0] ?? '').trim() : null;
}

/** The tools that are here; the others are named on stdout as skipped, with the reason. */
export function presentTools(): [string, Tool][] {
  const missing = [
    ['the sqlite3 shell', versionOf('shell')],
    ["python3's sqlite3 module", versionOf('python')],
  ].filter(([, version]) => version === null);
  for (const [name] of missing) console.log(`skipped: ${name} is not installed`);
  return TOOLS.filter(([name]) => !missing.some(([m]) => m === name));
}
