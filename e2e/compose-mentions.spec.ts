// Mention autocomplete in Compose (UX.md "Compose"): typing @ and the start of a name offers the
// people Tern knows whose handle starts so, from its people search; the keyboard or a click puts
// the full handle in, and Escape leaves the text as typed. Tern's search answers with fixed
// people here (./fake-answers.ts): a lone headless Tern knows no one yet.
import type { SearchResults } from '../electron/core/ipc/search-contract';
import { expect, test } from './fixtures';
import { actor, ana, answer, ben, chloe } from './fake-answers';
import { screenshotPath } from './screenshots';

const bea = actor(4, 'Bea Santos', '@bea@mastodon.example');
// Found by the search (her name has "be" in it) but her handle does not start so.
const rueben = actor(5, 'Rueben Berg', '@rueben@gts.example');
const KNOWN = [ben, rueben, bea, ana, chloe];

test('typing @ and a name offers known handles; Enter, Tab or a click puts one in; Escape keeps the text', async ({ page, tern }) => {
  const asked: unknown[] = [];
  await answer(page, 'search.query', (input): SearchResults => {
    asked.push(input);
    const words = String((input as { text: string }).text).toLowerCase().split(' ');
    const people = KNOWN.filter((a) => words.every((w) => `${a.name} ${a.handle}`.toLowerCase().includes(w))).map((a) => ({ actor: a, snippet: a.name }));
    return { posts: [], people, webmentions: [], nextCursor: null, indexing: null };
  });
  await page.goto(`${tern.url}#/compose`);
  const text = page.getByRole('textbox', { name: 'Your post' });
  await expect(text).toBeFocused();
  const list = page.getByRole('listbox', { name: 'People to mention' });

  // Two letters are asked about; the handles that start so are offered, the first one active.
  await page.keyboard.type('Hello @be');
  await expect(list.getByRole('option')).toHaveText([/Ben Okafor\s*@ben@gts\.example/, /Bea Santos\s*@bea@mastodon\.example/]);
  expect(asked).toContainEqual(expect.objectContaining({ text: 'be', kind: 'people' }));
  await expect(list.getByRole('option').first()).toHaveAttribute('aria-selected', 'true');
  await expect(text).toHaveAttribute('aria-activedescendant', (await list.getByRole('option').first().getAttribute('id'))!);
  await page.screenshot({ path: screenshotPath('compose-mentions') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: screenshotPath('compose-mentions-dark') });
  await page.emulateMedia({ colorScheme: 'light' });

  // Enter chooses the active one (it does not start a new line).
  await page.keyboard.press('Enter');
  await expect(text).toHaveValue('Hello @ben@gts.example ');
  await expect(list).toHaveCount(0);

  // Down, then Tab: the second.
  await page.keyboard.type('and @be');
  await expect(list.getByRole('option')).toHaveCount(2);
  await page.keyboard.press('ArrowDown');
  await expect(list.getByRole('option').nth(1)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Tab');
  await expect(text).toHaveValue('Hello @ben@gts.example and @bea@mastodon.example ');
  await expect(text).toBeFocused();

  // Escape closes the list and leaves what was typed; Enter is a new line again.
  await page.keyboard.type('@ch');
  await expect(list.getByRole('option')).toHaveText([/Chloé Martin/]);
  await page.keyboard.press('Escape');
  await expect(list).toHaveCount(0);
  await page.keyboard.press('Enter');
  await expect(text).toHaveValue('Hello @ben@gts.example and @bea@mastodon.example @ch\n');

  // A click works too; the host part narrows the choice.
  await page.keyboard.type('cc @ana@mast');
  await expect(list.getByRole('option')).toHaveText([/Ana Lima\s*@ana@mastodon\.example/]);
  await list.getByRole('option', { name: /Ana Lima/ }).click();
  await expect(text).toHaveValue('Hello @ben@gts.example and @bea@mastodon.example @ch\ncc @ana@mastodon.example ');
  await expect(text).toBeFocused();
  await expect(page.getByTestId('compose-preview').locator('.mention')).toHaveText(['@ben@gts.example', '@bea@mastodon.example', '@ana@mastodon.example']);

  await page.getByRole('button', { name: 'Discard draft' }).click();
});
