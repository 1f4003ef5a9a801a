// The author's quote posts, as written (quoting.ts): the fallback link, and which quote
// policies approve a quote without asking.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openCore, type Core } from '../core';
import { actor, following, outbox } from '../../../db/schema';
import { quotesAutomatically, withQuoteFallback } from './quoting';
import { PUBLIC } from './ap';

let dir: string;
let core: Core;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tern-quoting-'));
  core = await openCore({ dataDir: dir, mode: 'headless' });
});

afterEach(() => {
  core.close();
  rmSync(dir, { recursive: true, force: true });
});

const ME = 'https://tern.example';
const HERON = 'https://birds.example/users/heron';
const FOLLOWERS = `${HERON}/followers`;
const policy = (automaticApproval: unknown) => ({ interactionPolicy: { canQuote: { automaticApproval } } });

describe('the RE: fallback of a quote post', () => {
  it('ends the content with Mastodon’s quote-inline paragraph, the URL escaped', () => {
    expect(withQuoteFallback('<p>Yes</p>', 'https://a.example/n?x=1&y="2"')).toBe(
      '<p>Yes</p><p class="quote-inline">RE: <a href="https://a.example/n?x=1&amp;y=&quot;2&quot;">https://a.example/n?x=1&amp;y=&quot;2&quot;</a></p>',
    );
  });
});

describe('whether a quote policy approves our quote at once', () => {
  it('the public or our actor (with or without a trailing slash): yes; nobody, or no policy: no', () => {
    expect(quotesAutomatically(core.db, ME, policy([PUBLIC]), null, HERON)).toBe(true);
    expect(quotesAutomatically(core.db, ME, policy(PUBLIC), null, HERON)).toBe(true);
    expect(quotesAutomatically(core.db, ME, policy([`${ME}/`]), null, HERON)).toBe(true);
    expect(quotesAutomatically(core.db, ME, policy([HERON]), null, HERON)).toBe(false);
    expect(quotesAutomatically(core.db, ME, {}, null, HERON)).toBe(false);
  });

  it('the author’s followers: only when we follow the author', () => {
    expect(quotesAutomatically(core.db, ME, policy([FOLLOWERS]), FOLLOWERS, HERON)).toBe(false);
    const now = new Date();
    const heron = core.db.insert(actor).values({ createdAt: now, updatedAt: now, apId: HERON, apActor: { id: HERON, type: 'Person', followers: FOLLOWERS }, apType: 'Person', handle: null }).returning().get();
    const follow = core.db
      .insert(outbox)
      .values({ createdAt: now, updatedAt: now, publicId: 'f1', apId: `${ME}/o/f1`, apType: 'Follow', apObject: { type: 'Follow', object: HERON }, apPublishedAt: now, visibility: 'DIRECT', likesCount: 0, announcesCount: 0, repliesCount: 0, webmentionsCount: 0, isPinned: false, isTransient: false, isDeleted: false, isHiddenFromHomepage: false })
      .returning()
      .get();
    core.db.insert(following).values({ createdAt: now, updatedAt: now, actorId: heron.id, outboxObjectId: follow.id, apActorId: HERON }).run();
    expect(quotesAutomatically(core.db, ME, policy([FOLLOWERS]), FOLLOWERS, HERON)).toBe(true);
  });
});
