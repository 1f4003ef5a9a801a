// multipart/form-data read chunk by chunk (multipart.ts, through decodeBody): the same form
// wherever the chunks split the body, files kept as pieces and never read whole, and each bound
// (fields' text, a part's headers, the closing delimiter) refused with its reason.
import { describe, expect, it, vi } from 'vitest';
import { UploadedFile } from '../media/uploaded-file';
import { multipartReader, PIECE_BYTES, type FormEntry } from './multipart';
import { BodyError, decodeBody, MULTIPART_FIELD_BYTES } from './request-body';

const MiB = 1024 * 1024;
const B = '----TernTestBoundary7MA4YWxkTrZu0gW';
const TYPE = `multipart/form-data; boundary=${B}`;

/** A request whose body arrives in chunks of `size` bytes. */
function streamed(body: Buffer, size: number): Request {
  let at = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at < body.length) controller.enqueue(new Uint8Array(body.subarray(at, (at += size))));
      else controller.close();
    },
  });
  return new Request('http://x/', { method: 'POST', headers: { 'content-type': TYPE }, body: stream, duplex: 'half' } as RequestInit);
}

const field = (name: string, value: string) => `--${B}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const fileHead = (name: string, filename: string, type: string) => `--${B}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`;
const refusal = (promise: Promise<unknown>) => promise.then(() => null, (error: unknown) => (error instanceof BodyError ? { status: error.status, message: error.message } : error));
const decode = (request: Request, parts = 10) => decodeBody(request, 70 * MiB, { multipart: true, fields: parts });
/** The value of the first part named `name`. */
const get = (form: FormEntry[], name: string) => form.find(([key]) => key === name)?.[1];
/** The file part named `name`. */
const fileOf = (form: FormEntry[], name: string) => {
  const value = get(form, name);
  if (!(value instanceof UploadedFile)) throw new Error(`${name} is not a file: ${String(value)}`);
  return value;
};
const bytesOf = (file: UploadedFile) => Buffer.concat(file.pieces);

describe('multipart bodies read as they arrive', () => {
  // Bytes that begin like the delimiter (CR LF - - and most of the boundary) inside the file, so
  // a split anywhere near one is tried; the whole delimiter cannot occur in a part (RFC 2046).
  const file = Buffer.from(`\r\n-\r\n--${B.slice(0, 10)}\r\n--${B.slice(0, -1)}`.repeat(3) + 'é\u0000end');
  const body = Buffer.concat([Buffer.from(`preamble\r\n${field('h', 'entry')}${field('content', 'héllo "there"')}${fileHead('photo', 'a b; c=d.jpg', 'image/jpeg')}`), file, Buffer.from(`\r\n--${B}--\r\nepilogue`)]);

  it('gives the same fields and file wherever the chunks split the body (1 to 97 bytes a chunk)', async () => {
    const formData = vi.spyOn(Request.prototype, 'formData');
    for (const size of [1, 2, 3, 5, 7, 13, 31, 40, 41, 42, 64, 97]) {
      const read = await decode(streamed(body, size));
      if (read.kind !== 'multipart') throw new Error(`not multipart: ${read.kind}`);
      expect(read.form.map(([name]) => name)).toEqual(['h', 'content', 'photo']);
      expect(get(read.form, 'content')).toBe('héllo "there"');
      const photo = fileOf(read.form, 'photo');
      expect([photo.name, photo.type, photo.size]).toEqual(['a b; c=d.jpg', 'image/jpeg', file.length]);
      expect(bytesOf(photo).equals(file)).toBe(true);
    }
    expect(formData).not.toHaveBeenCalled();
    formData.mockRestore();
  });

  it('gives the same file wherever two chunk boundaries fall, a delimiter split over three chunks included', async () => {
    const keep = `\r\n--${B}`.length - 1;
    for (let first = 0; first <= body.length; first++) {
      for (const middle of [0, 1, 2, keep - 1, keep, keep + 1, 64]) {
        const reader = multipartReader(B, { parts: 10, fieldBytes: MiB });
        for (const chunk of [body.subarray(0, first), body.subarray(first, first + middle), body.subarray(first + middle)]) reader.push(new Uint8Array(chunk));
        const form = reader.end();
        expect(get(form, 'content')).toBe('héllo "there"');
        const photo = bytesOf(fileOf(form, 'photo'));
        if (!photo.equals(file)) throw new Error(`chunks of ${first}, ${middle} and the rest: the file differs`);
      }
    }
  });

  it('never parses a whole body nor copies a file into one buffer: the file is the pieces of its chunks', async () => {
    // The Web Request's formData parsed the whole body in one call (65 MiB: 110–135 ms on this
    // machine), and the body was assembled into one buffer before that.
    const big = Buffer.alloc(8 * MiB, 0x41);
    const request = streamed(Buffer.concat([Buffer.from(fileHead('file', 'v.mp4', 'video/mp4')), big, Buffer.from(`\r\n--${B}--\r\n`)]), 64 * 1024);
    const formData = vi.spyOn(Request.prototype, 'formData');
    const concat = vi.spyOn(Buffer, 'concat');
    const read = await decode(request);
    expect(formData).not.toHaveBeenCalled();
    // Only the last bytes of a chunk and the first of the next are joined, to look for a
    // delimiter across them.
    expect(Math.max(...concat.mock.calls.map(([list]) => list.reduce((n, b) => n + b.length, 0)))).toBeLessThanOrEqual(2 * (B.length + 4));
    vi.restoreAllMocks();
    const got = read.kind === 'multipart' ? fileOf(read.form, 'file') : null;
    expect(got?.size).toBe(big.length);
  });

  it("keeps a file as its chunks: a piece of 16 KiB or more is the chunk's own bytes, uncopied; only a part's first and last bytes are copied, into one run each", () => {
    const big = Buffer.from(Array.from({ length: 990_000 }, (_, i) => (i * 7919) % 251));
    const body = Buffer.concat([Buffer.from(field('h', 'entry') + fileHead('file', 'v.mp4', 'video/mp4')), big, Buffer.from(`\r\n${field('after', 'x')}--${B}--\r\n`)]);
    // Chunk edges that leave a few bytes of the file at its start and end.
    const edges = [0, body.indexOf(big) + 10, ...Array.from({ length: 15 }, (_, i) => body.indexOf(big) + 10 + (i + 1) * 65_536), body.length];
    const chunks = new Set<ArrayBufferLike>();
    const reader = multipartReader(B, { parts: 10, fieldBytes: MiB });
    for (let i = 1; i < edges.length; i++) {
      const chunk = new Uint8Array(body.subarray(edges[i - 1], edges[i]));
      chunks.add(chunk.buffer);
      reader.push(chunk);
    }
    const form = reader.end();
    const file = fileOf(form, 'file');
    expect([bytesOf(file).equals(big), file.size, get(form, 'after')]).toEqual([true, big.length, 'x']);
    const copied = file.pieces.filter((piece) => !chunks.has(piece.buffer));
    expect(copied.map((piece) => piece.byteLength)).toEqual([10, big.length - 10 - 15 * 65_536]);
    expect(file.pieces.length).toBe(17);
  });

  it(`gathers a file that trickles in, a few bytes a chunk, into pieces of ${PIECE_BYTES} bytes, not one array per chunk`, () => {
    const small = Buffer.from(Array.from({ length: 3 * PIECE_BYTES + 100 }, (_, i) => (i * 31) % 256));
    const body = Buffer.concat([Buffer.from(fileHead('file', 'a.bin', 'application/octet-stream')), small, Buffer.from(`\r\n--${B}--\r\n`)]);
    const reader = multipartReader(B, { parts: 10, fieldBytes: MiB });
    for (let at = 0; at < body.length; at += 5) reader.push(new Uint8Array(body.subarray(at, at + 5)));
    const file = fileOf(reader.end(), 'file');
    expect(bytesOf(file).equals(small)).toBe(true);
    expect(file.pieces.map((piece) => piece.byteLength)).toEqual([PIECE_BYTES, PIECE_BYTES, PIECE_BYTES, 100]);
  });

  it(`refuses fields of more than ${MULTIPART_FIELD_BYTES} bytes in all with 413, files not counted`, async () => {
    const half = 'x'.repeat(MULTIPART_FIELD_BYTES / 2);
    const over = Buffer.from(field('a', half) + field('b', `${half}x`) + `--${B}--\r\n`);
    expect(await refusal(decode(streamed(over, 64 * 1024)))).toEqual({ status: 413, message: `the multipart body's fields are larger than ${MULTIPART_FIELD_BYTES} bytes in all` });
    const files = Buffer.concat([Buffer.from(field('a', half)), Buffer.from(fileHead('file', 'v.mp4', 'video/mp4')), Buffer.alloc(2 * MiB), Buffer.from(`\r\n--${B}--\r\n`)]);
    expect((await decode(streamed(files, 64 * 1024))).kind).toBe('multipart');
  });

  it("refuses a part's headers over 16 KiB, a part without a name, and a body cut before its closing delimiter, each with 400 and its reason", async () => {
    const longHeaders = Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="a"\r\nX-Padding: ${'p'.repeat(17 * 1024)}\r\n\r\nv\r\n--${B}--\r\n`);
    expect(await refusal(decode(streamed(longHeaders, 4096)))).toEqual({ status: 400, message: "a multipart part's headers are longer than 16384 bytes" });
    const nameless = Buffer.from(`--${B}\r\nContent-Type: text/plain\r\n\r\nv\r\n--${B}--\r\n`);
    expect(await refusal(decode(streamed(nameless, 100)))).toEqual({ status: 400, message: 'a multipart part has no Content-Disposition: form-data with a name' });
    const cut = Buffer.from(field('h', 'entry') + fileHead('photo', 'a.jpg', 'image/jpeg') + 'half a file');
    expect(await refusal(decode(streamed(cut, 100)))).toEqual({ status: 400, message: 'the multipart body ended before its closing delimiter' });
  });
});

describe('names and filenames as clients write them', () => {
  const form = async (disposition: string, data = 'x') => {
    const body = Buffer.from(`--${B}\r\nContent-Disposition: ${disposition}\r\nContent-Type: image/png\r\n\r\n${data}\r\n--${B}--\r\n`);
    const read = await decode(streamed(body, 64));
    if (read.kind !== 'multipart') throw new Error(`not multipart: ${read.kind}`);
    return read.form;
  };
  /** The file of the body's one part. */
  const fileIn = async (disposition: string, data?: string) => {
    const entries = await form(disposition, data);
    return fileOf(entries, entries[0]![0]);
  };

  it("reads a browser's %22, %0D and %0A, Go's \\\" and \\\\, and keeps any other backslash", async () => {
    expect((await fileIn('form-data; name="f"; filename="say %22hi%22%0D%0A.png"')).name).toBe('say "hi"\r\n.png');
    expect((await fileIn('form-data; name="f"; filename="say \\"hi\\" a\\\\b.png"')).name).toBe('say "hi" a\\b.png');
    expect((await fileIn('form-data; name="f"; filename="C:\\p\\f.png"')).name).toBe('C:\\p\\f.png');
    expect((await form('form-data; name="a%22b"')).map(([name]) => name)).toEqual(['a"b']);
  });

  it('takes a part with only filename* (RFC 8187) as a file named by it; filename wins when both are sent', async () => {
    const only = await fileIn("form-data; name=\"photo\"; filename*=UTF-8''%C3%A9t%C3%A9.png", 'bytes');
    expect([only.name, bytesOf(only).toString()]).toEqual(['été.png', 'bytes']);
    expect((await fileIn("form-data; name=\"photo\"; filename=\"plain.png\"; filename*=UTF-8''%C3%A9.png")).name).toBe('plain.png');
    expect((await fileIn("form-data; name=\"photo\"; filename*=iso-8859-1''caf%E9.png")).name).toBe('café.png');
    expect((await fileIn("form-data; name=\"photo\"; filename*=UTF-8''%ZZ")).name).toBe('');
  });
});
