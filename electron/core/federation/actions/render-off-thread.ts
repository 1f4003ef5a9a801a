// The author's Markdown, read (scanPost) and rendered (renderPost) off the main thread when long.
// A post may be 100,000 characters, and Micropub clients and Mastodon apps send theirs to the
// listener, on the main thread: marked alone took 80–140 ms to lex 100,000 characters of dense
// Markdown there, and sanitizing the rendered HTML as much again. A source over
// RENDER_INLINE_CHARS is handed to the page reader's worker (webmention/source-parse.ts), which
// runs the same functions; shorter ones — nearly every post — are rendered where they are, in a
// millisecond or two.
import { isMainThread } from 'node:worker_threads';
import { BadInputError } from '../../errors';
import { readInWorker } from '../../webmention/source-parse';
import { hashtagHrefOf, renderPost, scanPost, type RenderedPost, type ResolvedMention } from './markdown';

/** Sources up to this many characters are read and rendered on the thread that asks. */
export const RENDER_INLINE_CHARS = 16 * 1024;

/** What renderPost is given, in a form a worker can be sent: the hashtag links' base. */
export interface RenderInput {
  mentions: ReadonlyMap<string, ResolvedMention>;
  baseUrl: string;
}

const inline = (source: string) => !isMainThread || source.length <= RENDER_INLINE_CHARS;

function refused(reason: string): never {
  throw new BadInputError(`This post could not be rendered (${reason}).`);
}

/** scanPost, on the page reader's worker for a long source. */
export async function scanPostAnywhere(source: string): Promise<{ handles: string[]; hashtags: string[] }> {
  if (inline(source)) return scanPost(source);
  const result = await readInWorker({ kind: 'scan', source });
  return result.ok ? result.scanned : refused(result.reason);
}

/** renderPost, on the page reader's worker for a long source. */
export async function renderPostAnywhere(source: string, input: RenderInput): Promise<RenderedPost> {
  if (inline(source)) return renderPost(source, { mentions: input.mentions, hashtagHref: hashtagHrefOf(input.baseUrl) });
  const result = await readInWorker({ kind: 'render', source, mentions: [...input.mentions], baseUrl: input.baseUrl });
  return result.ok ? result.rendered : refused(result.reason);
}
