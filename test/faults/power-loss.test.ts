// Power loss in CI: a few SIGKILLs at random moments of a delivery to 200 followers, the inbox,
// uploads, a search-index rebuild, an upgrade, a backup and a restore (power-loss.ts); `npm run
// torture` runs the same with 100 kills each.
import { describe, expect, it } from 'vitest';
import { tortureBackupRestore, tortureDelivery, tortureInbox, tortureMigration, tortureSearchRebuild, tortureUpload } from './power-loss';

describe('SIGKILL at random moments', () => {
  it('delivery to 200 followers: the database stays whole, no row is lost, and every follower gets the post in the end', async () => {
    const r = await tortureDelivery(4, 200);
    console.log(`delivery: ${r.kills} kills (${r.midTask} mid-task), ${r.received} requests for ${r.followers} followers, ${r.ackedResent} acknowledged ones sent again`);
    expect(r.integrityFailures).toBe(0);
    expect(r.rowsLost).toBe(0);
    expect(r.allDelivered).toBe(true);
    expect(r.leftovers).toEqual([]);
    expect(r.notes).toEqual([]);
  }, 120_000);

  it('the inbox under load (8 senders): every activity answered 202 is stored and processed exactly once, whatever the kills', async () => {
    const r = await tortureInbox(3);
    console.log(`inbox: ${r.kills} kills, ${r.sent} sent, ${r.acknowledged} acknowledged, ${r.acknowledgedLost} acknowledged but lost, ${r.notProcessedOnce} not processed exactly once`);
    expect(r.acknowledged).toBeGreaterThan(0);
    expect(r.integrityFailures).toBe(0);
    expect(r.acknowledgedLost).toBe(0);
    expect(r.notProcessedOnce).toBe(0);
    expect(r.notes).toEqual([]);
  }, 120_000);

  it('uploads cut short: after the next start every row has its files and every file its row, no temporary file; all stored in the end', async () => {
    const r = await tortureUpload(3, 6);
    console.log(`upload: ${r.kills} kills (${r.midTask} mid-task), ${r.stored} stored`);
    expect(r.midTask).toBeGreaterThan(0);
    expect(r.integrityFailures).toBe(0);
    expect(r.rowsLost).toBe(0);
    expect(r.leftovers).toEqual([]);
    expect(r.notes).toEqual([]);
    expect(r.stored).toBe(6);
  }, 180_000);

  it('the search index rebuild of 20,000 posts cut short: every post indexed once in the end, FTS5 integrity-check passes', async () => {
    const r = await tortureSearchRebuild(3, 20_000);
    console.log(`search index: ${r.kills} kills (${r.midTask} mid-task)`);
    expect(r.integrityFailures).toBe(0);
    expect(r.rowsLost).toBe(0);
    expect(r.notes).toEqual([]);
  }, 180_000);

  it('an upgrade of 50,000 rows cut short leaves the database at a revision of the chain, whole, with every row', async () => {
    const r = await tortureMigration(3, 50_000);
    console.log(`migration: ${r.kills} kills (${r.midTask} mid-task)`);
    expect(r.integrityFailures).toBe(0);
    expect(r.rowsLost).toBe(0);
    expect(r.notes).toEqual([]);
  }, 120_000);

  it('a backup or a restore cut short leaves the data whole — old or new, never a mix — and no temporary files after the next start', async () => {
    const [backup, restore] = await tortureBackupRestore(3);
    for (const r of [backup!, restore!]) {
      console.log(`${r.scenario}: ${r.kills} kills (${r.midTask} mid-task); ${r.notes.join('; ')}`);
      expect(r.integrityFailures).toBe(0);
      expect(r.rowsLost).toBe(0);
      expect(r.leftovers).toEqual([]);
    }
    expect(restore!.notes.filter((n) => !/restores were complete/.test(n))).toEqual([]);
  }, 180_000);
});
