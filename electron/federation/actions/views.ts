// Rows → what the UI shows of a post (PostView). Remote JSON is read totally (any field may be
// missing or odd) and its HTML sanitized again here, before it leaves the core.
import { inArray } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { actor, type Actor, type InboxObject, type OutboxObject } from '../../../db/schema';
import type { ActorView, AttachmentView, PostView } from '../../ipc/author-contract';
import { summarizeActor } from '../actor-summary';
import { asArray, httpUrl, idOf, isObject, str, type Json } from '../ap';
import type { LocalActor } from '../identity';
import { sanitizeContentHtml, sanitizePlainText } from '../sanitize';
import { pollViewOf } from '../polls/view';
import { withSources } from '../../media/views';

export function ownActorView(local: LocalActor, displayName: string): ActorView {
  return { id: 0, apId: local.id, name: displayName || local.username, handle: local.handle, iconUrl: null, url: local.id };
}

export function actorView(row: Actor): ActorView {
  return summarizeActor(row);
}

/** Actors by row id, in one query. */
export function actorsById(db: DbOrTx, ids: number[]): Map<number, Actor> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  return new Map(db.select().from(actor).where(inArray(actor.id, unique)).all().map((a) => [a.id, a]));
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function attachmentsOf(object: Json, ownBase: string | null): AttachmentView[] {
  return asArray(object.attachment)
    .filter(isObject)
    .map((a) =>
      withSources(
        {
          url: httpUrl(a.url) ?? httpUrl(idOf(asArray(a.url)[0])) ?? httpUrl(a.href) ?? '',
          mediaType: str(a.mediaType),
          name: str(a.name) === null ? null : sanitizePlainText(str(a.name)!),
          blurhash: str(a.blurhash),
          width: num(a.width),
          height: num(a.height),
        },
        str(a.type),
        ownBase,
      ),
    )
    .filter((a) => a.url !== '');
}

function tagsOf(object: Json): PostView['tags'] {
  const out: PostView['tags'] = [];
  for (const tag of asArray(object.tag)) {
    if (!isObject(tag) || (tag.type !== 'Mention' && tag.type !== 'Hashtag')) continue;
    const href = httpUrl(idOf(tag.href));
    const name = str(tag.name);
    if (href && name) out.push({ type: tag.type, name: sanitizePlainText(name), href });
  }
  return out;
}

/** A collection's totalItems (Mastodon's likes/shares), when the object carries one. */
function totalOf(value: unknown): number | null {
  return isObject(value) ? num(value.totalItems) : null;
}

// Sanitizing is most of what a post's view costs (≈ 40–100 µs a post: a thread of 500 replies
// spends 20–50 ms in it), and the same posts are shown again and again (a thread reopened, the
// stream scrolled back). The result of the last few thousand texts is kept: sanitizing is a pure
// function of the text, and the bound keeps memory flat.
const SANITIZED_KEPT = 3000;
const SANITIZED_MAX_CHARS = 20_000;
const sanitized = new Map<string, string>();

function contentHtmlOf(html: string): string {
  if (html.length > SANITIZED_MAX_CHARS) return sanitizeContentHtml(html);
  const kept = sanitized.get(html);
  if (kept !== undefined) {
    sanitized.delete(html);
    sanitized.set(html, kept);
    return kept;
  }
  const clean = sanitizeContentHtml(html);
  sanitized.set(html, clean);
  if (sanitized.size > SANITIZED_KEPT) sanitized.delete(sanitized.keys().next().value!);
  return clean;
}

function common(object: Json, apId: string, ownBase: string | null = null) {
  const name = str(object.name);
  const summary = str(object.summary);
  return {
    apId,
    url: httpUrl(object.url) ?? httpUrl(idOf(asArray(object.url)[0])) ?? apId,
    type: str(object.type) ?? 'Object',
    updated: str(object.updated),
    title: name && object.type !== 'Note' ? sanitizePlainText(name) : null,
    contentHtml: contentHtmlOf(str(object.content) ?? ''),
    summary: summary ? sanitizePlainText(summary) : null,
    sensitive: object.sensitive === true || Boolean(summary),
    inReplyTo: idOf(object.inReplyTo),
    attachments: attachmentsOf(object, ownBase),
    tags: tagsOf(object),
  };
}

export function inboxPostView(row: InboxObject, author: Actor | undefined): PostView {
  const object = row.apObject as Json;
  return {
    origin: 'inbox',
    id: row.id,
    ...common(object, row.apId),
    author: author ? actorView(author) : { id: row.actorId, apId: row.apActorId, name: row.apActorId, handle: null, iconUrl: null, url: row.apActorId },
    published: row.apPublishedAt.toISOString(),
    visibility: row.visibility,
    counts: { replies: row.repliesCount, likes: totalOf(object.likes), boosts: totalOf(object.shares) },
    mine: {
      own: false,
      liked: row.likedViaOutboxObjectApId !== null,
      boosted: row.announcedViaOutboxObjectApId !== null,
      bookmarked: row.isBookmarked,
      pinned: false,
    },
    boostedBy: null,
    markdown: null,
    deleted: row.isDeleted,
    poll: pollViewOf(object, row.votedForAnswers ?? null),
  };
}

export function outboxPostView(row: OutboxObject, me: ActorView): PostView {
  const object = row.apObject as Json;
  return {
    origin: 'outbox',
    id: row.id,
    ...common(object, row.apId, me.apId),
    author: me,
    published: row.apPublishedAt.toISOString(),
    visibility: row.visibility,
    counts: { replies: row.repliesCount, likes: row.likesCount, boosts: row.announcesCount },
    mine: { own: true, liked: false, boosted: false, bookmarked: false, pinned: row.isPinned },
    boostedBy: null,
    markdown: row.source,
    deleted: row.isDeleted,
    poll: pollViewOf(object, null),
  };
}
