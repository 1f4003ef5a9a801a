// Micropub (W3C Recommendation): requests from writing apps turned into the author's own
// actions, so a post made through Micropub is an ordinary Tern post — saved, queued and
// federated by the same code as Compose. An h-entry with like-of becomes a Like, with
// repost-of an Announce, with in-reply-to a reply. Categories become hashtags; photo, video and
// audio become attachments when they are the author's uploads (media.ts). Update replaces the
// text or title; delete sends a Delete. Every change needs the token's scope: create, update or
// delete — a multipart create with files needs only create, as the spec has it (the media scope
// is for the media endpoint, where files can be stored without being posted).
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../../db/client';
import { inbox, outbox, outboxObjectAttachment, taggedOutboxObject, upload, type Visibility } from '../../../db/schema';
import type { AuthorService } from '../federation/actions';
import { fieldsOf } from '../federation/actions/post-object';
import { idOf, type Json } from '../federation/ap';
import { isPostType } from '../federation/outbox';
import type { LocalActor } from '../federation/identity';
import { hasScope, type Scope } from '../indieauth/scopes';
import { mediaUrl } from '../media/attachments';
import { MicropubError, type Properties } from './errors';
import type { UploadedFile } from '../media/uploaded-file';
import { isMediaProperty, planMedia, storePlan, type MediaPlan, type MicropubMedia } from './media';
import { authorInputs } from '../ipc/author-contract';
import { sanitizePlainText } from '../federation/sanitize';
import { htmlToMarkdown } from './html-content';

// Declared in errors.ts, which the media step (media.ts) shares without importing this file.
export { MicropubError, type Properties } from './errors';

export type MicropubRequest =
  | { action: 'create'; type: string; properties: Properties }
  | { action: 'update'; url: string; replace: Properties; add: Properties; delete: string[] | Properties }
  | { action: 'delete' | 'undelete'; url: string };

const url = z.string().trim().url().max(2048);
const propertyList = z.array(z.unknown()).max(100);
const properties = z.record(z.string().max(100), propertyList);
const jsonCreate = z.object({ type: z.array(z.string().max(50)).min(1).max(1), properties });
const jsonAction = z.object({
  action: z.enum(['update', 'delete', 'undelete']),
  url,
  replace: properties.optional(),
  add: properties.optional(),
  delete: z.union([z.array(z.string().max(100)).max(100), properties]).optional(),
});

/** The post as Compose would send it, checked by the same schema (lengths: Micropub would
 * otherwise post whatever fits in the 1 MiB body). */
function checked<K extends 'posts.create' | 'posts.edit'>(kind: K, input: z.input<(typeof authorInputs)[K]>): z.output<(typeof authorInputs)[K]> {
  const parsed = authorInputs[kind].safeParse(input);
  if (!parsed.success) throw new MicropubError('invalid_request', issue(parsed.error));
  return parsed.data as z.output<(typeof authorInputs)[K]>;
}

function issue(error: z.ZodError): string {
  const first = error.issues[0];
  return first ? `${first.path.join('.') || 'body'}: ${first.message}` : 'the request was not understood';
}

/** The fields of a form Micropub reads: a post with every category a client sends has tens; a
 * thousand is far past any real one. The listener counts them on the bytes before parsing too. */
export const MAX_FORM_FIELDS = 1_000;
/** Distinct properties of a post (form or JSON): Tern reads a dozen. */
const MAX_PROPERTIES = 100;

/** A form-encoded or multipart body (`name[]` repeated); files only as photo, video or audio. */
export function fromForm(entries: Iterable<[string, string | UploadedFile]>): MicropubRequest {
  // A Map, not an object: a field named __proto__ is a property like any other.
  const props = new Map<string, unknown[]>();
  let h: string | null = null;
  let action: string | null = null;
  let target: string | null = null;
  let fields = 0;
  const add = (key: string, value: unknown) => {
    const values = props.get(key);
    if (values) values.push(value);
    else if (props.size < MAX_PROPERTIES) props.set(key, [value]);
    else throw new MicropubError('invalid_request', `too many properties (at most ${MAX_PROPERTIES})`);
  };
  for (const [rawKey, value] of entries) {
    if (++fields > MAX_FORM_FIELDS) throw new MicropubError('invalid_request', `the form has more than ${MAX_FORM_FIELDS} fields`);
    const key = rawKey.endsWith('[]') ? rawKey.slice(0, -2) : rawKey;
    if (typeof value !== 'string') {
      if (!isMediaProperty(key)) throw new MicropubError('invalid_request', `${key}: only photo, video and audio can be files`);
      add(key, value);
    } else if (key === 'h') h = value;
    else if (key === 'action') action = value;
    else if (key === 'url') target = value;
    else if (key === 'access_token') continue;
    else if (key.length <= 100) add(key, value);
  }
  if (action !== null) {
    if (action !== 'delete' && action !== 'undelete') throw new MicropubError('invalid_request', `action=${action} needs a JSON body (update) or is unknown`);
    const parsed = url.safeParse(target);
    if (!parsed.success) throw new MicropubError('invalid_request', 'url: must be the URL of one of your posts');
    return { action, url: parsed.data };
  }
  if (h === null) throw new MicropubError('invalid_request', 'h is missing (h=entry to create a post)');
  return { action: 'create', type: `h-${h}`, properties: Object.fromEntries(props) };
}

