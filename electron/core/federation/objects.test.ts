// The one rule for what a received object is: its author, its original's page, whether its
// summary warns, whether it is a post, a card, or nothing to show.
import { describe, expect, it } from 'vitest';
import {
  announcedActivity,
  authorOf,
  isAttributedTo,
  isCardType,
  isCreatedBy,
  isShowableType,
  languageField,
  mentionNameOf,
  nameIsTitle,
  originalUrlOf,
  summaryIsWarning,
} from './objects';

const PT = 'https://videos.example';

describe('authorOf', () => {
  it('takes attributedTo as a string, an object, or a list', () => {
    expect(authorOf({ attributedTo: 'https://a.example/u/1' })).toBe('https://a.example/u/1');
    expect(authorOf({ attributedTo: { type: 'Person', id: 'https://a.example/u/2' } })).toBe('https://a.example/u/2');
    expect(authorOf({ attributedTo: ['https://a.example/u/3', 'https://a.example/u/4'] })).toBe('https://a.example/u/3');
  });

  it('PeerTube [Person, Group], in either order: the account, not its channel', () => {
    const account = { type: 'Person', id: `${PT}/accounts/maker` };
    const channel = { type: 'Group', id: `${PT}/video-channels/workshop` };
    expect(authorOf({ attributedTo: [account, channel] })).toBe(account.id);
    expect(authorOf({ attributedTo: [channel, account] })).toBe(account.id);
  });

  it('ids alone: the cache tells a Group apart; a group credited alone yields to the organiser in `actor`', () => {
    const kinds = new Map([[`${PT}/video-channels/workshop`, 'Group']]);
    const object = { attributedTo: [`${PT}/video-channels/workshop`, `${PT}/accounts/maker`] };
    expect(authorOf(object)).toBe(`${PT}/video-channels/workshop`);
    expect(authorOf(object, (id) => kinds.get(id) ?? null)).toBe(`${PT}/accounts/maker`);
    // Mobilizon: a group's event names its organiser as `actor`.
    const event = { attributedTo: { type: 'Group', id: 'https://events.example/@club' }, actor: 'https://events.example/@ana' };
    expect(authorOf(event)).toBe('https://events.example/@ana');
    expect(authorOf({ attributedTo: { type: 'Group', id: 'https://events.example/@club' } })).toBe('https://events.example/@club');
    expect(authorOf({ content: 'nobody' })).toBeNull();
  });

  it('isAttributedTo accepts any credited actor, whatever the trailing slash', () => {
    const object = { attributedTo: [{ type: 'Person', id: `${PT}/accounts/maker` }, { type: 'Group', id: `${PT}/video-channels/workshop` }] };
    expect(isAttributedTo(object, `${PT}/video-channels/workshop/`)).toBe(true);
    expect(isAttributedTo(object, `${PT}/accounts/other`)).toBe(false);
  });

  it('isCreatedBy: the credited actor; for an object crediting nobody (Zap), an actor on its id\'s server', () => {
    expect(isCreatedBy({ id: `${PT}/item/1` }, `${PT}/channel/maker`)).toBe(true);
    expect(isCreatedBy({ id: 'https://elsewhere.example/item/1' }, `${PT}/channel/maker`)).toBe(false);
    expect(isCreatedBy({ id: `${PT}/item/1`, attributedTo: `${PT}/channel/other` }, `${PT}/channel/maker`)).toBe(false);
    expect(isCreatedBy({ id: `${PT}/item/1`, actor: `${PT}/channel/other` }, `${PT}/channel/maker`)).toBe(false);
    expect(isCreatedBy({ id: 'https://elsewhere.example/item/1', attributedTo: `${PT}/channel/maker` }, `${PT}/channel/maker`)).toBe(true);
    expect(isCreatedBy({}, `${PT}/channel/maker`)).toBe(false);
  });
});

