// Hostile corpus, headless mode's IPC over HTTP (tokens, bodies, shapes) and file import through
// it: backup archives (not gzip, bombs, traversal, links, damaged manifests), microblog.pub
// folders (missing, not microblog.pub's, a hostile profile.toml and key.pem, a database that is
// not SQLite) and the following CSV (markup, SSRF-ish handles, huge and broken lines).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { openCore, type Core } from '../../electron/core/core';
import { createHandlers } from '../../electron/core/ipc/handlers';
import { createUiApp } from '../../electron/core/ipc/http-transport';
import { writeTar, type TarEntry } from '../../electron/core/data/tar';
import type { Reopen } from '../../electron/core/ipc/handlers';
import { SCRIPTS, nestedJson, reportStalls, runCase } from './rig';

const TOKEN = 'hostile-token-0123456789abcdef';
const HOST = '127.0.0.1:4999';
let dir: string;
let core: Core;
let app: ReturnType<typeof createUiApp>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tern-hostile-files-'));
  mkdirSync(join(dir, 'static'));
  writeFileSync(join(dir, 'static', 'index.html'), '<!doctype html><title>Tern</title>');
  core = await openCore({ dataDir: join(dir, 'data'), mode: 'headless' });
  // A host that can reopen the core, so restoring and moving in get as far as their checks; a
  // hostile file that reached the reopen would fail the case (an internal error).
  const reopen = (async () => {
    throw new Error('a refused file reached the reopen');
  }) as unknown as Reopen;
  app = createUiApp({ handlers: createHandlers(core, { host: { reopen } }), token: TOKEN, staticDir: join(dir, 'static'), allowedHosts: () => [HOST] });
});
afterAll(() => {
  core?.close();
  rmSync(dir, { recursive: true, force: true });
  reportStalls('ipc-files');
});

const h = { sqlite: () => core.sqlite };
const call = (path: string, init: RequestInit & { headers?: Record<string, string> } = {}) => async (): Promise<Response> =>
  app.request(`http://${HOST}${path}`, { ...init, headers: { host: HOST, ...init.headers } });
const ipc = (channel: string, body: unknown, headers: Record<string, string> = {}) =>
  call(`/ipc/${channel}`, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers } });

