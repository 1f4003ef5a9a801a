// The HTML a post's view shows for its stored text, made on the app's thread for every page shown,
// with the time one page may spend on it bounded.
//
// Stored HTML is sanitized again for each view (sanitize-stored.ts: ≈ 10 µs a post), and the
// same posts are shown again and again (a thread reopened, the stream scrolled back): the result
// for the last few thousand texts is kept. Sanitizing is a pure function of the text, and the
// bound keeps memory flat.
//
// A page of views is built in one turn of the event loop. A long text (up to 64 KB, sanitize.ts
// HTML_LIMITS) costs up to 10 ms to sanitize when a hostile server wrote it (64 KB of entities):
// 50 such replies held the thread for half a second. One just under SANITIZED_MAX_CHARS (19,900
// characters of mention markup) costs 1.2–3 ms, and a page of 100 of them (timeline.stream's
// largest) held it 200–385 ms, a thread page of 50 such replies 91–350 ms. So every text not
// kept shares one budget per turn, TURN_MS: past it, a text (bar a short one) is shown as its
// plain text (tags dropped, escaped: never unsafe), and:
//  - one up to SANITIZED_MAX_CHARS is formatted soon after, a slice at a time (WARM_SLICE_MS),
//    into the kept results: the next view of the page (the stream freshens its first page on
//    Tern's hints and every minute; a thread opened again) shows it formatted, at no cost;
//  - a longer one (not kept) is formatted at its next view, within that view's budget.
// Real long posts cost 1–2 ms each, so a page of twenty of them stays formatted, and a page of
// short posts (≈ 10 µs each) never comes near the budget. The page of 100 now holds the thread
// 63–79 ms (best of three on a busy 2-core machine: 15–28 texts formatted; the rest is reading
// the rows and the plain texts, ≈ 0.06 ms each), the thread page 65–81 ms; shown again, after
// the slices, 9–12 and 5–6 ms, every text formatted (test/hostile/audit-ipc-long-posts.test.ts).
import { sanitizeStoredHtml } from '../sanitize-stored';
import { unparsedText } from '../sanitize';

const SANITIZED_KEPT = 3000;
const SANITIZED_MAX_CHARS = 20_000;
const sanitized = new Map<string, string>();

/** Sanitizing time, in all, that one turn of the event loop spends on texts not kept. */
const TURN_MS = 50;
/** Texts this short are formatted even past the budget (their time still counts): a post of a
 * few lines that a friend wrote on a page a hostile server filled stays formatted, and a page of
 * 100 of them, of dense mention markup, costs 3–8 ms (7–15 ms on a machine with 3 jobs a core). */
const SHORT_CHARS = 500;
/** How long each slice of the formatting after a page runs before it lets other work in. */
const WARM_SLICE_MS = 10;
/** Texts waiting to be formatted after their page: a few of the largest pages. */
const WAITING_MAX = 300;

let spentMs = 0;
let turnOpen = false;
const waiting = new Set<string>();
let warming = false;

function openTurn(): void {
  if (turnOpen) return;
  turnOpen = true;
  setImmediate(() => {
    turnOpen = false;
    spentMs = 0;
  });
}

function keep(html: string, clean: string): void {
  sanitized.set(html, clean);
  if (sanitized.size > SANITIZED_KEPT) sanitized.delete(sanitized.keys().next().value!);
}

/** Sanitizes within the turn's budget, counting the time spent. */
function timed(html: string): string {
  openTurn();
  const started = performance.now();
  try {
    return sanitizeStoredHtml(html);
  } finally {
    spentMs += performance.now() - started;
  }
}

/** Formats the waiting texts into the kept results, WARM_SLICE_MS at a time, each slice its own
 * turn (an IPC call or a timer between two slices is not held by them). */
function warm(): void {
  const started = performance.now();
  for (const html of waiting) {
    waiting.delete(html);
    if (!sanitized.has(html)) keep(html, sanitizeStoredHtml(html));
    if (performance.now() - started >= WARM_SLICE_MS) break;
  }
  if (waiting.size > 0) setImmediate(warm).unref();
  else warming = false;
}

function formatLater(html: string): void {
  if (waiting.size >= WAITING_MAX) return; // formatted at its next view instead
  waiting.add(html);
  if (warming) return;
  warming = true;
  setImmediate(warm).unref();
}

/** The HTML a view shows for a stored text. */
export function contentHtmlOf(html: string): string {
  const cacheable = html.length <= SANITIZED_MAX_CHARS;
  if (cacheable) {
    const kept = sanitized.get(html);
    if (kept !== undefined) {
      sanitized.delete(html);
      sanitized.set(html, kept);
      return kept;
    }
  }
  if (spentMs >= TURN_MS && html.length > SHORT_CHARS) {
    if (cacheable) formatLater(html);
    return unparsedText(html);
  }
  const clean = timed(html);
  if (cacheable) keep(html, clean);
  return clean;
}

/** How many texts wait to be formatted after their page (for tests). */
export function textsWaiting(): number {
  return waiting.size;
}
