// Settings → Move from microblog.pub: a microblog.pub data/ folder (its database built from the
// spec's revisions and microblog.pub's later ones, profile.toml, key.pem, uploads) is checked,
// previewed, and moved in; Tern reopens as the same actor with the same key, and its posts,
// followers, following and notifications are in the app. A folder that is not microblog.pub's is refused, saying why.
import { createHash, createPublicKey } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeMicroblogPubFolder } from '../test/microblogpub/fixture';
import { expect, test } from './fixtures';
import { screenshotPath } from './screenshots';

test('move in from a microblog.pub data folder and be the same actor', async ({ page, tern }) => {
  test.setTimeout(60_000);
  const root = await mkdtemp(join(tmpdir(), 'tern-e2e-mbp-'));
  try {
    // At a209f0333f5a, where microblog.pub 2.x installs are: its columns beyond the spec, and a
    // waiting follow request of a kind Tern does not have.
    const fixture = writeMicroblogPubFolder(join(root, 'data'), { revision: 'a209f0333f5a' });
    await page.goto(`${tern.url}#/settings`);
    const section = page.getByRole('region', { name: 'Move from microblog.pub' });
    const folder = section.getByRole('textbox', { name: 'microblog.pub data folder' });

    // Not a microblog.pub folder: refused, naming what is missing.
    await folder.fill(root);
    await section.getByRole('button', { name: 'Check folder' }).click();
    await expect(section.getByRole('alert')).toContainText('is not a microblog.pub data folder: it has no microblogpub.db, profile.toml, key.pem');

    // The real one: a preview first, nothing changed yet.
    await folder.fill(fixture.folder);
    await section.getByRole('button', { name: 'Check folder' }).click();
    const preview = section.getByTestId('microblogpub-preview');
    await expect(preview).toContainText('You will be @mo@mbp.example');
    await expect(preview).toContainText('3 outbox entries · 3 inbox entries · 1 follower · 1 following · 4 notifications · 1 webmention · 2 uploads');
    await expect(preview).toContainText('Database revision a209f0333f5a.');
    await expect(preview).toContainText('Left behind, as Tern has no such kind: 1 row of notifications (PENDING_INCOMING_FOLLOWER).');
    await expect(preview).toContainText('Tern’s base URL changes from https://tern.test to https://mbp.example');
    await section.scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath('settings-microblogpub-preview') });

    await section.getByRole('button', { name: 'Move in and reopen' }).click();
    await expect(page.getByTestId('microblogpub-result')).toContainText('You are @mo@mbp.example on Tern now.');
    await page.getByTestId('microblogpub-section').scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath('settings-microblogpub-moved') });

    // The same actor with the same key: followers keep following.
    const keyDer = createPublicKey(fixture.keyPem).export({ type: 'spki', format: 'der' });
    const fingerprint = (createHash('sha256').update(keyDer).digest('hex').match(/../g) ?? []).join(':');
    await expect(page.getByTestId('key-fingerprint')).toHaveText(fingerprint);
    await expect(page.getByRole('region', { name: 'Identity' }).getByRole('textbox', { name: 'Base URL' })).toHaveValue('https://mbp.example');
    await expect(page.getByRole('region', { name: 'Profile' }).getByRole('textbox', { name: 'Display name' })).toHaveValue('Mo "the mover"');
    expect(await readFile(join(tern.dataDir, 'uploads', Object.keys(fixture.uploads)[0]!))).toEqual(Object.values(fixture.uploads)[0]);

    // The app shows what came over: the posts, the people, the notifications.
    await page.goto(`${tern.url}#/profile`);
    await expect(page.getByTestId('post').filter({ hasText: 'Hello from microblog.pub' })).toHaveCount(1);
    await expect(page.getByTestId('post').filter({ hasText: 'A picture' })).toHaveCount(1);
    await page.screenshot({ path: screenshotPath('microblogpub-profile') });
    await page.goto(`${tern.url}#/people?tab=followers`);
    await expect(page.getByRole('list', { name: 'Followers' })).toContainText('Ada');
    await page.goto(`${tern.url}#/people?tab=following`);
    await expect(page.getByRole('list', { name: 'Following' })).toContainText('Bo');
    await page.goto(`${tern.url}#/notifications`);
    await expect(page.getByTestId('notification').first()).toBeVisible();
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
