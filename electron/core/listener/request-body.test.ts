// Bodies decoded under a cap and a bound on fields: the count on the bytes agrees with what the
// parsers then read, at the bound and one past it, for forms and multipart.
import { describe, expect, it } from 'vitest';
import { BodyError, decodeBody, DEFAULT_MAX_FIELDS } from './request-body';

const MiB = 1024 * 1024;
const request = (type: string, body: string) => new Request('http://x/', { method: 'POST', headers: { 'content-type': type }, body });
const parts = (n: number, boundary: string) => Array.from({ length: n }, (_, i) => `--${boundary}\r\nContent-Disposition: form-data; name="k${i}"\r\n\r\nv\r\n`).join('') + `--${boundary}--\r\n`;
/** A request whose body arrives in chunks of `size` bytes; unless `end`, it never finishes. */
function streamed(type: string, body: string, size: number, end = true): Request {
  const bytes = Buffer.from(body);
  let at = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at < bytes.length) controller.enqueue(bytes.subarray(at, (at += size)));
      else if (end) controller.close();
      else return new Promise(() => undefined);
    },
  });
  return new Request('http://x/', { method: 'POST', headers: { 'content-type': type }, body: stream, duplex: 'half' } as RequestInit);
}
const refusal = (promise: Promise<unknown>) => promise.then(() => null, (error: unknown) => (error instanceof BodyError ? { status: error.status, message: error.message } : error));

describe('decodeBody: fields', () => {
  it(`a form takes ${DEFAULT_MAX_FIELDS} fields unless told otherwise, and is refused with 400 at one more`, async () => {
    const form = (n: number) => Array.from({ length: n }, (_, i) => `k${i}=v`).join('&');
    const read = await decodeBody(request('application/x-www-form-urlencoded', form(DEFAULT_MAX_FIELDS)), MiB);
    expect(read.kind === 'form' && [...read.params].length).toBe(DEFAULT_MAX_FIELDS);
    expect(await refusal(decodeBody(request('application/x-www-form-urlencoded', form(DEFAULT_MAX_FIELDS + 1)), MiB))).toEqual({ status: 400, message: `the form has more than ${DEFAULT_MAX_FIELDS} fields` });
  });

  it('multipart: exactly the bound of parts is read; one more is refused before parsing', async () => {
    const type = 'multipart/form-data; boundary=xyz-123';
    const read = await decodeBody(request(type, parts(10, 'xyz-123')), MiB, { multipart: true, fields: 10 });
    expect(read.kind === 'multipart' && read.form.map(([name]) => name)).toEqual(Array.from({ length: 10 }, (_, i) => `k${i}`));
    expect(await refusal(decodeBody(request(type, parts(11, 'xyz-123')), MiB, { multipart: true, fields: 10 }))).toEqual({ status: 400, message: 'the multipart body has more than 10 parts' });
  });

  it('parts are counted as the bytes arrive, a delimiter split across chunks included; too many end the reading before the body does', async () => {
    const type = 'multipart/form-data; boundary=----chunked-boundary-0123';
    for (const size of [1, 7, 64]) {
      const read = await decodeBody(streamed(type, parts(10, '----chunked-boundary-0123'), size), MiB, { multipart: true, fields: 10 });
      expect(read.kind === 'multipart' && read.form.map(([name]) => name).length).toBe(10);
      expect(await refusal(decodeBody(streamed(type, parts(11, '----chunked-boundary-0123'), size), MiB, { multipart: true, fields: 10 }))).toEqual({ status: 400, message: 'the multipart body has more than 10 parts' });
    }
    // A body that never ends: only a count made while reading can answer.
    expect(await refusal(decodeBody(streamed(type, parts(200, '----chunked-boundary-0123'), 100, false), MiB, { multipart: true, fields: 10 }))).toEqual({ status: 400, message: 'the multipart body has more than 10 parts' });
    expect(await refusal(decodeBody(streamed('application/x-www-form-urlencoded', 'a=1&'.repeat(2_000), 100, false), MiB))).toMatchObject({ status: 400 });
  });

  it('a quoted boundary (spaces allowed inside) is the one counted and parsed; none, two or an invalid one is 400', async () => {
    const read = await decodeBody(request('multipart/form-data; boundary="a b:c"', parts(2, 'a b:c')), MiB, { multipart: true });
    expect(read.kind === 'multipart' && read.form.map(([name]) => name)).toEqual(['k0', 'k1']);
    for (const type of ['multipart/form-data', 'multipart/form-data; boundary=a; boundary=b', 'multipart/form-data; boundary=a<b', `multipart/form-data; boundary=${'x'.repeat(71)}`]) {
      expect(await refusal(decodeBody(request(type, parts(1, 'a')), MiB, { multipart: true }))).toMatchObject({ status: 400, message: expect.stringMatching(/one boundary/) });
    }
  });
});

describe('decodeBody: JSON text', () => {
  it('refuses a string holding half of a surrogate pair (in a value or a key), and takes whole pairs and emoji', async () => {
    const lone = { status: 400, message: 'the application/json body has a string that is not Unicode text (a lone surrogate escape)' };
    expect(await refusal(decodeBody(request('application/json', '{"display_name":"a\\ud800b"}'), MiB, {}))).toEqual(lone);
    expect(await refusal(decodeBody(request('application/json', '{"status":["ok","\\udc00"]}'), MiB, {}))).toEqual(lone);
    expect(await refusal(decodeBody(request('application/json', '{"\\ud83d":1}'), MiB, {}))).toEqual(lone);
    expect(await decodeBody(request('application/json', '{"status":"tern \\ud83d\\udc26 🐦"}'), MiB, {})).toEqual({ kind: 'json', value: { status: 'tern 🐦 🐦' } });
  });
});
