// multipart/form-data (RFC 7578) read as its chunks arrive, never as one piece. The Web Request's
// formData() parses a whole body in one synchronous call, and its files are read back with
// arrayBuffer() in another: with the body's own assembly, a 65 MiB upload held the main thread
// for 450 ms in one turn. Here each chunk is looked at once, as it comes off the socket (a native
// indexOf for the delimiter), and a file part keeps its bytes as the chunks' own subarrays: an
// UploadedFile whose pieces saveUploadFile writes to disk as they are. Only a file's bytes that
// came in small pieces are copied, once, into pieces of PIECE_BYTES. Parts are counted, and the
// fields' text and every part's headers bounded, while the body arrives, so a body over a bound
// is refused before it is whole.
import { UploadedFile } from '../media/uploaded-file';

/** Why a body was refused, with the status to answer. */
export class MultipartError extends Error {
  override name = 'MultipartError';
  constructor(
    message: string,
    readonly status: 400 | 413,
  ) {
    super(message);
  }
}

export interface MultipartLimits {
  /** The most parts. */
  parts: number;
  /** The most bytes of all the parts that are not files, together. */
  fieldBytes: number;
}

/** A part's headers: a name, maybe a filename and a type — tens of bytes in real clients. */
const MAX_HEADER_BYTES = 16 * 1024;
const CRLF = Buffer.from('\r\n');
const HEADERS_END = Buffer.from('\r\n\r\n');
const NOTHING = Buffer.alloc(0);

/**
 * The smallest piece of a file kept as its chunk's subarray. Socket chunks are up to 64 KiB; a
 * smaller piece (a trickle of tiny chunks, a part's first or last bytes) is copied into a run of
 * this size shared with its neighbours, so that a file is never thousands of tiny arrays (each
 * costs more than its bytes) nor keeps a large chunk alive for a few of its bytes.
 */
export const PIECE_BYTES = 16 * 1024;

/** A part's name and value: a field's text, or a file. */
export type FormEntry = [name: string, value: string | UploadedFile];

/** A file part's bytes as pieces: subarrays of its chunks, small ones gathered into runs. */
function filePieces() {
  const pieces: Uint8Array[] = [];
  let run: Buffer | null = null;
  let filled = 0;
  // A run closed before it is full (the part ends, or a large piece follows) keeps its
  // PIECE_BYTES for fewer bytes: at most once per part and once per large piece.
  const close = () => {
    if (run !== null && filled > 0) pieces.push(run.subarray(0, filled));
    run = null;
    filled = 0;
  };
  return {
    add(bytes: Buffer) {
      if (bytes.length >= PIECE_BYTES) {
        close();
        pieces.push(bytes);
        return;
      }
      while (bytes.length > 0) {
        // Unpooled: a pooled Buffer's slab would be shared with whatever else took from the pool.
        run ??= Buffer.allocUnsafeSlow(PIECE_BYTES);
        const copied = bytes.copy(run, filled);
        filled += copied;
        bytes = bytes.subarray(copied);
        if (filled === PIECE_BYTES) close();
      }
    },
    end(): Uint8Array[] {
      close();
      return pieces;
    },
  };
}

interface Part {
  name: string;
  filename: string | null;
  type: string;
  /** A file's pieces, or a field's bytes (subarrays of its chunks, decoded when it ends). */
  bytes: ReturnType<typeof filePieces> | Buffer[];
}

/**
 * A quoted or token parameter value as clients write it. Browsers (the HTML standard's
 * multipart/form-data encoding) send `"`, CR and LF as %22, %0D and %0A and a backslash as it is;
 * Go and others escape `"` and `\` with a backslash. Both are read back: %22 %0D %0A decoded, as
 * undici's formData did, and `\"` and `\\` unescaped; any other backslash is kept (C:\p\f.jpg).
 */
