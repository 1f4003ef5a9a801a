// Settings → Backups: "Back up now" writes an archive into the data folder's backups/, says
// where, and the list shows it with its size and date. Then the whole round trip through the
// UI: back up, wipe the data folder, start again on the empty folder, restore the archive from
// Settings — every row of every table and every upload comes back, the key is the same, and
// the app works on the restored data.
import { copyFile, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import Database from 'better-sqlite3';
import type { APIRequestContext } from '@playwright/test';
import { expect, test } from './fixtures';
import { startHeadless, TEST_IDENTITY, type Headless } from './headless';
import { screenshotPath } from './screenshots';

test('Back up now writes an archive and the list shows it', async ({ page, tern }) => {
  await page.goto(`${tern.url}#/settings`);
  const section = page.getByRole('region', { name: 'Backups' });
  await expect(section).toBeVisible();
  await section.getByRole('button', { name: 'Back up now' }).click();
  const result = section.getByTestId('backup-result');
  await expect(result).toContainText(`Saved to ${tern.dataDir}`);
  const path = ((await result.textContent()) ?? '').replace(/^Saved to /, '');
  await expect(section.getByTestId('backup-list')).toContainText(basename(path));
  await expect(section.getByTestId('backup-list')).toContainText(/\d+ KB/);
  await expect(section.getByRole('combobox', { name: 'Backup to restore' })).toContainText(basename(path));
  await section.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath('settings-backup'), fullPage: true });
});

async function ipc<T>(request: APIRequestContext, tern: Headless, channel: string, input: unknown): Promise<T> {
  const res = await request.post(`${tern.origin}/ipc/${channel}`, { headers: { authorization: `Bearer ${tern.token}` }, data: input });
  const body = (await res.json()) as { ok: boolean; value: T; error?: { message: string } };
  expect(body.ok, body.error?.message).toBe(true);
  return body.value;
}

/** Every row of every table, in rowid order, read from the file (read-only) beside the running
 * Tern — but the search index's (search_*), which the running Tern's indexer may change at any moment. */
function dumpDatabase(dataDir: string): Record<string, unknown[]> {
  const db = new Database(join(dataDir, 'tern.db'), { readonly: true, fileMustExist: true });
  try {
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'search\\_%' ESCAPE '\\' ORDER BY name")
      .pluck()
      .all() as string[];
    return Object.fromEntries(tables.map((t) => [t, db.prepare(`SELECT * FROM "${t}" ORDER BY rowid`).all()]));
  } finally {
    db.close();
  }
}

test('back up, wipe the data folder, restore from Settings: every row and upload is back and the app works', async ({ browser }) => {
  test.setTimeout(90_000);
  const dataDir = await realpath(await mkdtemp(join(tmpdir(), 'tern-e2e-restore-')));
  const elsewhere = await realpath(await mkdtemp(join(tmpdir(), 'tern-e2e-archive-')));
  let tern: Headless | null = null;
  try {
    tern = await startHeadless({ ...TEST_IDENTITY, dataDir });
    let context = await browser.newContext();
    let page = await context.newPage();
    // Some data: posts (one written through Compose), a pinned one, an upload on disk.
    await page.goto(`${tern.url}#/compose`);
    await page.getByRole('textbox', { name: 'Your post' }).fill('Before the backup');
    await page.getByRole('button', { name: 'Post', exact: true }).click();
    await expect(page.getByTestId('compose-sent')).toBeVisible();
    const second = await ipc<{ apId: string }>(page.request, tern, 'posts.create', { content: 'Pinned, and still there after a restore' });
    await ipc(page.request, tern, 'posts.pin', { apId: second.apId });
    await mkdir(join(dataDir, 'uploads'), { recursive: true });
    const upload = Buffer.from(Array.from({ length: 4096 }, (_, i) => i % 251));
    await writeFile(join(dataDir, 'uploads', 'a1b2c3'), upload);
    const fingerprint = (await ipc<{ publicKeyFingerprint: string }>(page.request, tern, 'settings.get', {})).publicKeyFingerprint;

    await page.goto(`${tern.url}#/settings`);
    const backups = page.getByRole('region', { name: 'Backups' });
    await backups.getByRole('button', { name: 'Back up now' }).click();
    await expect(backups.getByTestId('backup-result')).toContainText('Saved to');
    const archive = ((await backups.getByTestId('backup-result').textContent()) ?? '').replace(/^Saved to /, '');
    const before = dumpDatabase(dataDir);
    const counts = (await ipc<{ counts: Record<string, number> }>(page.request, tern, 'app.status', {})).counts;
    expect(counts.outbox).toBeGreaterThanOrEqual(2);
    await context.close();

    // Wipe: Tern stops, the archive is kept elsewhere, the data folder is emptied.
    const kept = join(elsewhere, basename(archive));
    await copyFile(archive, kept);
    await tern.stop();
    await rm(dataDir, { recursive: true, force: true });
    await mkdir(dataDir);

    // A fresh Tern on the empty folder: nothing there, a new key.
    tern = await startHeadless({ ...TEST_IDENTITY, dataDir });
    context = await browser.newContext();
    page = await context.newPage();
    expect((await ipc<{ counts: Record<string, number> }>(page.request, tern, 'app.status', {})).counts.outbox).toBe(0);
    await page.goto(`${tern.url}#/settings`);
    const restore = page.getByTestId('restore-backup');
    // A wrong path is refused, saying why, and nothing changes.
    await restore.getByRole('textbox', { name: 'Or a backup file elsewhere' }).fill(join(elsewhere, 'missing.tar.gz'));
    await restore.getByRole('button', { name: 'Restore…' }).click();
    await restore.getByRole('button', { name: 'Restore and reopen' }).click();
    await expect(restore.getByRole('alert')).toContainText('There is no file at');

    await restore.getByRole('textbox', { name: 'Or a backup file elsewhere' }).fill(kept);
    await restore.getByRole('button', { name: 'Restore…' }).click();
    await expect(restore).toContainText(`Restore ${kept}?`);
    await page.screenshot({ path: screenshotPath('settings-restore-confirm') });
    await restore.getByRole('button', { name: 'Restore and reopen' }).click();
    // The page reloads on the restored data and says what happened.
    await expect(page.getByTestId('restore-result')).toContainText(`Restored ${kept}.`);
    await page.getByTestId('restore-backup').scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath('settings-restored') });

    // Every row of every table, every upload byte, the same key.
    expect(dumpDatabase(dataDir)).toEqual(before);
    expect(await readFile(join(dataDir, 'uploads', 'a1b2c3'))).toEqual(upload);
    await expect(page.getByTestId('key-fingerprint')).toHaveText(fingerprint);
    expect((await ipc<{ counts: Record<string, number> }>(page.request, tern, 'app.status', {})).counts).toEqual(counts);

    // The app works on it: the posts are in Profile (the pinned one first), and a new one can be written.
    await page.goto(`${tern.url}#/profile`);
    const posts = page.getByTestId('post');
    await expect(posts.first()).toContainText('Pinned, and still there after a restore');
    await expect(posts.filter({ hasText: 'Before the backup' })).toHaveCount(1);
    await page.goto(`${tern.url}#/compose`);
    await page.getByRole('textbox', { name: 'Your post' }).fill('After the restore');
    await page.getByRole('button', { name: 'Post', exact: true }).click();
    await expect(page.getByTestId('compose-sent')).toBeVisible();
    await page.goto(`${tern.url}#/profile`);
    await expect(posts.filter({ hasText: 'After the restore' })).toHaveCount(1);
    await context.close();
  } finally {
    await tern?.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(elsewhere, { recursive: true, force: true });
  }
});
