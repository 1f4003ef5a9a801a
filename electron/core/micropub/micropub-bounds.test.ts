// Micropub's bodies against a stranger, on the real listener: the token comes before the body —
// without an Authorization header at most 64 KiB are read (to find access_token), a JSON body
// none — and forms are bounded in fields and parts before any parser runs. The Web Request's
// formData, which parsed a whole body at once, is watched to stay unused; files are read as they
// arrive, never into one buffer. A body left unread closes its connection.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { count } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { outbox } from '../../../db/schema';
import { issueToken } from '../indieauth/test-flow';
import { openListeningCore, type ListeningCore } from '../listener/test-support';
import { MAX_IMAGE_BYTES } from '../media/limits';
import { SNIFF_BYTES, uploadPath } from '../media/store';
import { photo } from '../media/test-images';
import { fromForm, MicropubError } from './micropub';

let t: ListeningCore;
let token: string;
let mediaToken: string;
const posts = () => t.core.db.select({ n: count() }).from(outbox).get()!.n;

beforeAll(async () => {
  t = await openListeningCore('alice');
  token = await issueToken(t.url, t.core, ['create']);
  mediaToken = await issueToken(t.url, t.core, ['media']);
});
afterAll(async () => {
  await t?.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

const parsed = () => vi.spyOn(Request.prototype, 'formData');

/** A boundary as clients make them: long enough not to occur in a token or a file (Node's
 * parser fails on the boundary anywhere in a part, even without its leading dashes). */
const B = '----TernTestBoundary7MA4YWxkTrZu0gW';
const MULTIPART = `multipart/form-data; boundary=${B}`;
/** `count` multipart parts named k, one byte each unless told, and the closing delimiter. */
const tinyParts = (count: number, value = 'v') => `--${B}\r\nContent-Disposition: form-data; name="k"\r\n\r\n${value}\r\n`.repeat(count) + `--${B}--\r\n`;

interface Answer {
  status: number;
  json: Record<string, unknown>;
  /** The Connection header: "close" when Tern answered without reading the body to its end. */
  connection: string | undefined;
}

/**
 * A POST over node:http that sends `chunks` and, unless `end`, leaves the rest of the body
 * unsent: an answer can then only come from a server that stopped reading. The socket is
 * destroyed once the answer is in (writes refused after that are expected).
 */
function post(path: string, headers: Record<string, string>, chunks: (string | Buffer)[], end = true): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // A connection of its own, offered for keep-alive: whether it stays open is Tern's answer.
    const agent = new Agent({ keepAlive: true });
    const req = httpRequest(`${t.url}${path}`, { method: 'POST', headers, agent });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const body: Buffer[] = [];
      res.on('data', (b: Buffer) => body.push(b));
      res.on('end', () => {
        req.destroy();
        agent.destroy();
        resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(body).toString() || '{}') as Record<string, unknown>, connection: res.headers.connection });
      });
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    for (const chunk of chunks) req.write(chunk);
    if (end) req.end();
  });
}

const form = (body: string, auth?: string) => post('/micropub', { 'content-type': 'application/x-www-form-urlencoded', ...(auth ? { authorization: `Bearer ${auth}` } : {}) }, [body]);

