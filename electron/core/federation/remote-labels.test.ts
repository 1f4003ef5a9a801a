// Names and labels from other servers as the UI gets them: no handle with a bidi control in it,
// no bidi control in a name, a poll option or a content warning (each would reorder the text
// shown around it), and no name longer than ACTOR_NAME_MAX_CHARS.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite, wrapDrizzle, type Db, type Sqlite } from '../../../db/client';
import { upgrade } from '../../../migrations/runner';
import type { Actor } from '../../../db/schema';
import { handleOf, saveActor } from './actors';
import type { FederationContext } from '../ports';
import { ACTOR_NAME_MAX_CHARS, summarizeActor } from './actor-summary';
import { inboxPostView } from './actions/views';
import { pollViewOf } from './polls/view';
import { fakeInboxRow } from './test-inbox-row';

const RLO = '\u202E';
const NOW = new Date('2026-11-27T10:00:00Z');

let sqlite: Sqlite;
let db: Db;
beforeEach(() => {
  sqlite = openSqlite(':memory:');
  upgrade(sqlite);
  db = wrapDrizzle(sqlite);
});
afterEach(() => {
  if (sqlite.open) sqlite.close();
});

const person = (extra: Record<string, unknown>) => ({ id: 'https://evil.example/users/e', type: 'Person', inbox: 'https://evil.example/users/e/inbox', preferredUsername: 'e', ...extra });

const row = (apObject: Record<string, unknown>) => fakeInboxRow(apObject, { apId: 'https://evil.example/n/1', apActorId: 'https://evil.example/users/e', apPublishedAt: NOW });

describe('handles', () => {
  it('a preferredUsername with a bidi override is stored with no handle: it would read as @elpmaxe.live@mastodon.social', () => {
    const user = `${RLO}laicos.nodotsam`;
    const saved = saveActor(db, person({ preferredUsername: user }), `@${user}@evil.example`, NOW);
    expect(saved.handle).toBeNull();
    // Nor is the name shown in its place turned around.
    expect(summarizeActor(saved)).toMatchObject({ name: 'laicos.nodotsam', handle: null });
  });

  it('zero-width and other format characters, and one too long for an address, are no handle either; a plain one is kept', () => {
    for (const bad of ['@gar\u200Bgron@evil.example', '@a\u2066b@evil.example', '@a\u0007@evil.example', `@${'a'.repeat(400)}@evil.example`]) {
      expect(saveActor(db, person({}), bad, NOW).handle, JSON.stringify(bad)).toBeNull();
    }
    expect(saveActor(db, person({}), '@e@evil.example', NOW).handle).toBe('@e@evil.example');
  });

  it('a WebFinger subject with a bidi override gives way to @preferredUsername@host', async () => {
    const fed = { allowPrivateAddresses: false, client: { fetchJson: async () => ({ response: { status: 200 }, json: { subject: `acct:${RLO}e@evil.example` } }) } } as unknown as FederationContext;
    expect(await handleOf(fed, person({}))).toBe('@e@evil.example');
  });

  it('a handle stored before the check is not shown', () => {
    const old = { id: 1, apId: 'https://evil.example/users/e', apActor: person({}), handle: `@${RLO}e@evil.example` } as unknown as Actor;
    expect(summarizeActor(old).handle).toBeNull();
  });
});

describe('names and labels', () => {
  it('a display name keeps no bidi control, in the ActorView and in the PostView of its post', () => {
    const saved = saveActor(db, person({ name: `Ana Lima${RLO}\u2066x\u2069\u202A\u202C` }), '@e@evil.example', NOW);
    expect(summarizeActor(saved).name).toBe('Ana Limax');
    expect(inboxPostView(row({ type: 'Note', content: 'hi' }), saved).author.name).toBe('Ana Limax');
    // The marks U+200E and U+200F turn nothing around: kept (names in Hebrew and Arabic use them).
    const hebrew = saveActor(db, person({ name: `${RLO}שלום\u200F!` }), null, NOW);
    expect(summarizeActor(hebrew).name).toBe('שלום\u200F!');
  });

  it('a name of only bidi controls falls back to the preferredUsername', () => {
    const saved = saveActor(db, person({ name: `${RLO}\u202C` }), null, NOW);
    expect(summarizeActor(saved).name).toBe('e');
  });

  it('poll options and the voter’s choices are shown without bidi controls', () => {
    const poll = pollViewOf({ type: 'Question', oneOf: [{ type: 'Note', name: `${RLO}yes`, replies: { totalItems: 1 } }, { type: 'Note', name: 'no' }] }, [`${RLO}yes`]);
    expect(poll?.options.map((o) => o.name)).toEqual(['yes', 'no']);
    expect(poll?.myVotes).toEqual(['yes']);
  });

  it('a content warning and a title are shown without bidi controls; a warning of nothing but them still hides the post', () => {
    const warned = inboxPostView(row({ type: 'Note', content: 'x', summary: `<p>spoilers${RLO}</p>` }), undefined);
    expect(warned.summary).toBe('spoilers');
    const empty = inboxPostView(row({ type: 'Note', content: 'x', summary: RLO }), undefined);
    expect(empty).toMatchObject({ summary: null, sensitive: true });
    expect(inboxPostView(row({ type: 'Article', content: 'x', name: `${RLO}Title` }), undefined).title).toBe('Title');
  });
});

describe('long names', () => {
  it(`a 100,000-character name is cut to ${ACTOR_NAME_MAX_CHARS} characters with an ellipsis, in the ActorView and in the PostView`, () => {
    const saved = saveActor(db, person({ name: 'W'.repeat(100_000) }), '@e@evil.example', NOW);
    const name = summarizeActor(saved).name;
    expect([...name]).toHaveLength(ACTOR_NAME_MAX_CHARS);
    expect(name).toBe(`${'W'.repeat(ACTOR_NAME_MAX_CHARS - 1)}…`);
    expect(inboxPostView(row({ type: 'Note', content: 'hi' }), saved).author.name).toBe(name);
  });

  it('a cut never splits a character written as two UTF-16 units, and a name at the bound is whole', () => {
    const emoji = saveActor(db, person({ name: '🐦'.repeat(150) }), null, NOW);
    expect(summarizeActor(emoji).name).toBe(`${'🐦'.repeat(ACTOR_NAME_MAX_CHARS - 1)}…`);
    const atBound = saveActor(db, person({ name: 'n'.repeat(ACTOR_NAME_MAX_CHARS) }), null, NOW);
    expect(summarizeActor(atBound).name).toBe('n'.repeat(ACTOR_NAME_MAX_CHARS));
  });
});
