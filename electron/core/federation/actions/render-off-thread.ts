// The author's Markdown, read (scanPost) and rendered (renderPost) off the main thread when long.
// A post may be 100,000 characters, and Micropub clients and Mastodon apps send theirs to the
// listener, on the main thread: marked alone took 80–140 ms to lex 100,000 characters of dense
// Markdown there, and sanitizing the rendered HTML as much again. A source over
// RENDER_INLINE_CHARS is handed to the page reader's worker (webmention/source-parse.ts), which
// runs the same functions; shorter ones — nearly every post — are rendered where they are, in a
// millisecond or two, unless they hold many emphasis marks (marked is quadratic in those). A
// source nested deeper than MAX_MARKDOWN_NESTING is refused before either.
import { isMainThread } from 'node:worker_threads';
import { BadInputError } from '../../errors';
import { readInWorker } from '../../webmention/source-parse';
import { hashtagHrefOf, MAX_MARKDOWN_NESTING, moreEmphasisMarksThan, nestedTooDeeply, renderPost, scanPost, type RenderedPost, type ResolvedMention } from './markdown';

/** Sources up to this many characters are read and rendered on the thread that asks. */
export const RENDER_INLINE_CHARS = 16 * 1024;

/** What renderPost is given, in a form a worker can be sent: the hashtag links' base. */
export interface RenderInput {
  mentions: ReadonlyMap<string, ResolvedMention>;
  baseUrl: string;
}

/** marked pairs emphasis delimiters in time quadratic in their number (markedjs/marked#4099):
 * 2 KB of `1.*` held the main thread 200 ms, 16 KB of `*a_` 11 s. A source with more than this
 * many is read on the worker whatever its length; a post has a handful. */
const INLINE_DELIMITERS = 64;

const inline = (source: string) => !isMainThread || (source.length <= RENDER_INLINE_CHARS && !moreEmphasisMarksThan(source, INLINE_DELIMITERS));

function refused(reason: string): never {
  throw new BadInputError(`This post could not be rendered (${reason}).`);
}

/** Reads a source on this thread. Deeper than marked's stack by a way nestedTooDeeply does not
 * see (a RangeError), it is refused as on the worker (source-worker.ts). */
function here<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof RangeError) refused('its markup is nested too deeply to read');
    throw error;
  }
}

/** Before marked reads a source, on any thread. */
function refuseDeepNesting(source: string): void {
  if (nestedTooDeeply(source)) refused(`its Markdown is nested more than ${MAX_MARKDOWN_NESTING} levels deep`);
}

/** scanPost, on the page reader's worker for a long source. */
export async function scanPostAnywhere(source: string): Promise<{ handles: string[]; hashtags: string[] }> {
  refuseDeepNesting(source);
  if (inline(source)) return here(() => scanPost(source));
  const result = await readInWorker({ kind: 'scan', source });
  return result.ok ? result.scanned : refused(result.reason);
}

/** renderPost, on the page reader's worker for a long source. */
export async function renderPostAnywhere(source: string, input: RenderInput): Promise<RenderedPost> {
  refuseDeepNesting(source);
  if (inline(source)) return here(() => renderPost(source, { mentions: input.mentions, hashtagHref: hashtagHrefOf(input.baseUrl) }));
  const result = await readInWorker({ kind: 'render', source, mentions: [...input.mentions], baseUrl: input.baseUrl });
  return result.ok ? result.rendered : refused(result.reason);
}