describe('without an Authorization header', () => {
  it('a multipart upload declared at 65 MiB is refused with 401 naming the header, before its body is read or parsed', async () => {
    const formData = parsed();
    const refused = await post('/micropub', { 'content-type': MULTIPART, 'content-length': String(65 * 1024 * 1024) }, [`--${B}\r\n`], false);
    expect(refused).toMatchObject({ status: 401, json: { error: 'unauthorized', error_description: expect.stringMatching(/Authorization header/) }, connection: 'close' });
    expect(formData).not.toHaveBeenCalled();
  });

  it('a chunked multipart body is read no further than 64 KiB: 401, nothing parsed', async () => {
    const formData = parsed();
    // 1 MiB of 1 KiB parts (so the 64 KiB cap comes before the bound of 100 parts) in 64 KiB
    // chunks, never finished: when bodies came first, Tern waited for the end, then parsed it.
    const parts = tinyParts(1_000, 'v'.repeat(1024));
    const chunks = Array.from({ length: Math.ceil(parts.length / 65_536) }, (_, i) => parts.slice(i * 65_536, (i + 1) * 65_536));
    const refused = await post('/micropub', { 'content-type': MULTIPART, 'transfer-encoding': 'chunked' }, chunks, false);
    expect(refused).toMatchObject({ status: 401, json: { error_description: expect.stringMatching(/over 64 KiB.*Authorization header/) } });
    expect(formData).not.toHaveBeenCalled();
  });

  it('the media endpoint refuses a file over 64 KiB with 401 naming the header, unparsed', async () => {
    const formData = parsed();
    const file = Buffer.alloc(200 * 1024, 0x41);
    const head = `--${B}\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`;
    const refused = await post('/micropub/media', { 'content-type': MULTIPART }, [head, file, `\r\n--${B}--\r\n`]);
    expect(refused).toMatchObject({ status: 401, json: { error_description: expect.stringMatching(/Authorization header/) } });
    expect(formData).not.toHaveBeenCalled();
  });

  it('a JSON body is refused with 401 unread: it cannot carry the token', async () => {
    const refused = await post('/micropub', { 'content-type': 'application/json' }, [JSON.stringify({ type: ['h-entry'], properties: { content: ['hi'] } })]);
    expect(refused).toMatchObject({ status: 401, json: { error: 'unauthorized', error_description: expect.stringMatching(/Authorization header/) } });
  });

  it('a form over 64 KiB is refused with 401 naming the header; with the header it is posted', async () => {
    const before = posts();
    const long = new URLSearchParams({ h: 'entry', content: 'x'.repeat(70_000), access_token: token }).toString();
    expect(await form(long)).toMatchObject({ status: 401, json: { error_description: expect.stringMatching(/over 64 KiB/) } });
    expect(posts()).toBe(before);
    expect((await form(new URLSearchParams({ h: 'entry', content: 'x'.repeat(70_000) }).toString(), token)).status).toBe(201);
  });

  it('a small form with access_token is posted, and a small multipart upload with it is stored (clients that send the token in the body)', async () => {
    // Read to its end: the connection is kept alive (fetch keeps connections; the helper does not).
    const kept = await fetch(`${t.url}/micropub`, { method: 'POST', body: new URLSearchParams({ h: 'entry', content: 'token in the form', access_token: token }) });
    expect([kept.status, kept.headers.get('connection')]).toEqual([201, 'keep-alive']);
    const png = await photo(8, 8, 'png');
    const head = `--${B}\r\nContent-Disposition: form-data; name="access_token"\r\n\r\n${mediaToken}\r\n--${B}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`;
    expect((await post('/micropub/media', { 'content-type': MULTIPART }, [head, png, `\r\n--${B}--\r\n`])).status).toBe(201);
  });
});

describe('fields and parts', () => {
  it('a form with more than 1,000 fields gets 400 with the reason, with the token in the header or the body', async () => {
    const before = posts();
    const many = `h=entry&content=hi&${'category[]=a&'.repeat(1_000)}`;
    expect(await form(many, token)).toMatchObject({ status: 400, json: { error: 'invalid_request', error_description: 'the form has more than 1000 fields' } });
    expect(await form(`${many}access_token=${token}`)).toMatchObject({ status: 400, json: { error_description: 'the form has more than 1000 fields' } });
    expect(posts()).toBe(before);
  });

  it('a multipart create with more than 100 parts gets 400 with the reason before it is parsed or even whole, from a token holder too', async () => {
    const formData = parsed();
    // 2 MiB of one-byte parts (160 ms of parsing when parts were not counted), the body never
    // finished: the answer comes from a count made while reading.
    const refused = await post('/micropub', { 'content-type': MULTIPART, authorization: `Bearer ${token}`, 'content-length': String(60 * 1024 * 1024) }, [tinyParts(40_000)], false);
    expect(refused).toMatchObject({ status: 400, json: { error: 'invalid_request', error_description: 'the multipart body has more than 100 parts' }, connection: 'close' });
    expect(formData).not.toHaveBeenCalled();
  });

  it('the media endpoint takes one file and the token: more than 10 parts is 400, unparsed', async () => {
    const formData = parsed();
    const refused = await post('/micropub/media', { 'content-type': MULTIPART, authorization: `Bearer ${mediaToken}` }, [tinyParts(11)]);
    expect(refused).toMatchObject({ status: 400, json: { error_description: 'the multipart body has more than 10 parts' } });
    expect(formData).not.toHaveBeenCalled();
  });

  it('a multipart Content-Type naming two boundaries is refused: the parts counted are the parts parsed', async () => {
    const refused = await post('/micropub', { 'content-type': `multipart/form-data; boundary=a; boundary=${B}`, authorization: `Bearer ${token}` }, [tinyParts(3)]);
    expect(refused).toMatchObject({ status: 400, json: { error_description: expect.stringMatching(/one boundary/) } });
  });
});

