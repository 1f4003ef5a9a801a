// Who may quote the author's posts (FEP-044f "Advertising a quote policy"), and whether a
// QuoteRequest for one of them is granted. Every post advertises it, derived from its visibility
// when it is served or sent (nothing is stored): public and unlisted posts may be quoted by
// anyone and are approved at once; followers-only and direct posts by nobody but the author.
// That is Mastodon 4.5's rule (a private or direct status's quote policy is forced to "nobody";
// NoteSerializer#interaction_policy then lists the author alone, because an empty list is the
// same as no property once JSON-LD is canonicalized, as the FEP notes). The terms are
// GoToSocial's (`gts:`), defined in AP_CONTEXT (outbox.ts).
import type { OutboxObject, Visibility } from '../../../db/schema';
import { asArray, PUBLIC, str, typeOf, type Json } from './ap';

// The post types Tern authors (outbox.ts POST_TYPES; not imported: outbox.ts imports this file).
const AUTHORED = new Set(['Note', 'Article', 'Question']);
const isPostType = (type: string) => AUTHORED.has(type);

/** Visibilities whose posts anyone may quote, approved automatically. */
const QUOTABLE: readonly Visibility[] = ['PUBLIC', 'UNLISTED'];

/** The JSON-LD terms of a quote policy, as Mastodon 4.5 defines them (ContextHelper
 * :interaction_policies); part of AP_CONTEXT. */
export const QUOTE_POLICY_TERMS = {
  gts: 'https://gotosocial.org/ns#',
  interactionPolicy: { '@id': 'gts:interactionPolicy', '@type': '@id' },
  canQuote: { '@id': 'gts:canQuote', '@type': '@id' },
  automaticApproval: { '@id': 'gts:automaticApproval', '@type': '@id' },
  manualApproval: { '@id': 'gts:manualApproval', '@type': '@id' },
} as const;

/** The `interactionPolicy` of a post of this visibility by `authorId`. */
export function quotePolicy(visibility: Visibility, authorId: string): Json {
  const automaticApproval = QUOTABLE.includes(visibility) ? [PUBLIC] : [authorId];
  return { canQuote: { automaticApproval } };
}

/** A post object as served or sent: with its quote policy (replacing one stored earlier, so a
 * post whose visibility changed never advertises the old one). A post stored with a context of
 * its own (one imported from microblog.pub) gets the policy's terms added to it, or a JSON-LD
 * reader would drop the policy. Anything not one of our post types, or without an author, is
 * returned as it is. */
export function withQuotePolicy<T extends Json>(object: T, visibility: Visibility): T {
  const author = str(object.attributedTo);
  if (author === null || !isPostType(typeOf(object) ?? '')) return object;
  const context = object['@context'];
  const defined = context === undefined || JSON.stringify(context).includes('"gts:canQuote"');
  return { ...object, ...(defined ? {} : { '@context': [...asArray(context), QUOTE_POLICY_TERMS] }), interactionPolicy: quotePolicy(visibility, author) };
}

/** Why a QuoteRequest of this post (ours, or undefined when it is not) is refused, or null when
 * the policy grants it: a live public or unlisted post of the author. */
export function quoteRefusal(post: OutboxObject | undefined): string | null {
  if (post === undefined) return 'not one of our posts';
  if (!isPostType(post.apType)) return `a ${post.apType}, not a post`;
  if (post.isDeleted) return 'the post was deleted';
  if (post.isTransient) return 'the post is not published';
  if (!QUOTABLE.includes(post.visibility)) return `a ${post.visibility === 'DIRECT' ? 'direct' : 'followers-only'} post: only its author may quote it`;
  return null;
}
