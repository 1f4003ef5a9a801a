// JSON from outside Tern (inbox bodies, IndieWeb endpoints, fetched actors and objects, the
// headless UI's API) is parsed here, with a bound on its nesting. JSON.parse takes 10,000 levels
// without complaint, but SQLite's json_valid refuses more than 1,000 (its JSON_MAX_DEPTH), so a
// deep activity passed the signature and then failed the row's CHECK: a 500, which senders retry
// for days. No activity, actor or Micropub request Tern knows nests beyond a dozen levels; 64
// leaves room and refuses, with a reason, what would otherwise fail later.
//
// The depth is measured by one pass over the text before parsing (strings skipped, escapes
// honoured): O(length), about a millisecond per MiB, and no recursion to overflow. Most texts
// need not even that: a text with no more `[` and `{` in all than the bound cannot nest deeper,
// and counting them is indexOf's native search — 0.2 µs for a 1 KB activity (8 openers) against
// 6 µs for the pass, which was 4 % of the inbox checks worker's time.

/** The deepest nesting of arrays and objects accepted. */
export const MAX_JSON_DEPTH = 64;

/** The text nests deeper than the bound; `message` is the reason to give the sender. */
export class JsonTooDeepError extends Error {
  override name = 'JsonTooDeepError';
  constructor(readonly maxDepth: number) {
    super(`JSON nested deeper than ${maxDepth} levels`);
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** The deepest nesting of `[`/`{` in `text` outside strings, stopping once past `limit`. */
export function jsonDepth(text: string, limit = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return deepest;
}

/** How many `[` and `{` `text` holds anywhere (inside strings too), counting no further than
 * just past `limit`. Nesting never goes deeper than this count. */
export function openerCount(text: string, limit: number): number {
  let n = 0;
  for (let i = text.indexOf('{'); i !== -1 && n <= limit; i = text.indexOf('{', i + 1)) n++;
  for (let i = text.indexOf('['); i !== -1 && n <= limit; i = text.indexOf('[', i + 1)) n++;
  return n;
}

/**
 * JSON.parse, refusing text nested deeper than `maxDepth` (JsonTooDeepError) before parsing it.
 * Invalid JSON throws JSON.parse's SyntaxError.
 */
export function parseBoundedJson(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  if (openerCount(text, maxDepth) > maxDepth && jsonDepth(text, maxDepth) > maxDepth) throw new JsonTooDeepError(maxDepth);
  return JSON.parse(text) as unknown;
}

/** Why `error` (thrown by parseBoundedJson) refused the text, in a few words. */
export function jsonRefusal(error: unknown): string {
  return error instanceof JsonTooDeepError ? error.message : 'not valid JSON';
}
