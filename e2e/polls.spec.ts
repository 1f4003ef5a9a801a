// Polls as the author sees them, against an independent ActivityPub server (a Fedify peer on
// loopback): the author builds a poll in Compose, the peer votes in it, and the Polls place
// shows the result (the peer reads the same tallies from Tern's listener); then the peer asks
// a question of its own, and the author votes in it from the Stream. Screenshots on the way.
import { Create, Note, PUBLIC_COLLECTION, Question } from '@fedify/vocab';
import { instant } from '../test/peer/state';
import { expect, expectAfterReload, ipc, place, test } from './peer-fixtures';
import { screenshotPath } from './screenshots';

test('build a poll, the peer votes, see the results; vote in the peer’s poll', async ({ page, tern, peer, request }) => {
  test.setTimeout(120_000);
  const ternActor = tern.listenerUrl!.replace(/\/$/, '');
  await page.goto(tern.url);

  // An empty Polls place says what to do.
  await place(page, 'Polls').click();
  await expect(page.getByTestId('empty-state')).toContainText('No polls yet');

  // 1. Compose a poll: the question, two options (a third added and removed), one choice.
  await page.keyboard.press('n');
  await page.getByRole('textbox', { name: 'Your post' }).fill('Tea or coffee this afternoon?');
  await page.getByRole('button', { name: 'Add a poll' }).click();
  const builder = page.getByTestId('poll-builder');
  await builder.getByRole('textbox', { name: 'Option 1' }).fill('Tea');
  await builder.getByRole('textbox', { name: 'Option 2' }).fill('Coffee');
  await builder.getByRole('button', { name: 'Add an option' }).click();
  await builder.getByRole('textbox', { name: 'Option 3' }).fill('Neither');
  await builder.getByRole('combobox', { name: 'Open for' }).selectOption({ label: '1 hour' });
  await page.screenshot({ path: screenshotPath('polls-compose') });
  await page.getByRole('button', { name: 'Post', exact: true }).click();
  await expect(page.getByTestId('compose-sent')).toBeVisible();

  const polls = await ipc<{ items: { apId: string; poll: { kind: string; endTime: string } }[] }>(request, tern, 'polls.list', {});
  expect(polls.items).toHaveLength(1);
  const poll = polls.items[0]!;
  expect(poll.poll.kind).toBe('oneOf');

  // 2. The Polls place lists it, open, with no votes yet.
  await place(page, 'Polls').click();
  const shown = page.getByTestId('poll');
  await expect(shown.getByTestId('poll-result')).toHaveCount(3);
  await expect(shown).toContainText('0 people');
  await expect(shown.getByTestId('poll-time')).toContainText(/ends in (60|59) minutes/);

  // 3. The peer votes; the result shows, and the peer reads the same tallies from the listener.
  await peer.vote(poll.apId, ternActor, 'Coffee');
  await expectAfterReload(page, tern, '#/polls', (p) => p.getByTestId('poll'), '1 person');
  const coffee = page.getByTestId('poll-result').filter({ hasText: 'Coffee' });
  await expect(coffee).toContainText('100%');
  await expect(coffee).toContainText('1 vote');
  await expect(page.getByTestId('poll-result').filter({ hasText: 'Tea' })).toContainText('0%');
  await page.screenshot({ path: screenshotPath('polls-results') });
  const seen = await peer.lookup(poll.apId);
  expect(seen).toBeInstanceOf(Question);
  expect((seen as Question).voters).toBe(1);

  // 4. The author follows the peer, whose poll then reaches the Stream with a vote form.
  await ipc(request, tern, 'social.follow', { target: peer.actorId });
  await peer.waitFor((a) => a.type === 'Follow');
  await expect.poll(() => ipc<{ following: unknown[] }>(request, tern, 'people.list', {}).then((p) => p.following.length), { timeout: 20_000 }).toBe(1);
  const questionId = peer.newId('questions');
  await peer.send(
    new Create({
      id: peer.newId('creates'),
      actor: new URL(peer.actorId),
      to: PUBLIC_COLLECTION,
      object: new Question({
        id: questionId,
        attribution: new URL(peer.actorId),
        content: 'Soup or salad?',
        to: PUBLIC_COLLECTION,
        exclusiveOptions: [new Note({ name: 'Soup' }), new Note({ name: 'Salad' })],
        endTime: await instant(new Date(Date.now() + 3_600_000)),
        published: await instant(),
      }),
    }),
    [ternActor],
  );
  await expectAfterReload(page, tern, '#/stream', (p) => p.getByRole('main'), 'Soup or salad?');
  const theirs = page.getByTestId('post').filter({ hasText: 'Soup or salad?' }).getByTestId('poll');
  await expect(theirs.getByRole('group', { name: 'Choose one' })).toBeVisible();
  await theirs.getByRole('radio', { name: 'Salad' }).check();
  await page.screenshot({ path: screenshotPath('polls-vote-form') });
  await theirs.getByRole('button', { name: 'Vote' }).click();
  await expect(theirs.getByTestId('poll-result').filter({ hasText: 'Salad' })).toContainText('(your vote)');
  const vote = await peer.waitFor((a) => a.type === 'Create' && (a.raw as { object?: { name?: string } }).object?.name === 'Salad', 20_000);
  expect((vote.raw as { object: { inReplyTo: string } }).object.inReplyTo).toBe(questionId.href);
  await page.screenshot({ path: screenshotPath('polls-voted') });

  // 5. Another place and back: the Stream draws its posts anew, the poll still as voted in (not
  // its vote form again, from the Stream's copy of the post read before the vote).
  await page.getByRole('link', { name: 'Notifications' }).first().click();
  await expect(page.getByRole('heading', { name: 'Notifications', level: 1 })).toBeVisible();
  await page.goBack();
  await expect(theirs.getByTestId('poll-result').filter({ hasText: 'Salad' })).toContainText('(your vote)');
  await expect(theirs.getByRole('button', { name: 'Vote' })).toHaveCount(0);
});
