// Where Tern keeps its data: one folder holding the database, keys, settings, uploads and
// backups. Desktop and headless modes use the same default folder, so both see one author.
import { homedir } from 'node:os';
import { join, posix, win32 } from 'node:path';

/** The default data folder of this OS (Electron's userData convention, without Electron). */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.TERN_DATA_DIR) return env.TERN_DATA_DIR;
  const home = homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'Tern');
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Tern');
  return join(env.XDG_DATA_HOME ?? join(home, '.local', 'share'), 'tern');
}

/** This OS's per-user cache folder for Tern: what can be built again and is never backed up
 * (V8's compiled code of the bundles). Not the temp folder, which other users can write to. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const home = homedir();
  // A variable that is empty or relative is not a place (the XDG rule): the default is.
  const given = (value: string | undefined) => (value !== undefined && (platform === 'win32' ? win32.isAbsolute(value) : posix.isAbsolute(value)) ? value : undefined);
  if (platform === 'darwin') return join(home, 'Library', 'Caches', 'Tern');
  if (platform === 'win32') return join(given(env.LOCALAPPDATA) ?? join(home, 'AppData', 'Local'), 'Tern', 'Cache');
  return join(given(env.XDG_CACHE_HOME) ?? join(home, '.cache'), 'tern');
}

export interface DataPaths {
  dir: string;
  database: string;
  backups: string;
  keys: string;
  uploads: string;
  settings: string;
}

export function dataPaths(dir: string): DataPaths {
  return {
    dir,
    database: join(dir, 'tern.db'),
    backups: join(dir, 'backups'),
    keys: join(dir, 'keys'),
    uploads: join(dir, 'uploads'),
    settings: join(dir, 'settings.json'),
  };
}
