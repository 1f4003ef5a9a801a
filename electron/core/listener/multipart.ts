// multipart/form-data (RFC 7578) read as its chunks arrive, never as one piece. The Web Request's
// formData() parses a whole body in one synchronous call, and its files are read back with
// arrayBuffer() in another: with the body's own assembly, a 65 MiB upload held the main thread
// for 450 ms in one turn. Here each chunk is looked at once, as it comes off the socket (a native
// indexOf for the delimiter), and a file's bytes are copied once, into a Blob per chunk: a file
// part becomes a File made of those Blobs, which its reader streams without ever holding it in
// one buffer. Parts are counted, and the fields' text and every part's headers bounded, while
// the body arrives, so a body over a bound is refused before it is whole.

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

interface Part {
  name: string;
  filename: string | null;
  type: string;
  /** A file's pieces (Blobs copy their bytes, so the chunk can go); a field's bytes. */
  pieces: Blob[] | Buffer[];
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
  /** Reads the next chunk of the body; throws MultipartError when the body breaks a bound or
   * the format. */
  push(chunk: Uint8Array): void;
  /** The form, once the body has ended; throws MultipartError if it ended early. */
  end(): FormData;
}

export function multipartReader(boundary: string, limits: MultipartLimits): MultipartReader {
  // The body is read as if it began with CRLF, so the first delimiter is found like the others.
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const form = new FormData();
  let state: 'preamble' | 'after-delimiter' | 'headers' | 'body' | 'done' = 'preamble';
  let pending: Buffer = Buffer.from(CRLF);
  let parts = 0;
  let fieldBytes = 0;
  let part: Part | null = null;

  const take = (bytes: Buffer) => {
    if (bytes.length === 0 || part === null) return;
    if (part.filename !== null) {
      (part.pieces as Blob[]).push(new Blob([bytes as Uint8Array<ArrayBuffer>]));
      return;
    }
    fieldBytes += bytes.length;
    if (fieldBytes > limits.fieldBytes) throw new MultipartError(`the multipart body's fields are larger than ${limits.fieldBytes} bytes in all`, 413);
    (part.pieces as Buffer[]).push(Buffer.from(bytes));
  };

  const finish = () => {
    if (part === null) return;
    if (part.filename !== null) form.append(part.name, new File(part.pieces as Blob[], part.filename, { type: part.type }));
    else form.append(part.name, new TextDecoder().decode(Buffer.concat(part.pieces as Buffer[])));
    part = null;
  };

  const startPart = (head: string) => {
    if (++parts > limits.parts) throw new MultipartError(`the multipart body has more than ${limits.parts} parts`, 400);
    let disposition: ReturnType<typeof dispositionOf> = null;
    let type = '';
    for (const line of head.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon === -1) continue;
      const key = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (key === 'content-disposition') disposition = dispositionOf(value);
      else if (key === 'content-type') type = value;
    }
    if (disposition?.name == null) throw new MultipartError('a multipart part has no Content-Disposition: form-data with a name', 400);
    part = { name: disposition.name, filename: disposition.filename, type, pieces: [] };
  };

  /** Moves through `pending` as far as it can; what is left is too short to decide on. */
  const step = (): boolean => {
    switch (state) {
      case 'preamble':
      case 'body': {
        const at = pending.indexOf(delimiter);
        // No delimiter in what has come: it is kept, whole and uncopied, until the next chunk
        // shows whether one begins in its last bytes (push).
        if (at === -1) return false;
        if (state === 'body') take(pending.subarray(0, at));
        finish();
        pending = pending.subarray(at + delimiter.length);
        state = 'after-delimiter';
        return true;
      }
      case 'after-delimiter': {
        if (pending.length < 2) return false;
        if (pending[0] === 0x2d && pending[1] === 0x2d) {
          state = 'done';
          pending = Buffer.alloc(0);
          return false;
        }
        if (pending[0] !== 0x0d || pending[1] !== 0x0a) throw new MultipartError('the multipart body is malformed (a delimiter is not followed by CRLF)', 400);
        pending = pending.subarray(2);
        state = 'headers';
        return true;
      }
      case 'headers': {
        // A part with no headers has its blank line right away.
        const at = pending.subarray(0, 2).equals(CRLF) ? -2 : pending.indexOf(HEADERS_END);
        if ((at === -1 ? pending.length : at) > MAX_HEADER_BYTES) throw new MultipartError(`a multipart part's headers are longer than ${MAX_HEADER_BYTES} bytes`, 400);
        if (at === -1) return false;
        startPart(at === -2 ? '' : pending.subarray(0, at).toString('utf8'));
        pending = pending.subarray(at + 4);
        state = 'body';
        return true;
      }
      case 'done':
        // The epilogue is ignored (RFC 2046 §5.1.1).
        pending = Buffer.alloc(0);
        return false;
    }
  };

  /**
   * `pending` (a part's bytes or the preamble, with no whole delimiter in it) followed by the next
   * chunk, without copying either: a delimiter that straddles them begins in the last `keep`
   * bytes of one and ends in the first `keep` of the other, and only those are joined to look.
   * What comes before is the part's, taken (copied into its Blob, the one copy of these bytes);
   * the chunk becomes `pending`. Joining the chunk to the bytes kept from the last one copied
   * every chunk of a file once more before its Blob did.
   */
  const keep = delimiter.length - 1;
  const joined = (bytes: Buffer): Buffer => {
    const tail = Math.min(pending.length, keep);
    if (bytes.length < keep) {
      // Too short to end a delimiter begun before it (a trickle of tiny chunks): the last bytes
      // are joined with it, a copy of fewer than two delimiters.
      if (state === 'body') take(pending.subarray(0, pending.length - tail));
      return Buffer.concat([pending.subarray(pending.length - tail), bytes]);
    }
    const at = Buffer.concat([pending.subarray(pending.length - tail), bytes.subarray(0, keep)]).indexOf(delimiter);
    if (at === -1) {
      if (state === 'body') take(pending);
      return bytes;
    }
    if (state === 'body') take(pending.subarray(0, pending.length - tail + at));
    finish();
    state = 'after-delimiter';
    return bytes.subarray(at + delimiter.length - tail);
  };

  return {
    push(chunk) {
      if (state === 'done') return;
      const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      if (pending.length === 0) pending = bytes;
      else if (state === 'preamble' || state === 'body') pending = joined(bytes);
      // After a delimiter (a byte or two) or within a part's headers (at most 16 KiB): the chunk
      // is copied along, the one chunk of a part that can be copied twice.
      else pending = Buffer.concat([pending, bytes]);
      while (step());
    },
    end() {
      if (state !== 'done') throw new MultipartError('the multipart body ended before its closing delimiter', 400);
      return form;
    },
  };
}
