// How the Notifications view groups and words emoji reactions: per post and per emoji, never
// with likes; who reacted with which emoji, the emoji isolated like the names.
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { WithNames } from '../components/WithNames';
import { groupNotifications, type NotificationItem, type NotificationReaction } from './groups';
import { reactionSentence } from './reactions';

let nextId = 1;
function item(type: 'LIKE' | 'UNDO_LIKE', actorId: number, reaction: NotificationReaction | null, postId = 7): NotificationItem {
  const id = nextId++;
  return {
    id,
    type,
    createdAt: new Date(Date.UTC(2030, 0, 1, 0, 0, 100 - id)).toISOString(),
    isNew: true,
    actor: { id: actorId, apId: `https://x.example/${actorId}`, name: ['Ana', 'Ben', 'Chloé', 'Dana'][actorId - 1] ?? `A${actorId}`, handle: null, iconUrl: null, url: '' },
    outboxObject: { id: postId, box: 'outbox', apId: `https://me.example/o/${postId}`, apType: 'Note', excerpt: 'Low tide', isDeleted: false },
    inboxObject: { id: 100 + id, box: 'inbox', apId: `https://x.example/r/${id}`, apType: reaction ? 'EmojiReact' : 'Like', excerpt: reaction?.emoji ?? null, isDeleted: false },
    webmentionId: null,
    ...(reaction ? { reaction } : {}),
  };
}

const party: NotificationReaction = { emoji: '🎉', custom: null };
const fire: NotificationReaction = { emoji: '🔥', custom: null };

/** The sentence as the view shows it (its markup). */
function shown(group: ReturnType<typeof groupNotifications>[number]): string {
  const sentence = reactionSentence(group);
  return sentence ? renderToStaticMarkup(createElement(WithNames, sentence)) : '(no reaction)';
}

describe('emoji reactions in the notifications list', () => {
  it('gather per post and per emoji, apart from the likes of the same post', () => {
    const groups = groupNotifications([item('LIKE', 1, party), item('LIKE', 2, null), item('LIKE', 3, party), item('LIKE', 4, fire), item('LIKE', 1, null), item('LIKE', 2, party, 8)]);
    expect(groups.map((g) => [g.outboxObject?.id, g.reaction?.emoji ?? 'like', g.actors.map((a) => a.name)])).toEqual([
      [7, '🎉', ['Ana', 'Chloé']],
      [7, 'like', ['Ben', 'Ana']],
      [7, '🔥', ['Dana']],
      [8, '🎉', ['Ben']],
    ]);
    expect(groups.map((g) => reactionSentence(g)?.text.replace(/\uE000(\d+)\uE001/g, '[$1]') ?? null)).toEqual([
      '[0] and [1] reacted with [2] to your post',
      null,
      '[0] reacted with [1] to your post',
      '[0] reacted with [1] to your post',
    ]);
  });

  it('say who reacted with which emoji, each name and the emoji isolated; taken back, say so', () => {
    const [reacted, unreacted, unreactedTwo] = groupNotifications([
      item('LIKE', 1, party),
      item('UNDO_LIKE', 2, fire),
      { ...item('UNDO_LIKE', 3, fire), isNew: false },
      { ...item('UNDO_LIKE', 4, fire), isNew: false },
    ]);
    expect(shown(reacted!)).toBe('<bdi>Ana</bdi> reacted with <bdi><span class="notification__emoji">🎉</span></bdi> to your post');
    expect(shown(unreacted!)).toBe('<bdi>Ben</bdi> took back a <bdi><span class="notification__emoji">🔥</span></bdi> reaction to your post');
    expect(shown(unreactedTwo!)).toBe('<bdi>Chloé</bdi> and <bdi>Dana</bdi> took back their <bdi><span class="notification__emoji">🔥</span></bdi> reactions to your post');
  });

  it('an emoji with a bidi control left in it (the core takes them out; the view does not count on it) stays inside its isolate', () => {
    const [group] = groupNotifications([item('LIKE', 1, { emoji: '\u202E🎉', custom: null })]);
    expect(shown(group!)).toBe('<bdi>Ana</bdi> reacted with <bdi><span class="notification__emoji">\u202E🎉</span></bdi> to your post');
  });

  it('a custom emoji shows as its picture through the media proxy; without one, or with another address, as its shortcode', () => {
    const picture = { shortcode: 'blobcat', url: 'https://pleroma.example/e/blobcat.png', src: '/media/proxy/AAAA/aHR0cHM' };
    const [withPicture] = groupNotifications([item('LIKE', 1, { emoji: ':blobcat:', custom: picture })]);
    expect(shown(withPicture!)).toMatch(/^<bdi>Ana<\/bdi> reacted with <bdi><span class="notification__emoji"><img class="custom-emoji" src="\/media\/proxy\/AAAA\/aHR0cHM" alt=":blobcat:"[^>]*\/><\/span><\/bdi> to your post$/);
    const [withoutPicture] = groupNotifications([item('LIKE', 1, { emoji: ':blobcat:', custom: null })]);
    expect(shown(withoutPicture!)).toBe('<bdi>Ana</bdi> reacted with <bdi><span class="notification__emoji">:blobcat:</span></bdi> to your post');
    const [elsewhere] = groupNotifications([item('LIKE', 1, { emoji: ':blobcat:', custom: { ...picture, src: 'https://tracker.example/p.png' } })]);
    expect(shown(elsewhere!)).not.toContain('<img');
  });

  it('a plain like is no reaction', () => {
    const [group] = groupNotifications([item('LIKE', 1, null)]);
    expect(reactionSentence(group!)).toBeNull();
  });
});
