// The search part of the IPC contract: one channel, search.query, over posts (the author's and
// everything received or looked up), people and received webmentions. Spread into contract.ts;
// the renderer imports only the types.
import { z } from 'zod';
import type { ActorView, PostView } from './author-contract';
import type { WebmentionKind } from '../webmention/microformats';

/** Snippets are plain text in which SNIPPET_MARK.start … SNIPPET_MARK.end surround the words
 * that matched; the renderer turns those (and only those) into <mark>, the rest into text. */
export const SNIPPET_MARK = { start: '\u0002', end: '\u0003' } as const;

export const SEARCH_KINDS = ['all', 'posts', 'people', 'webmentions'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

export interface PostHit {
  post: PostView;
  snippet: string;
}

export interface PersonHit {
  actor: ActorView;
  snippet: string;
}

export interface WebmentionHit {
  id: number;
  source: string;
  kind: WebmentionKind;
  authorName: string | null;
  /** The author's post it mentions. */
  post: { apId: string };
  receivedAt: string;
  snippet: string;
}

export interface SearchResults {
  posts: PostHit[];
  people: PersonHit[];
  webmentions: WebmentionHit[];
  /** The next page of posts (or of the one kind asked for); null at the end. */
  nextCursor: string | null;
  /** While the index is still being built (after an upgrade, an import): how far it got. */
  indexing: { percent: number } | null;
}

export const searchInputs = {
  'search.query': z
    .object({
      text: z.string().trim().min(1, 'must say what to look for').max(500, 'must be at most 500 characters'),
      sort: z.enum(['relevance', 'date']).default('relevance'),
      kind: z.enum(SEARCH_KINDS).default('all'),
      cursor: z
        .string()
        .regex(/^[rd]\d{1,19}$/, 'is not a cursor this channel gave')
        .nullish(),
      limit: z.number().int().min(1).max(50).default(20),
    })
    .strict(),
} as const;

export interface SearchOutputs {
  'search.query': SearchResults;
}