function paramValue(quoted: string | undefined, token: string): string {
  if (quoted === undefined) return token;
  return quoted.replace(/\\(["\\])/g, '$1').replace(/%(22|0d|0a)/gi, (escape) => String.fromCharCode(parseInt(escape.slice(1), 16)));
}

/** An RFC 8187 ext-value (`UTF-8''%C3%A9t%C3%A9.jpg`), decoded; '' when it cannot be. */
function extValue(value: string): string {
  const m = /^([^']*)'[^']*'(.*)$/.exec(value);
  if (!m) return '';
  try {
    if (m[1]!.toLowerCase() === 'utf-8') return decodeURIComponent(m[2]!);
    // ISO-8859-1, the other charset the RFC names: each %XX is one character.
    return m[2]!.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  } catch {
    return '';
  }
}

/** The parameters of a Content-Disposition header (quoted or token values). A part with only
 * `filename*` (old urllib3 sends that) is a file too, named by it. */
function dispositionOf(value: string): { name: string | null; filename: string | null } | null {
  if (!/^\s*form-data\s*(;|$)/i.test(value)) return null;
  let name: string | null = null;
  let filename: string | null = null;
  let filenameStar: string | null = null;
  for (const m of value.matchAll(/;\s*([^=\s;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))/g)) {
    const key = m[1]!.toLowerCase();
    const raw = paramValue(m[2], m[3] ?? '');
    if (key === 'name') name = raw;
    else if (key === 'filename') filename = raw;
    else if (key === 'filename*') filenameStar = extValue(m[2] ?? m[3] ?? '');
  }
  return { name, filename: filename ?? filenameStar };
}

export interface MultipartReader {
  /** Reads the next chunk of the body, which the reader then owns (a file keeps subarrays of
   * it); throws MultipartError when the body breaks a bound or the format. */
  push(chunk: Uint8Array): void;
  /** The parts in order, once the body has ended; throws MultipartError if it ended early. */
  end(): FormEntry[];
}

export function multipartReader(boundary: string, limits: MultipartLimits): MultipartReader {
  // The body is read as if it began with CRLF, so the first delimiter is found like the others.
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  // A delimiter not wholly within what has come may begin in its last `keep` bytes.
  const keep = delimiter.length - 1;
  const entries: FormEntry[] = [];
  let state: 'preamble' | 'after-delimiter' | 'headers' | 'body' | 'done' = 'preamble';
  // In the preamble or a part: the bytes not yet known to be outside a delimiter, as subarrays
  // of the chunks they came in — the last chunk, and before it fewer than `keep` bytes.
  let held: Buffer[] = [CRLF];
  let heldBytes = CRLF.length;
  // After a delimiter or in a part's headers, when they straddle chunks: the bytes so far (a
  // copy of at most 16 KiB of headers).
  let head: Buffer = NOTHING;
  let parts = 0;
  let fieldBytes = 0;
  let part: Part | null = null;

  const take = (bytes: Buffer) => {
    if (bytes.length === 0 || part === null) return;
    if (!Array.isArray(part.bytes)) {
      part.bytes.add(bytes);
      return;
    }
    fieldBytes += bytes.length;
    if (fieldBytes > limits.fieldBytes) throw new MultipartError(`the multipart body's fields are larger than ${limits.fieldBytes} bytes in all`, 413);
    part.bytes.push(bytes);
  };

  const finish = () => {
    if (part === null) return;
    if (Array.isArray(part.bytes)) entries.push([part.name, new TextDecoder().decode(Buffer.concat(part.bytes))]);
    else entries.push([part.name, new UploadedFile(part.filename!, part.type, part.bytes.end())]);
    part = null;
  };

  const startPart = (text: string) => {
    if (++parts > limits.parts) throw new MultipartError(`the multipart body has more than ${limits.parts} parts`, 400);
    let disposition: ReturnType<typeof dispositionOf> = null;
    let type = '';
    for (const line of text.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon === -1) continue;
      const key = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (key === 'content-disposition') disposition = dispositionOf(value);
      else if (key === 'content-type') type = value;
    }
    if (disposition?.name == null) throw new MultipartError('a multipart part has no Content-Disposition: form-data with a name', 400);
    part = { name: disposition.name, filename: disposition.filename, type, bytes: disposition.filename === null ? [] : filePieces() };
  };

  /** The first `n` held bytes are the part's (or the preamble's); the rest begin a delimiter. */
  const release = (n: number) => {
    for (const bytes of held) {
      if (n <= 0) break;
      take(bytes.subarray(0, n));
      n -= bytes.length;
    }
    held = [];
    heldBytes = 0;
  };

  /** The last `n` held bytes, as subarrays. */
  const heldTail = (n: number): Buffer[] => {
    const tail: Buffer[] = [];
    for (let i = held.length - 1; n > 0; i--) {
      const bytes = held[i]!.subarray(Math.max(0, held[i]!.length - n));
      tail.unshift(bytes);
      n -= bytes.length;
    }
    return tail;
  };

  /** A delimiter has ended: `rest` is what follows it. */
  const delimited = (rest: Buffer): Buffer => {
    finish();
    state = 'after-delimiter';
    return rest;
  };

  /** In the preamble or a part: looks for the delimiter that ends it, in the held bytes and
   * `bytes`. Returns what follows a delimiter, or nothing when none has ended yet. */
  const scan = (bytes: Buffer): Buffer => {
    // A delimiter begun in the held bytes and ending in this chunk: only the last `keep` held
    // bytes and the first `keep` of the chunk are joined to look (a copy of fewer than two
    // delimiters, dropped at once). Its first match, if any, is the earliest delimiter.
    const tail = Math.min(heldBytes, keep);
    const across = tail === 0 ? -1 : Buffer.concat([...heldTail(tail), bytes.subarray(0, keep)]).indexOf(delimiter);
    if (across !== -1 && across < tail) {
      release(heldBytes - tail + across);
      return delimited(bytes.subarray(across + delimiter.length - tail));
    }
    const at = bytes.indexOf(delimiter);
    if (at !== -1) {
      release(heldBytes);
      take(bytes.subarray(0, at));
      return delimited(bytes.subarray(at + delimiter.length));
    }
    // No delimiter yet: the chunk is held, uncopied, until the next shows whether one begins in
    // its last bytes. Held chunks before the last `keep` bytes are the part's now.
    held.push(bytes);
    heldBytes += bytes.length;
    while (heldBytes - held[0]!.length >= keep) {
      const first = held.shift()!;
      heldBytes -= first.length;
      take(first);
    }
    return NOTHING;
  };

  /** Reads from the start of `bytes` as far as the state allows; returns what is left. */
  const step = (bytes: Buffer): Buffer => {
    switch (state) {
      case 'preamble':
      case 'body':
        return scan(bytes);
      case 'after-delimiter': {
        const used = 2 - head.length;
        const next = Buffer.concat([head, bytes.subarray(0, used)]);
        if (next.length < 2) {
          head = next;
          return NOTHING;
        }
        head = NOTHING;
        if (next[0] === 0x2d && next[1] === 0x2d) {
          // The epilogue is ignored (RFC 2046 §5.1.1).
          state = 'done';
          return NOTHING;
        }
        if (next[0] !== 0x0d || next[1] !== 0x0a) throw new MultipartError('the multipart body is malformed (a delimiter is not followed by CRLF)', 400);
        state = 'headers';
        return bytes.subarray(used);
      }
      case 'headers': {
        // Headers within one chunk are looked at in place; only headers that straddle chunks
        // are joined (a copy bounded by MAX_HEADER_BYTES).
        const seen = head.length === 0 ? bytes : Buffer.concat([head, bytes.subarray(0, MAX_HEADER_BYTES + HEADERS_END.length)]);
        // A part with no headers has its blank line right away.
        const at = seen[0] === 0x0d && seen[1] === 0x0a ? -2 : seen.indexOf(HEADERS_END);
        if ((at === -1 ? seen.length : at) > MAX_HEADER_BYTES) throw new MultipartError(`a multipart part's headers are longer than ${MAX_HEADER_BYTES} bytes`, 400);
        if (at === -1) {
          head = head.length === 0 ? Buffer.from(seen) : seen;
          return NOTHING;
        }
        startPart(at === -2 ? '' : seen.subarray(0, at).toString('utf8'));
        const used = at + HEADERS_END.length - head.length;
        head = NOTHING;
        state = 'body';
        return bytes.subarray(used);
      }
      case 'done':
        return NOTHING;
    }
  };

  return {
    push(chunk) {
      let bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      while (bytes.length > 0 && state !== 'done') bytes = step(bytes);
    },
    end() {
      if (state !== 'done') throw new MultipartError('the multipart body ended before its closing delimiter', 400);
      return entries;
    },
  };
}
