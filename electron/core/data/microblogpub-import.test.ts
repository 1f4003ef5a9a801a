import { createHash, createPublicKey } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openCore } from '../core';
import { createCoreHost, type CoreHost } from '../core-host';
import { BadInputError, ConflictError } from '../errors';
import { HEAD, currentRevision } from '../../../migrations/runner';
import { publicKeyFingerprint } from '../settings-service';
import { writeMicroblogPubFolder, type MicroblogPubRevision } from '../../../test/microblogpub/fixture';
import { identityFromProfile, importMicroblogPub, readTomlTopLevel } from './microblogpub-import';
import { hashSecret } from '../indieauth/secrets';
import { signRequest } from '@fedify/fedify';
import { sql } from 'drizzle-orm';
import { storedActorKeys } from '../federation/stored-keys';
import { preloadedContextLoader } from '../net/document-loader';
import { createKeyCache } from '../net/key-cache';
import { exportPublicKeyPem, verifyInbound } from '../net/signatures';

const dirs: string[] = [];
const hosts: CoreHost[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'tern-mbp-'));
  dirs.push(d);
  return d;
};
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

async function hostOn(dataDir: string): Promise<CoreHost> {
  const host = await createCoreHost({ open: () => openCore({ dataDir, mode: 'headless' }), run: () => async () => {} });
  hosts.push(host);
  return host;
}
function digestTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (name.isFile()) out[join(name.parentPath, name.name)] = createHash('sha256').update(readFileSync(join(name.parentPath, name.name))).digest('hex');
  }
  return out;
}
const spkiFingerprint = (pem: string) =>
  (createHash('sha256').update(createPublicKey(pem).export({ type: 'spki', format: 'der' })).digest('hex').match(/../g) ?? []).join(':');

describe('profile.toml', () => {
  it('reads top-level strings (escapes, multi-line), booleans and numbers, and stops at the first table', () => {
    const toml = readTomlTopLevel('a = "x \\"y\\" \\u00e9"\nb = \'lit\\n\'\n# note\nc = """\nline 1\nline 2"""\nd = true\ne = 42\nf = ["skipped"]\n[t]\ng = "not top-level"\n');
    expect(toml).toEqual({ a: 'x "y" é', b: 'lit\\n', c: 'line 1\nline 2', d: true, e: 42 });
  });
  it('builds the identity: http(s)://domain, name, summary, approval by hand', () => {
    const id = identityFromProfile('domain = "mbp.example"\nusername = "mo"\nname = "Mo"\nsummary = "Hi"\nmanually_approves_followers = true\n');
    expect(id).toEqual({ baseUrl: 'https://mbp.example', username: 'mo', displayName: 'Mo', summary: 'Hi', manuallyApprovesFollowers: true, handle: '@mo@mbp.example' });
    expect(identityFromProfile('domain = "localhost:8000"\nusername = "mo"\nhttps = false\n').baseUrl).toBe('http://localhost:8000');
    expect(() => identityFromProfile('username = "mo"\n')).toThrow(/no domain/);
    expect(() => identityFromProfile('domain = "mbp.example"\nusername = "mo-mo"\n')).toThrow(/username/);
  });
});

