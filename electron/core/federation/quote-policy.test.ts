// Who may quote the author's posts, as every post says it wherever it goes: served, in the
// Create that delivers it and in the Update of an edit (FEP-044f; Mastodon 4.5's
// NoteSerializer#interaction_policy: Public for public and unlisted posts, the author alone for
// the others).
import { describe, expect, it } from 'vitest';
import type { OutboxObject, Visibility } from '../../../db/schema';
import { PUBLIC } from './ap';
import { localActor } from './identity';
import { AP_CONTEXT, toCreate } from './outbox';
import { QUOTE_POLICY_TERMS, quotePolicy, quoteRefusal, withQuotePolicy } from './quote-policy';

const local = localActor('https://tern.example', 'author');
const note = { id: 'https://tern.example/o/1', type: 'Note', attributedTo: local.id, content: '<p>Hi</p>' };

describe('quote policy', () => {
  it.each<[Visibility, string]>([
    ['PUBLIC', PUBLIC],
    ['UNLISTED', PUBLIC],
    ['FOLLOWERS_ONLY', local.id],
    ['DIRECT', local.id],
  ])('a %s post may be quoted, approved automatically, by %s', (visibility, who) => {
    expect(withQuotePolicy(note, visibility)).toEqual({ ...note, interactionPolicy: { canQuote: { automaticApproval: [who] } } });
  });

  it('replaces a stored policy (a post made followers-only since), and leaves activities alone', () => {
    const stored = { ...note, interactionPolicy: quotePolicy('PUBLIC', local.id) };
    expect(withQuotePolicy(stored, 'FOLLOWERS_ONLY').interactionPolicy).toEqual({ canQuote: { automaticApproval: [local.id] } });
    const like = { type: 'Like', actor: local.id, object: 'https://a.example/1' };
    expect(withQuotePolicy(like, 'DIRECT')).toBe(like);
  });

  it('a post stored with a context of its own (imported) gets the terms added to it, once', () => {
    const imported = { '@context': 'https://www.w3.org/ns/activitystreams', ...note };
    const served = withQuotePolicy(imported, 'PUBLIC');
    expect(served['@context']).toEqual(['https://www.w3.org/ns/activitystreams', QUOTE_POLICY_TERMS]);
    expect(withQuotePolicy(served, 'PUBLIC')['@context']).toEqual(served['@context']);
    expect(withQuotePolicy({ ...note, '@context': AP_CONTEXT }, 'PUBLIC')['@context']).toBe(AP_CONTEXT);
  });

  it('goes out in the Create, under a context that defines its terms', () => {
    const post = { publicId: '1', apObject: note, apPublishedAt: new Date(0), visibility: 'UNLISTED' } as Pick<OutboxObject, 'publicId' | 'apObject' | 'apPublishedAt' | 'visibility'>;
    const create = toCreate(local, post);
    expect((create.object as Record<string, unknown>).interactionPolicy).toEqual({ canQuote: { automaticApproval: [PUBLIC] } });
    expect(create['@context']).toBe(AP_CONTEXT);
    const terms = (AP_CONTEXT as unknown[])[2] as Record<string, unknown>;
    expect(terms).toMatchObject({
      gts: 'https://gotosocial.org/ns#',
      interactionPolicy: { '@id': 'gts:interactionPolicy', '@type': '@id' },
      canQuote: { '@id': 'gts:canQuote', '@type': '@id' },
      automaticApproval: { '@id': 'gts:automaticApproval', '@type': '@id' },
    });
  });

  it('grants a request only for a live public or unlisted post of ours', () => {
    const row = (over: Partial<OutboxObject>) => ({ apType: 'Note', isDeleted: false, isTransient: false, visibility: 'PUBLIC', ...over }) as OutboxObject;
    expect(quoteRefusal(row({}))).toBeNull();
    expect(quoteRefusal(row({ visibility: 'UNLISTED' }))).toBeNull();
    expect(quoteRefusal(row({ visibility: 'FOLLOWERS_ONLY' }))).toMatch(/followers-only/);
    expect(quoteRefusal(row({ visibility: 'DIRECT' }))).toMatch(/direct/);
    expect(quoteRefusal(row({ isDeleted: true }))).toMatch(/deleted/);
    expect(quoteRefusal(row({ apType: 'Like' }))).toMatch(/not a post/);
    expect(quoteRefusal(undefined)).toMatch(/not one of our posts/);
  });
});
