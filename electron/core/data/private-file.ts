// Writing the author's data to disk: a new file readable by the user alone (0600, its folder
// 0700), written in full or not at all (temp file, fsync, rename). A write that fails part-way
// (a full disk, a file-size limit) removes its temp file rather than leave a partial archive
// behind; one left by a crash is removed at the next start (swap.ts recoverDataFolder).
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { Readable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { dirname } from 'node:path';

export async function writePrivateFile(path: string, data: Buffer): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx', 0o600);
  try {
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** writePrivateFile for data that comes as a stream (an export, a backup): the same temp file,
 * fsync and rename, the temp removed on failure. `through` (a gzip) sits between the data and
 * the file, in one pipeline, so an error anywhere ends the write; `check` reads the written temp
 * file before it is renamed into place (a backup's gzip trailer). Returns the bytes written. */
export async function writePrivateStream(
  path: string,
  data: Readable | AsyncIterable<Buffer>,
  options: { through?: Transform; check?: (file: FileHandle) => Promise<void> } = {},
): Promise<number> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const out = createWriteStream(temp, { flags: 'wx', mode: 0o600 });
    if (options.through) await pipeline(data, options.through, out);
    else await pipeline(data, out);
    const handle = await open(temp, 'r+');
    try {
      await handle.sync();
      await options.check?.(handle);
    } finally {
      await handle.close();
    }
    await rename(temp, path);
    return out.bytesWritten;
  } catch (error) {
    if (data instanceof Readable) data.destroy();
    await rm(temp, { force: true });
    throw error;
  }
}
