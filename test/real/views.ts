// What the author sees of a real payload, projected onto the keys a fixture's `expect` names, so
// a failing fixture shows a readable diff (expected vs what the views returned). The views are
// the ones the IPC handlers return: the home stream, a thread, a look-up, notifications, people.
import { eq } from 'drizzle-orm';
import { inbox } from '../../db/schema';
import type { PostView } from '../../electron/core/ipc/author-contract';
import { idOf, isObject, typeOf, type Json } from '../../electron/core/federation/ap';
import type { Core } from '../../electron/core/core';

/** The id the author's view of an activity is filed under: the created/updated/boosted object
 * (a Lemmy group's Announce{Create{Page}} is the Page), else the activity's object. */
export function subjectOf(activity: Json): string | null {
  const object = activity.object;
  if (typeOf(activity) === 'Announce' && isObject(object) && ['Create', 'Update'].includes(typeOf(object) ?? '')) return idOf(object.object);
  return idOf(object);
}

/** Plain text of sanitized HTML, entities decoded and whitespace collapsed. */
export function plainText(html: string): string {
  return html
    .replace(/<br\s*\/?>|<\/p>/gi, ' ')
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

const hrefsOf = (html: string) => [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));

/** The view, reduced to the keys of `want` (and in its terms: author = handle, text = a
 * substring of the plain text, links = hrefs present in the HTML, attachments' alt = name). */
export function projectPost(view: PostView, want: Json): Json {
  const out: Json = {};
  const v = view as unknown as Json;
  for (const key of Object.keys(want)) {
    const w = want[key];
    if (key === 'apId') continue; // how the view was found
    switch (key) {
      case 'author':
        out.author = view.author.handle;
        break;
      case 'authorName':
        out.authorName = view.author.name;
        break;
      case 'text': {
        const text = plainText(view.contentHtml);
        out.text = typeof w === 'string' && text.includes(w) ? w : text;
        break;
      }
      case 'noText': {
        // Strings that must not reach the page (scripts, handlers).
        out.noText = (w as string[]).filter((s) => !view.contentHtml.includes(s));
        break;
      }
      case 'links': {
        const hrefs = hrefsOf(view.contentHtml);
        out.links = (w as string[]).map((l) => (hrefs.includes(l) ? l : `missing; hrefs: ${hrefs.join(' ')}`));
        break;
      }
      case 'mentions':
        out.mentions = view.tags.filter((t) => t.type === 'Mention').map((t) => t.name).sort();
        break;
      case 'hashtags':
        out.hashtags = view.tags.filter((t) => t.type === 'Hashtag').map((t) => t.name.toLowerCase()).sort();
        break;
      case 'attachments':
        out.attachments = view.attachments.map((a, i) => {
          const wa = ((w as Json[])[i] ?? {}) as Json;
          const got: Json = {};
          for (const k of Object.keys(wa)) got[k] = k === 'alt' ? a.name : (a as unknown as Json)[k];
          return got;
        });
        break;
      case 'boostedBy':
        out.boostedBy = view.boostedBy?.actor.handle ?? null;
        break;
      case 'pollVotes':
        out.pollVotes = view.poll?.options.map((o) => o.votes) ?? null;
        break;
      case 'poll':
        out.poll = view.poll ? { kind: view.poll.kind, options: view.poll.options.map((o) => o.name) } : null;
        break;
      case 'title':
      case 'summary':
      case 'excerpt':
        // Plain text: compared with its white space collapsed (as the fixture writes it).
        out[key] = typeof v[key] === 'string' ? (v[key] as string).replace(/\s+/g, ' ').trim() : v[key];
        break;
      default:
        out[key] = v[key];
    }
  }
  return out;
}

/** Every page of the home stream. */
export function wholeStream(core: Core): PostView[] {
  const all: PostView[] = [];
  let cursor: string | null = null;
  do {
    const page = core.services.author.stream({ cursor, limit: 100 });
    all.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return all;
}

export function inboxRow(core: Core, apId: string) {
  return core.db.select().from(inbox).where(eq(inbox.apId, apId)).get();
}

/** Expected hashtags/mentions are compared sorted (the order of `tag` is the server's). */
export function normalizeWant(want: Json): Json {
  const out = { ...want };
  if (Array.isArray(out.mentions)) out.mentions = [...(out.mentions as string[])].sort();
  if (Array.isArray(out.hashtags)) out.hashtags = (out.hashtags as string[]).map((h) => h.toLowerCase()).sort();
  delete out.apId;
  return out;
}

