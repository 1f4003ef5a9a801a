// A small ustar writer and reader for Tern's backup archives: regular files and directories
// only. The reader is strict because an archive is input from outside: it refuses absolute
// paths, `..`, links and devices, bad header checksums, and entries over a size cap, so no
// entry can land outside the folder it is extracted into.
import { BadInputError } from '../errors';
import { withoutTrailingSlashes } from '../trailing-slashes';

export interface TarEntry {
  /** Relative, '/'-separated; a directory's name has no trailing slash here. */
  name: string;
  type: 'file' | 'directory';
  /** Permission bits (0o600, 0o700, …). */
  mode: number;
  mtime: Date;
  /** Empty for directories. */
  data: Buffer;
}

/** Largest size the 11-digit octal field holds (8 GiB - 1). */
export const MAX_OCTAL_SIZE = 0o77777777777;
/** The size of a tar block: headers, and data padded up to it. */
export const BLOCK = 512;

/** Serialises entries as an uncompressed ustar archive (two zero blocks at the end). */
export function writeTar(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const data = entry.type === 'directory' ? Buffer.alloc(0) : entry.data;
    parts.push(tarHeader(entry, data.length));
    if (data.length > 0) parts.push(data, tarPadding(data.length));
  }
  parts.push(TAR_END);
  return Buffer.concat(parts);
}

/** The zero blocks that end an archive. */
export const TAR_END: Buffer = Buffer.alloc(BLOCK * 2);

/** The zeros after `size` bytes of data, up to the next block. */
export function tarPadding(size: number): Buffer {
  return Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);
}

/** One entry's header block, for a writer that streams the data after it (backup.ts). */
export function tarHeader(entry: Pick<TarEntry, 'name' | 'type' | 'mode' | 'mtime'>, size: number): Buffer {
  checkName(entry.name);
  if (size > MAX_OCTAL_SIZE) throw new BadInputError(`${entry.name} is too large for a backup archive.`);
  return header(entry, entry.type === 'directory' ? 0 : size);
}

function header(entry: Pick<TarEntry, 'name' | 'type' | 'mode' | 'mtime'>, size: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  const fullName = entry.type === 'directory' ? `${entry.name}/` : entry.name;
  const [prefix, name] = splitName(fullName);
  block.write(name, 0, 100, 'utf8');
  writeOctal(block, 100, 8, entry.mode & 0o7777);
  writeOctal(block, 108, 8, 0);
  writeOctal(block, 116, 8, 0);
  writeOctal(block, 124, 12, size);
  writeOctal(block, 136, 12, Math.floor(entry.mtime.getTime() / 1000));
  block.fill(0x20, 148, 156); // the checksum field counts as spaces while summing
  block.write(entry.type === 'directory' ? '5' : '0', 156, 1, 'ascii');
  block.write('ustar\0', 257, 6, 'ascii');
  block.write('00', 263, 2, 'ascii');
  block.write(prefix, 345, 155, 'utf8');
  writeOctal(block, 148, 7, checksum(block));
  block[155] = 0x20;
  return block;
}

/** ustar's name (100 bytes) and prefix (155 bytes), split at a '/'. */
function splitName(name: string): [string, string] {
  if (Buffer.byteLength(name) <= 100) return ['', name];
  for (let i = name.indexOf('/'); i !== -1; i = name.indexOf('/', i + 1)) {
    const prefix = name.slice(0, i);
    const rest = name.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(rest) <= 100 && rest !== '') return [prefix, rest];
  }
  throw new BadInputError(`The path ${name} is too long for a backup archive.`);
}

function writeOctal(block: Buffer, offset: number, length: number, value: number): void {
  block.write(value.toString(8).padStart(length - 1, '0') + '\0', offset, length, 'ascii');
}

function checksum(block: Buffer): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (block[i] ?? 0);
  return sum;
}

export interface ReadTarOptions {
  /** Largest entry accepted, in bytes. */
  maxEntryBytes: number;
}

/** An entry's header, read from its block (the data follows, padded to a block). */
export interface TarHeader {
  name: string;
  type: 'file' | 'directory';
  mode: number;
  mtime: Date;
  /** Bytes of data after the header (0 for a directory). */
  size: number;
}

/** Parses one header block: null for the end marker (a zero block); throws BadInputError for
 * anything the reader does not accept. */
export function parseTarHeader(block: Buffer, options: ReadTarOptions): TarHeader | null {
  if (block.every((byte) => byte === 0)) return null;
  if (readOctal(block, 148, 8) !== checksum(block)) throw new BadInputError('The backup archive is damaged (a header checksum does not match).');
  const name = cString(block, 0, 100);
  const prefix = block.toString('ascii', 257, 262) === 'ustar' ? cString(block, 345, 155) : '';
  const fullName = prefix === '' ? name : `${prefix}/${name}`;
  const flag = String.fromCharCode(block[156] ?? 0);
  const type = flag === '0' || flag === '\0' ? 'file' : flag === '5' ? 'directory' : null;
  if (type === null) throw new BadInputError(`The backup archive holds ${fullName}, which is not a plain file or folder (links are refused).`);
  const clean = type === 'directory' ? withoutTrailingSlashes(fullName) : fullName;
  checkName(clean);
  const size = readOctal(block, 124, 12);
  if (size > options.maxEntryBytes) throw new BadInputError(`The backup archive holds ${clean}, which is larger than Tern accepts.`);
  if (type === 'directory' && size !== 0) throw new BadInputError('The backup archive is damaged (a folder has data).');
  return { name: clean, type, mode: readOctal(block, 100, 8) & 0o777, mtime: new Date(readOctal(block, 136, 12) * 1000), size };
}

/** Parses an uncompressed ustar archive held in memory; throws BadInputError for anything it
 * does not accept. */
export function readTar(archive: Buffer, options: ReadTarOptions): TarEntry[] {
  const entries: TarEntry[] = [];
  let offset = 0;
  while (offset + BLOCK <= archive.length) {
    const header = parseTarHeader(archive.subarray(offset, offset + BLOCK), options);
    if (header === null) return entries;
    const start = offset + BLOCK;
    if (start + header.size > archive.length) throw new BadInputError('The backup archive is cut short.');
    const { size, ...entry } = header;
    entries.push({ ...entry, data: Buffer.from(archive.subarray(start, start + size)) });
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
  }
  throw new BadInputError('The backup archive is cut short (no end marker).');
}

function cString(block: Buffer, offset: number, length: number): string {
  const field = block.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return field.toString('utf8', 0, end === -1 ? length : end);
}

function readOctal(block: Buffer, offset: number, length: number): number {
  const text = block.toString('ascii', offset, offset + length).replace(/[\0 ]+$/, '').trim();
  if (!/^[0-7]+$/.test(text)) throw new BadInputError('The backup archive is damaged (a header field is not a number).');
  return parseInt(text, 8);
}

/** Refuses names that could escape the folder they are extracted into. */
function checkName(name: string): void {
  const parts = name.split('/');
  if (
    name === '' ||
    name.startsWith('/') ||
    /^[A-Za-z]:/.test(name) ||
    name.includes('\\') ||
    name.includes('\0') ||
    parts.some((part) => part === '..' || part === '.' || part === '')
  ) {
    throw new BadInputError(`The backup archive holds an unsafe path (${JSON.stringify(name)}); it was refused.`);
  }
}