/** Whether any property map of a JSON request has more keys than a post can have: counted
 * before zod, whose record check costs 200 ms for the 80,000 keys 1 MiB can hold. */
function tooManyProperties(value: object): boolean {
  const maps = ['properties', 'replace', 'add', 'delete'].map((k) => (value as Record<string, unknown>)[k]);
  return maps.some((m) => typeof m === 'object' && m !== null && !Array.isArray(m) && Object.keys(m).length > MAX_PROPERTIES);
}

export function fromJson(value: unknown): MicropubRequest {
  if (typeof value === 'object' && value !== null && tooManyProperties(value)) throw new MicropubError('invalid_request', `too many properties (at most ${MAX_PROPERTIES})`);
  if (typeof value === 'object' && value !== null && 'action' in value) {
    const parsed = jsonAction.safeParse(value);
    if (!parsed.success) throw new MicropubError('invalid_request', issue(parsed.error));
    const a = parsed.data;
    if (a.action === 'update') return { action: 'update', url: a.url, replace: a.replace ?? {}, add: a.add ?? {}, delete: a.delete ?? [] };
    return { action: a.action, url: a.url };
  }
  const parsed = jsonCreate.safeParse(value);
  if (!parsed.success) throw new MicropubError('invalid_request', issue(parsed.error));
  return { action: 'create', type: parsed.data.type[0]!, properties: parsed.data.properties };
}

// ---- reading properties ---------------------------------------------------------------------

function text(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null) {
    const v = value as Record<string, unknown>;
    if (typeof v.html === 'string') return v.html;
    if (typeof v.value === 'string') return v.value;
  }
  return null;
}

/** The content as Tern stores it (Markdown): a string is the author's text as written (Markdown,
 * as in Compose); {html} is HTML (Micropub §3.3.2), turned into the Markdown that renders the same
 * — not published as text showing its tags. */
function content(props: Properties): string | null {
  const value = props.content?.[0];
  if (typeof value === 'object' && value !== null && typeof (value as { html?: unknown }).html === 'string') return htmlToMarkdown((value as { html: string }).html);
  return first(props, 'content');
}

/** A post's name from an app is plain text (published as AS2 `name`): no markup kept. */
function plainTitle(name: string | null): string | null {
  return name === null ? null : sanitizePlainText(name).trim() || null;
}

function first(props: Properties, name: string): string | null {
  const values = props[name];
  if (values === undefined || values.length === 0) return null;
  const value = text(values[0]);
  if (value === null) throw new MicropubError('invalid_request', `${name}: expected a string`);
  return value;
}

function firstUrl(props: Properties, name: string): string | null {
  const value = first(props, name);
  if (value === null) return null;
  const parsed = url.safeParse(value);
  if (!parsed.success || !/^https?:/i.test(parsed.data)) throw new MicropubError('invalid_request', `${name}: must be an http(s) URL`);
  return parsed.data;
}

const VISIBILITY: Record<string, Visibility> = { public: 'PUBLIC', unlisted: 'UNLISTED', private: 'FOLLOWERS_ONLY' };

