// Hostile campaign, uploads: every route that takes a file (Mastodon's media and profile images,
// Micropub's media endpoint, statuses sent as multipart) under images that lie about their size
// (a header of a billion pixels, a truncated or corrupt body), files that are not what they say,
// odd file names and part headers, and multipart bodies broken in every place a parser reads.
// A refusal is a 4xx with a reason, stores no row and leaves no file.
import { readdirSync } from 'node:fs';
import { deflateSync, crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openListeningCore, type ListeningCore } from '../../electron/core/listener/test-support';
import { issueToken } from '../../electron/core/indieauth/test-flow';
import { pngBytes } from '../../electron/core/mastodon/test-support';
import { REFUSED, expectPrototypeClean } from './campaign';
import { SCRIPTS, reportStalls, runCase } from './rig';

let t: ListeningCore;
let token: string;
let png: Buffer;

beforeAll(async () => {
  t = await openListeningCore('alice', { allowPrivateAddresses: false });
  token = await issueToken(t.url, t.core, ['read', 'write', 'create', 'media', 'profile']);
  png = await pngBytes(16, 16);
});
afterAll(async () => {
  await t?.close();
  reportStalls('campaign-uploads');
});

const h = { sqlite: () => t.core.sqlite };
/** The files of the data folder but the database's own (uploads and their temporary files). */
const files = () => readdirSync(t.core.paths.dir, { recursive: true, withFileTypes: true }).filter((f) => f.isFile() && !f.name.startsWith('tern.db')).length;
/** What a taken upload may add. */
const UPLOADED = { upload: 'any' } as const;

/** A PNG chunk with its length and CRC. */
function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}
/** A PNG whose header says `width` × `height`, with `rows` rows of pixels (or none). */
function pngClaiming(width: number, height: number, rows = 1): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  const pixels = deflateSync(Buffer.alloc(Math.min(rows, height) * (Math.min(width, 1 << 16) + 1)));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', pixels), chunk('IEND', Buffer.alloc(0))]);
}
/** A GIF whose logical screen and one image say `width` × `height`. */
function gifClaiming(width: number, height: number): Buffer {
  const le = (n: number) => [n & 0xff, n >> 8];
  return Buffer.from([...Buffer.from('GIF89a'), ...le(width), ...le(height), 0, 0, 0, 0x2c, 0, 0, 0, 0, ...le(width), ...le(height), 0, 2, 2, 0x4c, 0x01, 0, 0x3b]);
}
/** A baseline JPEG start whose frame says `width` × `height`, and nothing after. */
function jpegClaiming(width: number, height: number): Buffer {
  return Buffer.from([0xff, 0xd8, 0xff, 0xc0, 0, 11, 8, height >> 8, height & 0xff, width >> 8, width & 0xff, 1, 1, 0x11, 0, 0xff, 0xd9]);
}