describe('files from a token holder', () => {
  /** The sizes of the Blobs read whole (arrayBuffer) while `work` runs. */
  async function readWhole(work: () => Promise<Answer>): Promise<{ answer: Answer; largest: number }> {
    const whole = vi.spyOn(Blob.prototype, 'arrayBuffer');
    const answer = await work();
    const largest = Math.max(0, ...whole.mock.contexts.map((blob) => (blob as Blob).size));
    return { answer, largest };
  }
  const incoming = () => readdirSync(t.core.paths.uploads).filter((name) => name.endsWith('.tmp'));

  it('a create with a photo over 16 MiB is refused with 413 on its size: the body is not parsed whole, nor the file read into one buffer', async () => {
    // Up to 65 MiB (a create's cap): parsed, copied and hashed whole, it held the thread 450 ms.
    const formData = parsed();
    const before = posts();
    const jpeg = Buffer.concat([await photo(8, 8, 'jpeg'), Buffer.alloc(MAX_IMAGE_BYTES)]);
    const head = `--${B}\r\nContent-Disposition: form-data; name="h"\r\n\r\nentry\r\n--${B}\r\nContent-Disposition: form-data; name="photo"; filename="big.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`;
    const { answer, largest } = await readWhole(() => post('/micropub', { 'content-type': MULTIPART, authorization: `Bearer ${token}` }, [head, jpeg, `\r\n--${B}--\r\n`]));
    expect(answer).toMatchObject({ status: 413, json: { error: 'invalid_request', error_description: expect.stringMatching(/too large: images can be at most 16 MB/) } });
    expect(formData).not.toHaveBeenCalled();
    expect(largest).toBeLessThanOrEqual(SNIFF_BYTES);
    expect(posts()).toBe(before);
  });

  it('the media endpoint stores a 12 MiB video streamed to disk in pieces, named by the hash of its bytes; no temporary file stays', async () => {
    const mp4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.alloc(12 * 1024 * 1024, 9)]);
    const head = `--${B}\r\nContent-Disposition: form-data; name="file"; filename="clip.mp4"\r\nContent-Type: video/mp4\r\n\r\n`;
    const { answer, largest } = await readWhole(() => post('/micropub/media', { 'content-type': MULTIPART, authorization: `Bearer ${mediaToken}` }, [head, mp4, `\r\n--${B}--\r\n`]));
    expect(answer.status).toBe(201);
    expect(largest).toBeLessThanOrEqual(SNIFF_BYTES);
    const hash = createHash('sha256').update(mp4).digest('hex');
    expect(readFileSync(uploadPath(t.core.paths.uploads, hash)).equals(mp4)).toBe(true);
    expect(incoming()).toEqual([]);
  });
});

describe('fromForm', () => {
  const entries = (n: number): [string, string][] => [['h', 'entry'], ...Array.from({ length: n - 1 }, (_, i): [string, string] => [`k${i % 100}`, 'v'])];

  it('reads 1,000 fields and refuses the 1,001st with a reason', () => {
    expect(fromForm(entries(1_000))).toMatchObject({ action: 'create', properties: { k0: expect.any(Array) } });
    expect(() => fromForm(entries(1_001))).toThrow(new MicropubError('invalid_request', 'the form has more than 1000 fields'));
  });

  it('takes 100 properties and refuses the 101st', () => {
    const keys = (n: number): [string, string][] => [['h', 'entry'], ...Array.from({ length: n }, (_, i): [string, string] => [`p${i}`, 'v'])];
    expect(Object.keys((fromForm(keys(100)) as { properties: object }).properties)).toHaveLength(100);
    expect(() => fromForm(keys(101))).toThrow(/too many properties/);
  });

  it('a field named __proto__ is a property like any other, not the object’s prototype', () => {
    const request = fromForm([['h', 'entry'], ['__proto__', 'x'], ['content', 'hi']]) as { properties: Record<string, unknown[]> };
    expect(Object.getPrototypeOf(request.properties)).toBe(Object.prototype);
    expect(Object.hasOwn(request.properties, '__proto__')).toBe(true);
    expect(request.properties.content).toEqual(['hi']);
  });
});