describe('the IPC transport', () => {
  const cases: [string, () => Promise<Response>, number | number[]][] = [
    ['no token', call('/ipc/app.status', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }), 401],
    ['a wrong token', ipc('app.status', {}, { authorization: 'Bearer wrong-wrong-wrong-wrong' }), 401],
    ['a token of markup', ipc('app.status', {}, { authorization: `Bearer ${SCRIPTS[0]}` }), 401],
    ['a token in a Basic header', ipc('app.status', {}, { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` }), 401],
    ['the token as a query on POST', call(`/ipc/app.status?token=${TOKEN}`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }), 401],
    ['a cookie of markup', call('/ipc/app.status', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json', cookie: `tern_token=${encodeURIComponent(SCRIPTS[0]!)}` } }), 401],
    ['another Host (DNS rebinding)', async () => app.request(`http://${HOST}/ipc/app.status`, { method: 'POST', body: '{}', headers: { host: 'evil.example', authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' } }), 421],
    ['a Host of localhost.', async () => app.request(`http://${HOST}/ipc/app.status`, { method: 'POST', body: '{}', headers: { host: 'localhost.:4999', authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' } }), 421],
    ['text/plain', ipc('app.status', '{}', { 'content-type': 'text/plain' }), 415],
    ['no content type', call('/ipc/app.status', { method: 'POST', body: '{}', headers: { authorization: `Bearer ${TOKEN}` } }), 415],
    ['a body that is not JSON', ipc('app.status', '{'), 400],
    ['JSON nested 10,000 deep', ipc('posts.create', `{"content":${nestedJson(10_000)}}`), 400],
    ['a body over the cap', ipc('posts.create', JSON.stringify({ content: 'x'.repeat(8 * 1024 * 1024) })), 413],
    ['an unknown channel', ipc('nope.nope', {}), 404],
    ['a channel of markup', ipc(encodeURIComponent(SCRIPTS[0]!), {}), 404],
    ['a channel named __proto__', ipc('__proto__', {}), 404],
    ['a channel named constructor', ipc('constructor', {}), 404],
    ['a channel named toString', ipc('toString', {}), 404],
    ['posts.create with a number for content', ipc('posts.create', { content: 7 }), 400],
    ['posts.create with an extra key', ipc('posts.create', { content: 'x', visibility: 'PUBLIC', admin: true }), 400],
    ['posts.create with a __proto__ key', ipc('posts.create', '{"__proto__":{"polluted":1},"content":"x"}'), 400],
    ['posts.create with an unknown visibility', ipc('posts.create', { content: 'x', visibility: 'EVERYONE' }), 400],
    ['an array instead of an object', ipc('app.status', []), 400],
    ['null instead of an object (read as no input)', ipc('app.status', 'null'), [200, 400]],
    ['lookup of localhost.', ipc('lookup.resolve', { query: '@bob@localhost.' }), [200, 400]],
    ['a static path with traversal', call('/..%2f..%2fdata%2ftern.db', { headers: { authorization: `Bearer ${TOKEN}` } }), 404],
    ['a static path with an encoded NUL', call('/index.html%00.png', { headers: { authorization: `Bearer ${TOKEN}` } }), 404],
    ['media with traversal', call('/media/..%2f..%2fkeys%2fprivate.pem', { headers: { authorization: `Bearer ${TOKEN}` } }), [400, 403, 404]],
  ];
  it.each(cases)('%s', (name, send, status) => runCase(h, { name, send, status }));
});

// ---- files ----------------------------------------------------------------------------------

let files = 0;
const file = (name: string, data: Buffer | string) => {
  const path = join(dir, `${files++}-${name}`);
  writeFileSync(path, data);
  return path;
};
const entry = (name: string, data: string | Buffer, type: TarEntry['type'] = 'file'): TarEntry => ({ name, type, mode: 0o644, mtime: new Date(0), data: Buffer.from(data) });
/** A ustar archive written by hand, for names Tern's own writer refuses to write. */
function rawTar(entries: { name: string; data: string; flag?: string; link?: string }[]): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const header = Buffer.alloc(512);
    const data = Buffer.from(e.data);
    header.write(e.name, 0, 100, 'utf8');
    header.write('0000644\0', 100, 'ascii');
    header.write('0000000\0', 108, 'ascii');
    header.write('0000000\0', 116, 'ascii');
    header.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124, 'ascii');
    header.write('00000000000\0', 136, 'ascii');
    header.write('        ', 148, 'ascii');
    header.write(e.flag ?? '0', 156, 'ascii');
    if (e.link) header.write(e.link, 157, 100, 'utf8');
    header.write('ustar\0', 257, 'ascii');
    header.write('00', 263, 'ascii');
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
    blocks.push(header, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
function archive(entries: TarEntry[], manifest?: unknown): Buffer {
  const listed = manifest ?? { format: 1, ternVersion: '0.1.0', schemaRevision: 'b3e1c5a7d902', createdAt: new Date(0).toISOString(), entries: entries.map((e) => ({ name: e.name, type: e.type, bytes: e.data.length, sha256: sha(e.data) })) };
  const m = entry('manifest.json', typeof listed === 'string' ? listed : JSON.stringify(listed));
  return gzipSync(writeTar([m, ...entries]));
}
const restore = (path: string) => ipc('backup.restore', { backup: path });
/** A manifest Tern reads (manifest.json comes first and must hold): the entry after it is what is tested. */
const MANIFEST = JSON.stringify({ format: 1, ternVersion: '0.1.0', schemaRevision: 'b3e1c5a7d902', createdAt: new Date(0).toISOString(), entries: [{ name: 'tern.db', type: 'file', bytes: 1, sha256: sha(Buffer.from('x')) }] });

let bomb = '';
describe('backup archives', () => {
  // Made before the cases: compressing 200 MB here is the test's work, not Tern's.
  beforeAll(() => {
    bomb = file('bomb.tar.gz', gzipSync(Buffer.alloc(200 * 1024 * 1024)));
  });
  const cases: [string, () => string, RegExp][] = [
    ['a file that is not gzip', () => file('x.tar.gz', 'hello'), /not a gzip archive|not a Tern backup/],
    ['an empty file', () => file('empty.tar.gz', ''), /not a Tern backup|damaged|cut short/],
    ['gzip of a non-tar', () => file('nt.tar.gz', gzipSync('hello world')), /damaged|cut short|not a Tern backup/],
    ['a truncated gzip', () => file('tr.tar.gz', gzipSync(Buffer.alloc(100_000, 1)).subarray(0, 200)), /not a gzip archive|damaged/],
    ['a gzip bomb (200 MB of zeros)', () => bomb, /no manifest|not a Tern backup/],
    ['a tar without a manifest', () => file('nm.tar.gz', gzipSync(writeTar([entry('tern.db', 'x')]))), /does not start with a manifest/],
    ['a manifest that is not JSON', () => file('mj.tar.gz', archive([entry('tern.db', 'x')], '{')), /manifest/],
    ['a manifest nested 10,000 deep', () => file('md.tar.gz', archive([entry('tern.db', 'x')], `{"entries":${nestedJson(10_000)}}`)), /manifest/],
    ['a manifest with __proto__', () => file('mp.tar.gz', archive([entry('tern.db', 'x')], '{"__proto__":{"polluted":1}}')), /manifest/],
    ['an entry ../../evil', () => file('tv.tar.gz', gzipSync(rawTar([{ name: 'manifest.json', data: MANIFEST }, { name: '../../evil', data: 'x' }]))), /unsafe path|refused/],
    ['an entry /etc/cron.d/x', () => file('ab.tar.gz', gzipSync(rawTar([{ name: 'manifest.json', data: MANIFEST }, { name: '/etc/cron.d/x', data: 'x' }]))), /unsafe path|refused/],
    ['an entry keys/../../x', () => file('kv.tar.gz', gzipSync(rawTar([{ name: 'manifest.json', data: MANIFEST }, { name: 'keys/../../x', data: 'x' }]))), /unsafe path|refused/],
    ['a symlink entry to /etc/passwd', () => file('sl.tar.gz', gzipSync(rawTar([{ name: 'manifest.json', data: MANIFEST }, { name: 'keys/k', data: '', flag: '2', link: '/etc/passwd' }]))), /links are refused/],
    ['a hard link entry', () => file('hl.tar.gz', gzipSync(rawTar([{ name: 'manifest.json', data: MANIFEST }, { name: 'uploads/a', data: '', flag: '1', link: '../../x' }]))), /links are refused/],
    ['a header with a bad checksum', () => { const t = rawTar([{ name: 'manifest.json', data: '{}' }]); t[0] = 0x41; return file('bc.tar.gz', gzipSync(t)); }, /checksum/],
    ['an entry of markup', () => file('mk.tar.gz', archive([entry(`uploads/${SCRIPTS[0]!.replace(/\//g, '')}`, 'x')])), /no database|refused|damaged/],
    ['a checksum that does not match', () => file('ck.tar.gz', archive([entry('tern.db', 'x')], { format: 1, ternVersion: '0', schemaRevision: 'b3e1c5a7d902', createdAt: new Date(0).toISOString(), entries: [{ name: 'tern.db', type: 'file', bytes: 1, sha256: '0'.repeat(64) }] })), /checksum/],
    ['an unknown schema revision', () => file('rv.tar.gz', archive([entry('tern.db', 'x')], { format: 1, ternVersion: '9', schemaRevision: 'ffffffffffff', createdAt: new Date(0).toISOString(), entries: [{ name: 'tern.db', type: 'file', bytes: 1, sha256: sha(Buffer.from('x')) }] })), /revision|manifest|not an SQLite database/],
    ['a database that is not SQLite', () => file('ns.tar.gz', archive([entry('tern.db', 'not a database at all')])), /database|not|damaged/i],
    ['a path that does not exist', () => join(dir, 'nope.tar.gz'), /no file at/],
    ['a path to /etc/passwd', () => '/etc/passwd', /not a Tern backup|not a gzip|could not be read|refused/],
    ['a folder', () => dir, /is a folder, not a backup file/],
    ['a relative path with traversal', () => '../../../../etc/passwd', /Name a backup from the list/],
    ['a name with a NUL', () => `${dir}/x\u0000.tar.gz`, /no file at/],
  ];
  it.each(cases)('%s', (name, path, reason) => runCase(h, { name, send: () => restore(path())(), status: 400, reason }));
});

describe('microblog.pub folders', () => {
  const folder = (files: Record<string, string>) => {
    const path = mkdtempSync(join(dir, 'mbp-'));
    for (const [name, content] of Object.entries(files)) writeFileSync(join(path, name), content);
    return path;
  };
  const profile = (extra = '') => `domain = "blog.example"\nusername = "me"\nname = "Me"\nsummary = "hi"\n${extra}`;
  const cases: [string, () => string][] = [
    ['a folder that does not exist', () => join(dir, 'missing')],
    ['an empty folder', () => folder({})],
    ['a folder without the database', () => folder({ 'profile.toml': profile(), 'key.pem': 'x' })],
    ['a database that is not SQLite', () => folder({ 'microblogpub.db': 'hello', 'profile.toml': profile(), 'key.pem': 'x' })],
    ['a profile.toml that is not TOML', () => folder({ 'microblogpub.db': '', 'profile.toml': '[[[', 'key.pem': 'x' })],
    ['a profile with markup in the name', () => folder({ 'microblogpub.db': '', 'profile.toml': `domain = "blog.example"\nusername = "me"\nname = "${SCRIPTS[1]}"`, 'key.pem': 'x' })],
    ['a profile with a javascript: domain', () => folder({ 'microblogpub.db': '', 'profile.toml': profile().replace('blog.example', 'javascript:alert(1)'), 'key.pem': 'x' })],
    ['a profile with a domain localhost.', () => folder({ 'microblogpub.db': '', 'profile.toml': profile().replace('blog.example', 'localhost.'), 'key.pem': 'x' })],
    ['a key.pem that is not a key', () => folder({ 'microblogpub.db': '', 'profile.toml': profile(), 'key.pem': '-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----' })],
    ['a key.pem that links to /etc/shadow', () => {
      const path = folder({ 'microblogpub.db': '', 'profile.toml': profile() });
      symlinkSync('/etc/shadow', join(path, 'key.pem'));
      return path;
    }],
    ['/etc', () => '/etc'],
    ['a relative path', () => '../../..'],
  ];
  it.each(cases)('%s', (name, path) => runCase(h, { name, send: () => ipc('import.microblogpub', { folder: path(), confirm: true })(), status: 400 }));
});

describe('the following CSV', () => {
  const csv = (text: string) => ipc('import.following', { csv: text });
  const header = 'Account address,Show boosts,Notify on new posts,Languages\n';
  const cases: [string, string][] = [
    ['a handle of markup', `${header}${SCRIPTS[0]}@blog.example,true,false,\n`],
    ['a handle at localhost.', `${header}bob@localhost.,true,false,\n`],
    ['a handle at 169.254.169.254', `${header}bob@169.254.169.254,true,false,\n`],
    ['a handle at [::1]', `${header}bob@[::1],true,false,\n`],
    ['a handle at 0x7f000001', `${header}bob@0x7f000001,true,false,\n`],
    ['a javascript: address', `${header}javascript:alert(1),true,false,\n`],
    ['a file: address', `${header}file:///etc/passwd,true,false,\n`],
    ['a line with an unclosed quote', `${header}"bob@blog.example,true\n`],
    ['10,000 empty lines', `${header}${'\n'.repeat(10_000)}`],
    ['a line of 100,000 commas', `${header}${','.repeat(100_000)}\n`],
    ['a formula (CSV injection)', `${header}=HYPERLINK("http://evil.example"),true,false,\n`],
    ['binary bytes', `${header}\u0000\u0001\u0002@x,true\n`],
    ['no header, only markup', SCRIPTS.join('\n')],
  ];
  it.each(cases)('%s', (name, text) => runCase(h, { name, send: () => csv(text)(), status: [200, 400] }));
  it('a CSV over 1 MiB', () => runCase(h, { name: 'a CSV over 1 MiB', send: () => csv(`${header}${'a@b.example,true,false,\n'.repeat(60_000)}`)(), status: [400, 413], reason: /at most 1 MiB|too large/ }));
});