/** Categories Tern can write as hashtags; a category that is a URL (a person tag) is not one. */
function hashtags(props: Properties): string[] {
  return (props.category ?? []).map((c) => {
    const tag = typeof c === 'string' ? c.trim().replace(/^#/, '') : '';
    if (!/^[\p{L}\p{M}\p{N}_]*[\p{L}\p{M}_][\p{L}\p{M}\p{N}_]*$/u.test(tag) || tag.length > 100) {
      throw new MicropubError('invalid_request', `category ${JSON.stringify(c)} cannot be a hashtag (letters, digits and _ only)`);
    }
    return tag;
  });
}

const mdEscape = (s: string) => s.replace(/[[\]\\]/g, (c) => `\\${c}`);

/** The Markdown Tern stores: the content, then other servers' files as links, then the categories as hashtags. */
function composeText(content: string, props: Properties, media: MediaPlan): string {
  const parts = [content.trim()];
  const links = media.links.map((p) => `[${mdEscape(p.alt || 'Photo')}](${p.url})`);
  if (links.length > 0) parts.push(links.join('\n'));
  const tags = hashtags(props);
  if (tags.length > 0) parts.push(tags.map((t) => `#${t}`).join(' '));
  return parts.filter(Boolean).join('\n\n');
}

// ---- operations -----------------------------------------------------------------------------

export interface MicropubDeps {
  db: Db;
  author: AuthorService;
  local: LocalActor;
  /** Null where files cannot be stored (multipart creates with files are then refused). */
  media: MicropubMedia | null;
}

export function requireScope(granted: string, scope: Scope): void {
  if (!hasScope(granted, scope)) throw new MicropubError('insufficient_scope', `this token was not granted the ${scope} scope`, 403, scope);
}

/** The author's Like or Announce of a stored post: its id is the new thing's URL. */
function activityOn(db: Db, apId: string, kind: 'like' | 'repost'): string | null {
  const row = db.select({ liked: inbox.likedViaOutboxObjectApId, boosted: inbox.announcedViaOutboxObjectApId }).from(inbox).where(eq(inbox.apId, apId)).get();
  return (kind === 'like' ? row?.liked : row?.boosted) ?? null;
}

function ownPost(db: Db, apId: string) {
  const row = db.select().from(outbox).where(eq(outbox.apId, apId)).get();
  // A vote in someone's poll is a transient Note, not a post (see findOwnPost).
  if (!row || !isPostType(row.apType) || row.isTransient) throw new MicropubError('invalid_request', 'url is not one of your posts', 400);
  return row;
}

/** If `apId` is the author's Like or Announce, undoes it (if still in force) and says true. */
function undoInteraction(deps: MicropubDeps, apId: string): boolean {
  const row = deps.db.select().from(outbox).where(eq(outbox.apId, apId)).get();
  if (!row || (row.apType !== 'Like' && row.apType !== 'Announce')) return false;
  const target = row.activityObjectApId;
  if (target && activityOn(deps.db, target, row.apType === 'Like' ? 'like' : 'repost') === row.apId) {
    if (row.apType === 'Like') deps.author.unlike(target);
    else deps.author.unboost(target);
  }
  return true;
}

/** Runs a request with the token's scope; returns the URL to answer with (Location). */
export async function runMicropub(deps: MicropubDeps, request: MicropubRequest, scope: string): Promise<{ status: 200 | 201 | 204; location: string | null }> {
  if (request.action === 'create') {
    requireScope(scope, 'create');
    if (request.type !== 'h-entry') throw new MicropubError('invalid_request', `Tern posts h-entry only, not ${request.type}`);
    const props = request.properties;
    const status = first(props, 'post-status');
    if (status !== null && status !== 'published') throw new MicropubError('invalid_request', 'Tern has no drafts: post-status must be published');
    const likeOf = firstUrl(props, 'like-of');
    const repostOf = firstUrl(props, 'repost-of');
    if (likeOf && repostOf) throw new MicropubError('invalid_request', 'like-of and repost-of cannot be combined');
    if (likeOf) return { status: 201, location: activityOn(deps.db, (await deps.author.like(likeOf)).apId, 'like') };
    if (repostOf) return { status: 201, location: activityOn(deps.db, (await deps.author.boost(repostOf)).apId, 'repost') };
    const visibilityName = first(props, 'visibility') ?? 'public';
    const visibility = VISIBILITY[visibilityName];
    if (!visibility) throw new MicropubError('invalid_request', 'visibility must be public, unlisted or private');
    const media = planMedia(deps.db, deps.local, props);
    // Compose's own limits (text and title lengths), checked before any file is stored.
    const input = checked('posts.create', {
      content: composeText(content(props) ?? '', props, media),
      title: plainTitle(first(props, 'name')),
      visibility,
      inReplyTo: firstUrl(props, 'in-reply-to'),
    });
    // Files are stored only once everything else was read; a post refused after that lets go of them.
    const stored = await storePlan(deps.db, deps.media, media);
    try {
      const post = await deps.author.createPost({
        content: input.content,
        title: input.title ?? null,
        visibility,
        inReplyTo: input.inReplyTo ?? null,
        attachments: stored.attachments,
      });
      return { status: 201, location: post.apId };
    } catch (error) {
      deps.media?.discard(stored.created);
      throw error;
    }
  }
  if (request.action === 'delete') {
    requireScope(scope, 'delete');
    // A like or repost made here answered with its Like's or Announce's id: deleting that URL
    // takes it back (an Undo), as the author's unlike and unboost do.
    if (undoInteraction(deps, request.url)) return { status: 204, location: null };
    const row = ownPost(deps.db, request.url);
    if (!row.isDeleted) deps.author.deletePost(row.apId);
    return { status: 204, location: null };
  }
  if (request.action !== 'update') {
    requireScope(scope, 'update');
    throw new MicropubError('invalid_request', 'Tern cannot undelete: the Delete has already gone out to other servers');
  }
  requireScope(scope, 'update');
  const row = ownPost(deps.db, request.url);
  if (row.isDeleted) throw new MicropubError('invalid_request', 'that post was deleted');
  const fields = fieldsOf(row.apObject as Json, row.source, row.visibility);
  const deleted = Array.isArray(request.delete) ? request.delete : Object.keys(request.delete);
  const touched = [...Object.keys(request.replace), ...Object.keys(request.add), ...deleted];
  const unsupported = touched.filter((p) => p !== 'content' && p !== 'name');
  const media = unsupported.filter(isMediaProperty);
  if (media.length > 0) {
    throw new MicropubError('invalid_request', `Tern cannot change the files of a post (${[...new Set(media)].join(', ')}): delete it and post it again`);
  }
  if (unsupported.length > 0) {
    throw new MicropubError('invalid_request', `Tern can update content and name only, not ${[...new Set(unsupported)].join(', ')} (hashtags come from the text)`);
  }
  if (Object.hasOwn(request.add, 'content') || Object.hasOwn(request.add, 'name')) throw new MicropubError('invalid_request', 'content and name take one value: use replace');
  let text = fields.source;
  let title: string | null | undefined;
  if (request.replace.content) text = content(request.replace) ?? '';
  if (request.replace.name) title = plainTitle(first(request.replace, 'name'));
  if (deleted.includes('name')) title = null;
  if (deleted.includes('content')) text = '';
  checked('posts.edit', { apId: row.apId, content: text, ...(title !== undefined ? { title } : {}) });
  const saved = await deps.author.editPost({ apId: row.apId, content: text, ...(title !== undefined ? { title } : {}) });
  return { status: 200, location: saved.apId };
}

// ---- queries --------------------------------------------------------------------------------

export const QUERIES = ['config', 'source', 'syndicate-to'] as const;

export function configQuery(mediaEndpoint: string) {
  return { 'media-endpoint': mediaEndpoint, 'syndicate-to': [], q: [...QUERIES], 'post-types': [{ type: 'note', name: 'Note' }, { type: 'article', name: 'Article' }, { type: 'reply', name: 'Reply' }, { type: 'like', name: 'Like' }, { type: 'repost', name: 'Repost' }] };
}

/** The post's files as mf2 photo/video/audio values: the URL, or {value, alt} when it has alt text. */
function mediaProperties(db: Db, local: LocalActor, outboxObjectId: number): Record<string, unknown[]> {
  const rows = db
    .select({ filename: outboxObjectAttachment.filename, alt: outboxObjectAttachment.alt, hash: upload.contentHash, contentType: upload.contentType })
    .from(outboxObjectAttachment)
    .innerJoin(upload, eq(upload.id, outboxObjectAttachment.uploadId))
    .where(eq(outboxObjectAttachment.outboxObjectId, outboxObjectId))
    .orderBy(outboxObjectAttachment.id)
    .all();
  const out: Record<string, unknown[]> = {};
  for (const r of rows) {
    const kind = r.contentType.startsWith('image/') ? 'photo' : r.contentType.startsWith('video/') ? 'video' : 'audio';
    const value = mediaUrl(local, r.hash, r.filename);
    (out[kind] ??= []).push(r.alt ? { value, alt: r.alt } : value);
  }
  return out;
}

/** q=source: the post as mf2 JSON, with its Markdown as content (what an editor should edit). */
export function sourceQuery(db: Db, local: LocalActor, apId: string, wanted: string[]): { type?: string[]; properties: Record<string, unknown[]> } {
  const row = ownPost(db, apId);
  if (row.isDeleted) throw new MicropubError('invalid_request', 'that post was deleted', 400);
  const object = row.apObject as Json;
  const fields = fieldsOf(object, row.source, row.visibility);
  const tags = db.select({ tag: taggedOutboxObject.tag }).from(taggedOutboxObject).where(and(eq(taggedOutboxObject.outboxObjectId, row.id))).all().map((t) => t.tag);
  const all: Record<string, unknown[]> = {
    content: [fields.source],
    published: [typeof object.published === 'string' ? object.published : row.apPublishedAt.toISOString()],
    visibility: [Object.entries(VISIBILITY).find(([, v]) => v === row.visibility)?.[0] ?? 'direct'],
    url: [row.apId],
    ...mediaProperties(db, local, row.id),
  };
  if (fields.title) all.name = [fields.title];
  if (tags.length > 0) all.category = tags;
  const inReplyTo = idOf(object.inReplyTo);
  if (inReplyTo) all['in-reply-to'] = [inReplyTo];
  if (wanted.length === 0) return { type: ['h-entry'], properties: all };
  return { properties: Object.fromEntries(Object.entries(all).filter(([k]) => wanted.includes(k))) };
}
