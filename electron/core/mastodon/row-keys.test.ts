// Status ids decode to the exact row in SQLite even past 2^21 rows, where a row shares its id's
// low bits with an earlier one: the published time tells them apart, and a page cut there holds.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as S from './entity-schemas';
import { call, openMastodonRig, signIn, type MastodonRig } from './test-support';

let t: MastodonRig;
let token: string;
beforeAll(async () => {
  t = await openMastodonRig();
  token = (await signIn(t, ['read', 'write'])).token;
});
afterAll(async () => t.close());

const post = async (text: string) => S.Status.parse((await call(t, token, 'POST', '/api/v1/statuses', { status: text })).json);

describe('row keys', () => {
  it('a row past 2^21 with the same low bits as an earlier row is found exactly, and pages cut on it', async () => {
    const early = await post('Early');
    const db = t.rig.core.db;
    const earlyRow = db.get<{ id: number }>(sql`SELECT id FROM outbox WHERE ap_id = ${early.uri}`)!.id;
    // Lift the outbox's row ids past 2^21 so the next post's low bits equal the early post's.
    const columns = db.all<{ name: string }>(sql`PRAGMA table_info(outbox)`).map((c) => c.name).filter((c) => c !== 'id' && c !== 'ap_id');
    const list = sql.raw(columns.join(', '));
    db.run(sql`INSERT INTO outbox (id, ap_id, ${list}) SELECT ${2 ** 21 + earlyRow - 1}, ap_id || '#filler', ${list} FROM outbox WHERE id = ${earlyRow}`);
    db.run(sql`UPDATE outbox SET is_deleted = 1 WHERE ap_id = ${early.uri + '#filler'}`);
    await new Promise((r) => setTimeout(r, 5)); // another millisecond than the early post
    const late = await post('Late');
    expect(db.get<{ id: number }>(sql`SELECT id FROM outbox WHERE ap_id = ${late.uri}`)!.id).toBe(2 ** 21 + earlyRow);
    expect(BigInt(late.id) & ((1n << 21n) - 1n)).toBe(BigInt(early.id) & ((1n << 21n) - 1n));
    expect(BigInt(late.id) < (1n << 63n) - 1n && late.id.length <= 19).toBe(true);

    const readBack = async (id: string) => S.Status.parse((await call(t, token, 'GET', `/api/v1/statuses/${id}`)).json).uri;
    expect(await readBack(late.id)).toBe(late.uri);
    expect(await readBack(early.id)).toBe(early.uri);
    const older = (await call(t, token, 'GET', `/api/v1/accounts/0/statuses?max_id=${late.id}`)).json as { id: string }[];
    expect(older.map((s) => s.id)).toEqual([early.id]);
    const newer = (await call(t, token, 'GET', `/api/v1/accounts/0/statuses?since_id=${early.id}`)).json as { id: string }[];
    expect(newer.map((s) => s.id)).toEqual([late.id]);
  });
});