describe('importMicroblogPub', () => {
  for (const revision of ['f5717d82b3ff', '9b404c47970a', '4ab54becec04', '604d125ea2fb', 'a209f0333f5a'] as MicroblogPubRevision[]) {
    it(`brings every row, the identity, the key and the uploads of a database at ${revision}`, async () => {
      const fixture = writeMicroblogPubFolder(join(tempDir(), 'data'), { revision });
      const before = digestTree(fixture.folder);
      const dataDir = tempDir();
      const host = await hostOn(dataDir);
      const core = host.current();

      const preview = await importMicroblogPub(core, undefined, fixture.folder, false);
      expect(preview.imported).toBe(false);
      expect(preview.preview.revision).toBe(revision);
      expect(preview.preview.identity.handle).toBe('@mo@mbp.example');
      expect(preview.preview.counts.outbox).toBe(3);
      expect(core.sqlite.prepare('SELECT count(*) FROM outbox').pluck().get()).toBe(0); // a preview changes nothing

      const result = await importMicroblogPub(core, host.reopen, fixture.folder, true);
      expect(result.imported).toBe(true);
      const moved = host.current();
      expect(moved).not.toBe(core);
      expect(currentRevision(moved.sqlite)).toBe(HEAD);
      // Every row, but a notification of a kind Tern does not have (reported in the preview).
      const leftOut = revision === 'a209f0333f5a' ? 1 : 0;
      expect(preview.preview.leftBehind).toEqual(
        leftOut ? [{ table: 'notifications', column: 'notification_type', value: 'PENDING_INCOMING_FOLLOWER', rows: 1 }] : [],
      );
      for (const [table, n] of Object.entries(fixture.counts)) {
        expect(moved.sqlite.prepare(`SELECT count(*) FROM "${table}"`).pluck().get(), table).toBe(table === 'notifications' ? n - leftOut : n);
      }
      // Naive UTC datetimes get their Z; the instant is the same.
      expect(moved.sqlite.prepare('SELECT created_at FROM outbox WHERE id = 1').pluck().get()).toBe('2022-07-01T10:00:11.123Z');
      expect(moved.sqlite.prepare('SELECT last_try FROM outgoing_activity WHERE id = 1').pluck().get()).toBe('2022-07-01T10:00:38.123Z');
      expect(moved.sqlite.prepare('SELECT source FROM outbox WHERE id = 1').pluck().get()).toBe('Hello from microblog.pub');
      // Secrets kept in plain text by microblog.pub are kept as Tern keeps its own: hashed.
      expect(moved.sqlite.prepare('SELECT access_token FROM indieauth_access_token WHERE id = 1').pluck().get()).toBe(hashSecret('mbp-access-token-1'));

      // The identity and the key: same actor id, same key, so followers keep following.
      const settings = moved.settings.get();
      expect(moved.identity()?.id).toBe('https://mbp.example');
      expect(settings).toMatchObject({ username: 'mo', displayName: 'Mo "the mover"', manuallyApprovesFollowers: true });
      expect(settings.summary).toBe('Writing from *my own* server.\nNow moving house.');
      expect(await publicKeyFingerprint(moved.fed.keys.rsa.publicKey)).toBe(spkiFingerprint(fixture.keyPem));

      // The app reads what came over.
      const followers = moved.sqlite.prepare('SELECT ap_actor_id FROM follower').pluck().all();
      expect(followers).toEqual(['https://remote.example/users/ada']);
      expect(moved.services.notifications.unreadCount()).toBe(2);
      for (const [name, data] of Object.entries(fixture.uploads)) expect(readFileSync(join(dataDir, 'uploads', name))).toEqual(data);

      // The source folder is untouched.
      expect(digestTree(fixture.folder)).toEqual(before);
      // The replaced files (the empty Tern) were moved aside, not deleted.
      expect(result.movedAside).not.toBeNull();
      expect(existsSync(join(result.movedAside!, 'tern.db'))).toBe(true);
    });
  }

  it('brings a datetime written with an offset (or microseconds) over as UTC text, so it sorts as the time it is', async () => {
    const fixture = writeMicroblogPubFolder(join(tempDir(), 'data'));
    const db = new Database(join(fixture.folder, 'microblogpub.db'));
    db.prepare("UPDATE outbox SET created_at = '2022-07-01T12:00:11.123456+02:00', ap_published_at = '2022-07-01 12:00:11 +02:00' WHERE id = 1").run();
    db.close();
    const host = await hostOn(tempDir());
    await importMicroblogPub(host.current(), host.reopen, fixture.folder, true);
    const row = host.current().sqlite.prepare('SELECT created_at, ap_published_at FROM outbox WHERE id = 1').get();
    expect(row).toEqual({ created_at: '2022-07-01T10:00:11.123Z', ap_published_at: '2022-07-01T10:00:11.000Z' });
  });

  it('copies uploads as regular files only: a link in uploads/ (to a secret elsewhere) is left behind', async () => {
    const fixture = writeMicroblogPubFolder(join(tempDir(), 'data'), { revision: 'a209f0333f5a' });
    const secret = join(tempDir(), 'id_rsa');
    writeFileSync(secret, 'SECRET KEY');
    const linkName = 'a'.repeat(64);
    symlinkSync(secret, join(fixture.folder, 'uploads', linkName));
    mkdirSync(join(fixture.folder, 'uploads', 'nested'));
    symlinkSync(secret, join(fixture.folder, 'uploads', 'nested', 'inner'));
    const dataDir = tempDir();
    const host = await hostOn(dataDir);
    const result = await importMicroblogPub(host.current(), host.reopen, fixture.folder, true);
    expect(result.preview.uploads).toBe(Object.keys(fixture.uploads).length);
    const uploads = join(dataDir, 'uploads');
    for (const [name, data] of Object.entries(fixture.uploads)) expect(readFileSync(join(uploads, name))).toEqual(data);
    expect(existsSync(join(uploads, linkName))).toBe(false);
    expect(existsSync(join(uploads, 'nested', 'inner'))).toBe(false);
    for (const entry of readdirSync(uploads, { recursive: true, withFileTypes: true })) expect(lstatSync(join(entry.parentPath, entry.name)).isSymbolicLink()).toBe(false);
  });

  it('refuses a folder that is not microblog.pub’s, naming what is missing', async () => {
    const host = await hostOn(tempDir());
    const empty = tempDir();
    await expect(importMicroblogPub(host.current(), host.reopen, empty, true)).rejects.toThrow(/not a microblog.pub data folder: it has no microblogpub.db, profile.toml, key.pem/);
    await expect(importMicroblogPub(host.current(), host.reopen, 'relative/data', true)).rejects.toThrow(BadInputError);
  });

  it('refuses a database at a revision it does not know, and changes nothing', async () => {
    const fixture = writeMicroblogPubFolder(join(tempDir(), 'data'));
    const db = new Database(join(fixture.folder, 'microblogpub.db'));
    db.prepare('UPDATE alembic_version SET version_num = ?').run('6aafc8f7dd54');
    db.close();
    const dataDir = tempDir();
    const host = await hostOn(dataDir);
    const core = host.current();
    await expect(importMicroblogPub(core, host.reopen, fixture.folder, true)).rejects.toThrow(/revision 6aafc8f7dd54, which Tern does not know/);
    expect(host.current()).toBe(core);
    expect(readdirSync(dataDir).filter((n) => n.startsWith('before-') || n.startsWith('.'))).toEqual([]);
  });

  it('refuses a key that is not RSA', async () => {
    const fixture = writeMicroblogPubFolder(join(tempDir(), 'data'));
    writeFileSync(join(fixture.folder, 'key.pem'), 'not a key');
    const host = await hostOn(tempDir());
    await expect(importMicroblogPub(host.current(), host.reopen, fixture.folder, false)).rejects.toThrow(/key.pem is not a private key/);
  });

  it('refuses a Tern that already holds posts or people (no merge), keeping its data', async () => {
    const fixture = writeMicroblogPubFolder(join(tempDir(), 'data'));
    const host = await hostOn(tempDir());
    const core = host.current();
    core.sqlite
      .prepare('INSERT INTO actor (created_at, updated_at, ap_id, ap_actor, ap_type) VALUES (?, ?, ?, ?, ?)')
      .run('2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 'https://x.example/u', '{}', 'Person');
    await expect(importMicroblogPub(core, host.reopen, fixture.folder, true)).rejects.toThrow(ConflictError);
    await expect(importMicroblogPub(core, host.reopen, fixture.folder, true)).rejects.toThrow(/already holds data \(1 actor\)/);
    expect(host.current()).toBe(core);
    expect(core.sqlite.prepare('SELECT count(*) FROM actor').pluck().get()).toBe(1);
  });

  it('when building the new data fails after the core closed, reopens on the old data', async () => {
    const fixture = writeMicroblogPubFolder(join(tempDir(), 'data'));
    const dataDir = tempDir();
    const host = await hostOn(dataDir);
    const core = host.current();
    core.settings.update({ displayName: 'Before' });
    // A row that breaks a foreign key: the copy is refused after the core closed (by the copy's
    // own check: the revision runner leaves a broken reference the database held as it was).
    const db = new Database(join(fixture.folder, 'microblogpub.db'));
    db.pragma('foreign_keys = OFF');
    db.prepare('UPDATE follower SET actor_id = 99').run();
    db.close();
    await expect(importMicroblogPub(core, host.reopen, fixture.folder, true)).rejects.toThrow("microblog.pub's follower rows point to actor rows that do not exist; nothing was changed.");
    const reopened = host.current();
    expect(reopened).not.toBe(core);
    expect(reopened.settings.get().displayName).toBe('Before');
    expect(reopened.sqlite.prepare('SELECT count(*) FROM outbox').pluck().get()).toBe(0);
    expect(readdirSync(dataDir).filter((n) => n.startsWith('before-') || n.startsWith('.'))).toEqual([]);
  });
});

describe("microblog.pub's stored actor documents", () => {
  // microblog.pub stored a fetched document under the id the document gave, from whichever server
  // served it: a row may hold a key another server wrote for that actor. Tern does not believe it.
  it('are not taken as the source of an actor’s key, and are fetched again before use', async () => {
    const fixture = writeMicroblogPubFolder(join(tempDir(), 'data'));
    const attacker = await crypto.subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['sign', 'verify']);
    const victim = 'https://remote.example/users/ada';
    const doc = { id: victim, type: 'Person', preferredUsername: 'ada', inbox: `${victim}/inbox`, publicKey: { id: `${victim}#main-key`, owner: victim, publicKeyPem: await exportPublicKeyPem(attacker.publicKey) } };
    const source = new Database(join(fixture.folder, 'microblogpub.db'));
    source.prepare('UPDATE actor SET ap_actor = ?, updated_at = ? WHERE ap_id = ?').run(JSON.stringify(doc), new Date().toISOString().replace('T', ' ').replace('Z', ''), victim);
    source.close();
    const host = await hostOn(tempDir());
    await importMicroblogPub(host.current(), host.reopen, fixture.folder, true);
    const row = host.current().db.get<{ updated_at: string }>(sql`SELECT updated_at FROM actor WHERE ap_id = ${victim}`);
    expect(row.updated_at).toBe('1970-01-01T00:00:00.000Z');
    const keyCache = createKeyCache({ store: storedActorKeys(host.current().db, () => new Date()) });
    expect(await keyCache.get(new URL(`${victim}#main-key`))).toBeUndefined();
    const body = JSON.stringify({ id: 'https://remote.example/likes/99', type: 'Like', actor: victim, object: 'https://mbp.example/o/aa01' });
    const signed = await signRequest(new Request('https://mbp.example/inbox', { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body }), attacker.privateKey, new URL(`${victim}#main-key`), { spec: 'draft-cavage-http-signatures-12' });
    const noFetch = () => Promise.reject(new Error('no fetch here'));
    const result = await verifyInbound(signed, { documentLoader: noFetch, contextLoader: preloadedContextLoader, keyCache: createKeyCache({ store: storedActorKeys(host.current().db, () => new Date()) }) }, new TextEncoder().encode(body));
    expect(result).toMatchObject({ ok: false });
  });
});