// `true`: taken as what it is — libnsgif reads a 0 × 0 GIF as 1 × 1, and audio and video are
// stored as they are (their first bytes checked, nothing decoded).
const images: [string, () => Buffer, string, string, boolean?][] = [
  ['a PNG claiming 100,000 × 100,000', () => pngClaiming(100_000, 100_000), 'image/png', 'bomb.png'],
  ['a PNG claiming 2^31-1 × 1', () => pngClaiming(0x7fffffff, 1, 0), 'image/png', 'wide.png'],
  ['a PNG claiming 0 × 0', () => pngClaiming(0, 0, 0), 'image/png', 'zero.png'],
  ['a PNG with 7,000 × 7,000 declared and one row', () => pngClaiming(7_000, 7_000), 'image/png', 'short.png'],
  ['a PNG with a wrong CRC', () => { const b = Buffer.from(png); b.writeUInt8(b.readUInt8(29) ^ 0xff, 29); return b; }, 'image/png', 'crc.png'],
  ['a PNG cut in half', () => png.subarray(0, png.length >> 1), 'image/png', 'half.png'],
  ['a PNG of its signature alone', () => png.subarray(0, 8), 'image/png', 'sig.png'],
  ['a GIF claiming 65,535 × 65,535', () => gifClaiming(65_535, 65_535), 'image/gif', 'bomb.gif'],
  ['a GIF claiming 0 × 0', () => gifClaiming(0, 0), 'image/gif', 'zero.gif', true],
  ['a JPEG claiming 65,535 × 65,535', () => jpegClaiming(65_535, 65_535), 'image/jpeg', 'bomb.jpg'],
  ['a JPEG claiming 0 × 0', () => jpegClaiming(0, 0), 'image/jpeg', 'zero.jpg'],
  ['a WebP header alone', () => Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 \x00\x00\x00\x00', 'latin1'), 'image/webp', 'x.webp'],
  ['an AVIF header alone', () => Buffer.from('\x00\x00\x00\x18ftypavif\x00\x00\x00\x00avifmif1', 'latin1'), 'image/avif', 'x.avif'],
  ['an empty file', () => Buffer.alloc(0), 'image/png', 'empty.png'],
  ['a PNG sent as a JPEG', () => png, 'image/jpeg', 'x.jpg'],
  ['HTML sent as a PNG', () => Buffer.from(`<html>${SCRIPTS[0]}</html>`), 'image/png', 'x.png'],
  ['an SVG with a script', () => Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)">${SCRIPTS[0]}</svg>`), 'image/svg+xml', 'x.svg'],
  ['a GIF header before a script (a polyglot)', () => Buffer.from(`GIF89a/*${'\x00'.repeat(10)}*/=alert(1);`, 'latin1'), 'image/gif', 'x.gif'],
  ['an MP4 of garbage', () => Buffer.from('\x00\x00\x00\x20ftypisom' + 'x'.repeat(100), 'latin1'), 'video/mp4', 'x.mp4', true],
  ['a PDF', () => Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj <<>> endobj\n%%EOF'), 'application/pdf', 'x.pdf'],
  ['an executable', () => Buffer.from('MZ\x90\x00' + 'x'.repeat(60), 'latin1'), 'application/octet-stream', 'x.exe'],
];
const fileRoutes: [string, string, string][] = [
  ['POST', '/api/v2/media', 'file'],
  ['POST', '/api/v1/media', 'file'],
  ['POST', '/micropub/media', 'file'],
  ['PATCH', '/api/v1/accounts/update_credentials', 'avatar'],
  ['PATCH', '/api/v1/accounts/update_credentials', 'header'],
];

describe('images that lie, and files that are not what they say', () => {
  const cases = fileRoutes.flatMap(([method, route, field]) => images.map(([name, make, type, filename, taken]) => [`${method} ${route} ${field}: ${name}`, method, route, field, make, type, filename, taken === true && (field === 'file' || type.startsWith('image/'))] as const));
  it.each(cases)('%s: refused with a reason, no file kept (or taken as what it is)', async (name, method, route, field, make, type, filename, taken) => {
    const before = files();
    await runCase(h, {
      name,
      send: () => {
        const form = new FormData();
        form.set(field, new Blob([new Uint8Array(make())], { type }), filename);
        return fetch(`${t.url}${route}`, { method, headers: { authorization: `Bearer ${token}` }, body: form });
      },
      status: taken ? [200, 201] : REFUSED,
      ...(taken ? { changes: UPLOADED } : {}),
    });
    if (!taken) expect(files(), 'files left in the data folder').toBe(before);
  });
});

describe('multipart bodies broken in every place', () => {
  const B = 'zzBOUNDARYzz';
  const part = (headers: string, body: string) => `--${B}\r\n${headers}\r\n\r\n${body}\r\n`;
  const file = (name = 'file', extra = '') => `Content-Disposition: form-data; name="${name}"; filename="a.png"${extra}\r\nContent-Type: image/png`;
  const pngText = () => png.toString('latin1');
  // `true`: well-formed after all (RFC 7578 allows a preamble; a file's name is not used to store
  // it; fields a route does not know are ignored, as Mastodon does): taken, with nothing of the
  // odd name in the answer.
  const bodies: [string, () => string, boolean?][] = [
    ['no closing delimiter', () => part(file(), pngText())],
    ['a closing delimiter without its dashes', () => `${part(file(), pngText())}--${B}\r\n`],
    ['only a preamble', () => 'x'.repeat(100_000)],
    ['a preamble of 2 MiB before the part', () => `${'p'.repeat(2 << 20)}\r\n${part(file(), pngText())}--${B}--\r\n`, true],
    ['a part with no headers', () => `--${B}\r\n\r\nhello\r\n--${B}--\r\n`],
    ['a part with no name', () => `${part('Content-Disposition: form-data; filename="a.png"', pngText())}--${B}--\r\n`],
    ['a part of another disposition', () => `${part('Content-Disposition: attachment; name="file"; filename="a.png"', pngText())}--${B}--\r\n`],
    ['part headers of 20 KiB', () => `${part(`${file()}\r\nX-Pad: ${'x'.repeat(20 * 1024)}`, pngText())}--${B}--\r\n`],
    ['part headers that never end', () => `--${B}\r\n${file()}\r\nX-Pad: ${'x'.repeat(100)}`],
    ['a delimiter followed by junk', () => `--${B}junk\r\n${file()}\r\n\r\n${pngText()}\r\n--${B}--\r\n`],
    ['2,000 empty fields', () => `${Array.from({ length: 2000 }, (_, i) => part(`Content-Disposition: form-data; name="f${i}"`, '')).join('')}--${B}--\r\n`],
    ['fields of 2 MiB', () => `${part('Content-Disposition: form-data; name="description"', 'd'.repeat(2 << 20))}${part(file(), pngText())}--${B}--\r\n`],
    ['a file part twice', () => `${part(file(), pngText())}${part(file(), pngText())}--${B}--\r\n`, true],
    ['a nested multipart/mixed', () => `${part('Content-Disposition: form-data; name="file"\r\nContent-Type: multipart/mixed; boundary=inner', `--inner\r\n${file()}\r\n\r\n${pngText()}\r\n--inner--`)}--${B}--\r\n`, true],
    ['a filename with CRLF and a NUL', () => `${part(file('file').replace('a.png', 'a\u0000.png\\"\r\nX-Injected: 1'), pngText())}--${B}--\r\n`, true],
    ['a filename of traversal', () => `${part(file('file').replace('a.png', '../../../../etc/passwd'), pngText())}--${B}--\r\n`, true],
    ['a filename of 10,000 characters', () => `${part(file('file').replace('a.png', `${'n'.repeat(10_000)}.png`), pngText())}--${B}--\r\n`, true],
    ['a filename* of invalid percent-encoding', () => `${part("Content-Disposition: form-data; name=\"file\"; filename*=UTF-8''%ff%zz%\r\nContent-Type: image/png", pngText())}--${B}--\r\n`, true],
    ['a name of __proto__', () => `${part('Content-Disposition: form-data; name="__proto__[polluted]"', '1')}${part(file(), pngText())}--${B}--\r\n`, true],
    ['a part Content-Type of markup', () => `${part(`Content-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: ${SCRIPTS[0]}`, pngText())}--${B}--\r\n`, true],
    ['a focus of NaN,Infinity', () => `${part('Content-Disposition: form-data; name="focus"', 'NaN,Infinity')}${part(file(), pngText())}--${B}--\r\n`, true],
    ['a description of 100 KB', () => `${part('Content-Disposition: form-data; name="description"', 'd'.repeat(100_000))}${part(file(), pngText())}--${B}--\r\n`, true],
  ];
  const routes: [string, string][] = [
    ['POST', '/api/v2/media'],
    ['POST', '/micropub/media'],
    ['PATCH', '/api/v1/accounts/update_credentials'],
    ['POST', '/api/v1/statuses'],
  ];
  const cases = routes.flatMap(([method, route]) => bodies.map(([name, make, wellFormed]) => [`${method} ${route}: ${name}`, method, route, make, wellFormed === true] as const));
  it.each(cases)('%s: refused with a reason, no file kept (or taken if well-formed)', async (name, method, route, make, wellFormed) => {
    const before = files();
    let text = '';
    await runCase(h, {
      name,
      send: async () => {
        const res = await fetch(`${t.url}${route}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${B}` }, body: Buffer.from(make(), 'latin1') });
        text = `${res.headers.get('location') ?? ''} ${await res.clone().text()}`;
        return res;
      },
      status: wellFormed ? [200, 201, ...REFUSED] : REFUSED,
      ...(wellFormed ? { changes: { ...UPLOADED, outbox: 'any', tagged_outbox_object: 'any', outgoing_activity: 'any', upload_outbox_object: 'any' } } : {}),
    });
    if (!wellFormed) expect(files(), 'files left in the data folder').toBe(before);
    expect(text, 'the hostile file name in the answer').not.toMatch(/\.\.\/|X-Injected|n{121}|etc\/passwd/);
    expectPrototypeClean();
  });
});
