// Node's on-disk compile cache for the worker threads that load Tern's bundles: where it is
// kept (a folder private to this user, in Tern's cache folder), when there is none, and the
// environment that turns it on in a worker (worker-host.ts entryOptions).
import { chmodSync, lstatSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { defaultCacheDir } from './paths';

/**
 * The environment of a worker that runs a bundle: the process's, with Node's on-disk compile
 * cache (NODE_COMPILE_CACHE) in Tern's cache folder (compileCacheFolder), unless the user set
 * one or there is none. A worker compiles its whole bundle (6–7 MB) each time it starts: the
 * delivery worker with a post's rows, the inbox checks worker with the first POST after a quiet
 * spell. Measured here (Node 24, the delivery worker's bundle, from its start to ready): 266–366
 * ms and 308–404 ms of CPU, against 210–212 ms and 254–261 ms from the cache. Node checks each
 * entry against the source it was made from; a stale one is made again.
 * (module.enableCompileCache() in the main thread does not reach workers; the variable does.)
 */
export function bundleWorkerEnv(env: NodeJS.ProcessEnv = process.env, folder: string | null = processCompileCacheFolder()): NodeJS.ProcessEnv {
  if (env.NODE_COMPILE_CACHE !== undefined || folder === null) return { ...env };
  return { ...env, NODE_COMPILE_CACHE: folder };
}

let processFolder: string | null | undefined;
/** compileCacheFolder of this process, worked out at its first worker. */
function processCompileCacheFolder(): string | null {
  if (processFolder === undefined) processFolder = compileCacheFolder();
  return processFolder;
}

/**
 * `<cache folder>/compile`, made now and private to this user, or null where Tern keeps no
 * compile cache. What is in it is code the workers run (Node checks an entry's checksums, not
 * who wrote it), so:
 *  - only a folder of this user's that nobody else may write to (0700; its parent not writable
 *    by others); a relative cache folder (an empty XDG_CACHE_HOME) has none;
 *  - not in the desktop app: Electron's fuses check the app's own code, and the cache would be a
 *    way round them (nor is it known whether Electron's Node reads the variable in workers);
 *  - not in an AppImage: it runs from a new mount folder at each launch, and Node names entries
 *    by the script's path, so they would pile up unused.
 */
export function compileCacheFolder(
  env: NodeJS.ProcessEnv = process.env,
  base: string = defaultCacheDir(env),
  runtime: { electron: boolean } = { electron: process.versions.electron !== undefined },
): string | null {
  if (runtime.electron || env.APPIMAGE !== undefined || !isAbsolute(base)) return null;
  return privateFolder(base);
}

function privateFolder(base: string): string | null {
  const folder = join(base, 'compile');
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const uid = process.getuid?.();
    const parent = lstatSync(base);
    const own = lstatSync(folder);
    if (!parent.isDirectory() || !own.isDirectory()) return null;
    if (uid !== undefined) {
      if (parent.uid !== uid || own.uid !== uid || (parent.mode & 0o022) !== 0) return null;
      if ((own.mode & 0o077) !== 0) chmodSync(folder, 0o700);
    }
    // Node keeps each version's entries apart (v24.21.0-x64-<flags>-<uid>): those of another
    // version (Tern's runtime updated since) are never read again.
    const current = `v${process.versions.node}-${process.arch}-`;
    for (const name of readdirSync(folder)) {
      if (!/^v\d+\.\d+\.\d+-/.test(name) || name.startsWith(current)) continue;
      try {
        rmSync(join(folder, name), { recursive: true, force: true });
      } catch {
        // left for another start: the cache still serves this version
      }
    }
    return folder;
  } catch {
    return null; // no cache, as before (a read-only home, a full disk)
  }
}
