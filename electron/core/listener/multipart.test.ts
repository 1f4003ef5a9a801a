// multipart/form-data read chunk by chunk (multipart.ts, through decodeBody): the same form
// wherever the chunks split the body, files kept as pieces and never read whole, and each bound
// (fields' text, a part's headers, the closing delimiter) refused with its reason.
import { describe, expect, it, vi } from 'vitest';
import { multipartReader } from './multipart';
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
      expect([...read.form.keys()]).toEqual(['h', 'content', 'photo']);
      expect(read.form.get('content')).toBe('héllo "there"');
      const photo = read.form.get('photo') as File;
      expect([photo.name, photo.type]).toEqual(['a b; c=d.jpg', 'image/jpeg']);
      expect(Buffer.from(await photo.arrayBuffer()).equals(file)).toBe(true);
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
        expect(form.get('content')).toBe('héllo "there"');
        const photo = Buffer.from(await (form.get('photo') as File).arrayBuffer());
        if (!photo.equals(file)) throw new Error(`chunks of ${first}, ${middle} and the rest: the file differs`);
      }
    }
  });

  it('never parses a whole body nor copies a file into one buffer: the file is a File of its chunks', async () => {
    // The Web Request's formData parsed the whole body in one call (65 MiB: 110–135 ms on this
    // machine), and the body was assembled into one buffer before that.
    const big = Buffer.alloc(8 * MiB, 0x41);
    const request = streamed(Buffer.concat([Buffer.from(fileHead('file', 'v.mp4', 'video/mp4')), big, Buffer.from(`\r\n--${B}--\r\n`)]), 64 * 1024);
    const formData = vi.spyOn(Request.prototype, 'formData');
    const concat = vi.spyOn(Buffer, 'concat');
    const read = await decode(request);
    expect(formData).not.toHaveBeenCalled();
    // Only the last bytes of a chunk and the first of the next are joined, to look for a
    // delimiter across them; a chunk is never copied but into its Blob.
    expect(Math.max(...concat.mock.calls.map(([list]) => list.reduce((n, b) => n + b.length, 0)))).toBeLessThanOrEqual(2 * (B.length + 4));
    vi.restoreAllMocks();
    const got = read.kind === 'multipart' ? (read.form.get('file') as File) : null;
    expect(got?.size).toBe(big.length);
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

  it("reads a browser's %22, %0D and %0A, Go's \\\" and \\\\, and keeps any other backslash", async () => {
    expect(((await form('form-data; name="f"; filename="say %22hi%22%0D%0A.png"')).get('f') as File).name).toBe('say "hi"\r\n.png');
    expect(((await form('form-data; name="f"; filename="say \\"hi\\" a\\\\b.png"')).get('f') as File).name).toBe('say "hi" a\\b.png');
    expect(((await form('form-data; name="f"; filename="C:\\p\\f.png"')).get('f') as File).name).toBe('C:\\p\\f.png');
    expect([...(await form('form-data; name="a%22b"')).keys()]).toEqual(['a"b']);
  });

  it('takes a part with only filename* (RFC 8187) as a file named by it; filename wins when both are sent', async () => {
    const only = (await form("form-data; name=\"photo\"; filename*=UTF-8''%C3%A9t%C3%A9.png", 'bytes')).get('photo');
    expect(only).toBeInstanceOf(File);
    expect([(only as File).name, await (only as File).text()]).toEqual(['été.png', 'bytes']);
    expect(((await form("form-data; name=\"photo\"; filename=\"plain.png\"; filename*=UTF-8''%C3%A9.png")).get('photo') as File).name).toBe('plain.png');
    expect(((await form("form-data; name=\"photo\"; filename*=iso-8859-1''caf%E9.png")).get('photo') as File).name).toBe('café.png');
    expect(((await form("form-data; name=\"photo\"; filename*=UTF-8''%ZZ")).get('photo') as File).name).toBe('');
  });
});
