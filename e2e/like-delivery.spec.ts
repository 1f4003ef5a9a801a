// A like and a boost against an independent ActivityPub server (a Fedify peer on loopback): the
// pending mark on the post lasts until the delivery queue says the peer has it, then goes, with
// no failure shown — the real queue, not fixed answers (content.spec.ts covers a failure).
import type { DeliveriesView } from '../electron/core/ipc/author-contract';
import { expect, expectAfterReload, followPeer, ipc, test } from './peer-fixtures';

test('liking and boosting a followed peer’s post: the peer receives both, and the pending marks go once delivered', async ({ page, tern, peer, request }) => {
  test.setTimeout(90_000);
  await followPeer(page, tern, peer);

  const { noteId } = await peer.createNote({ content: '<p>The first swifts are over the river.</p>', to: 'public' });
  await expectAfterReload(page, tern, '#/stream', (p) => p.getByRole('main'), 'The first swifts are over the river.');
  const note = page.getByTestId('post').filter({ hasText: 'The first swifts' });

  await note.getByRole('button', { name: 'Like' }).click();
  await expect(note.getByRole('button', { name: 'Like' })).toHaveAttribute('aria-pressed', 'true');
  const like = await peer.waitFor((a) => a.type === 'Like', 20_000);
  expect(like.objectId).toBe(noteId);
  await expect(note.getByTestId('pending')).toHaveCount(0, { timeout: 15_000 });

  await note.getByRole('button', { name: 'Boost' }).click();
  await expect(note.getByRole('button', { name: 'Boost' })).toHaveAttribute('aria-pressed', 'true');
  const announce = await peer.waitFor((a) => a.type === 'Announce', 20_000);
  expect(announce.objectId).toBe(noteId);
  await expect(note.getByTestId('pending')).toHaveCount(0, { timeout: 15_000 });
  await expect(note.getByRole('alert')).toHaveCount(0);

  // What the marks were read from: the queue's rows about the post, a Like and an Announce, sent.
  const rows = await ipc<DeliveriesView>(request, tern, 'deliveries.list', { postApId: noteId, state: 'all' });
  expect(rows.items.map((r) => [r.activity.type, r.state]).sort()).toEqual([
    ['Announce', 'sent'],
    ['Like', 'sent'],
  ]);
});