describe('languageField', () => {
  it('the plain field, else the first string of its map, else null', () => {
    expect(languageField({ content: '<p>a</p>', contentMap: { en: '<p>b</p>' } }, 'content')).toBe('<p>a</p>');
    expect(languageField({ contentMap: { fr: '<p>c</p>', en: '<p>d</p>' } }, 'content')).toBe('<p>c</p>');
    expect(languageField({ nameMap: { en: 7, de: 'Titel' } }, 'name')).toBe('Titel');
    expect(languageField({ summaryMap: 'nope' }, 'summary')).toBeNull();
    expect(languageField({}, 'content')).toBeNull();
  });
});

describe('originalUrlOf', () => {
  it('prefers the text/html Link of a list, then a plain string, then the id', () => {
    const url = [
      { type: 'Link', mediaType: 'video/mp4', href: `${PT}/static/v-720.mp4` },
      { type: 'Link', mediaType: 'text/html', href: `${PT}/w/abc` },
    ];
    expect(originalUrlOf({ url }, `${PT}/videos/watch/abc`)).toBe(`${PT}/w/abc`);
    expect(originalUrlOf({ url: { type: 'Link', href: 'https://blog.example/p/1' } }, 'x')).toBe('https://blog.example/p/1');
    expect(originalUrlOf({ url: 'https://blog.example/p/2' }, 'x')).toBe('https://blog.example/p/2');
    expect(originalUrlOf({ url: 'javascript:alert(1)' }, 'https://blog.example/id')).toBe('https://blog.example/id');
    // Only media files: the id is the page.
    expect(originalUrlOf({ url: [{ type: 'Link', mediaType: 'audio/ogg', href: 'https://a.example/x.ogg' }] }, 'https://a.example/id')).toBe('https://a.example/id');
  });
});

describe('summary, name, type', () => {
  it('a summary warns on Note and Question, or when sensitive; elsewhere it is an excerpt', () => {
    expect(summaryIsWarning({ type: 'Note', summary: 'spoilers' })).toBe(true);
    expect(summaryIsWarning({ type: 'Question', summary: 'x' })).toBe(true);
    expect(summaryIsWarning({ type: 'Article', summary: 'lead' })).toBe(false);
    expect(summaryIsWarning({ type: 'Page', summary: 'lead' })).toBe(false);
    expect(summaryIsWarning({ type: 'Video', summary: 'lead', sensitive: true })).toBe(true);
  });

  it('name is a title except on Note and Question', () => {
    expect(nameIsTitle({ type: 'Page' })).toBe(true);
    expect(nameIsTitle({ type: 'Event' })).toBe(true);
    expect(nameIsTitle({ type: 'Note' })).toBe(false);
    expect(nameIsTitle({ type: 'Question' })).toBe(false);
  });

  it('posts, cards and what is not shown', () => {
    for (const t of ['Note', 'Video', 'Audio', 'Image', 'Event', 'Page']) expect([t, isCardType(t)]).toEqual([t, false]);
    expect(isCardType('Review')).toBe(true);
    expect(isShowableType('Review')).toBe(true);
    for (const t of ['Person', 'Group', 'Tombstone', 'Create', 'OrderedCollection', null]) expect(isShowableType(t)).toBe(false);
  });

  it('announcedActivity: an embedded activity, not an object or an id', () => {
    const create = { type: 'Create', id: 'https://l.example/a/1', object: { type: 'Page' } };
    expect(announcedActivity({ type: 'Announce', object: create })).toBe(create);
    expect(announcedActivity({ type: 'Announce', object: { type: 'Page', id: 'x' } })).toBeNull();
    expect(announcedActivity({ type: 'Announce', object: 'https://l.example/post/1' })).toBeNull();
  });

  it('mentionNameOf: @user@host from the href', () => {
    expect(mentionNameOf('https://smithereen.example/users/42')).toBe('@42@smithereen.example');
    expect(mentionNameOf('https://m.example/@ana')).toBe('@ana@m.example');
    expect(mentionNameOf('https://m.example/')).toBe('@m.example');
  });
});
