// Building the ActivityPub object of one of the author's posts (Note, or Article when it has a
// title) from what they wrote: rendered content, tags, addressing by visibility (§5.1), content
// warning. Pure functions shared by posting, editing and the late linking of a mention that
// could only be resolved once online (deferred.ts).
import type { JsonValue, Visibility } from '../../../../db/schema';
import { PUBLIC, idOf, isObject, type Json } from '../ap';
import { isLocalActorId, type LocalActor } from '../identity';
import type { ApObject } from '../outbox';
import { hashtagHrefOf, normalizeHandle, renderPost, type RenderedPost, type ResolvedMention } from './markdown';
import { renderPostAnywhere } from './render-off-thread';

export interface PostFields {
  source: string;
  title: string | null;
  /** Content warning; setting one also marks the post sensitive (as microblog.pub does). */
  summary: string | null;
  sensitive: boolean;
  visibility: Visibility;
}

export const hashtagHref = (local: LocalActor) => hashtagHrefOf(local.baseUrl);

/** to/cc for a visibility (reference §5.1); `mentioned` are actor ids. */
export function addressing(local: LocalActor, visibility: Visibility, mentioned: string[]): { to: string[]; cc: string[] } {
  const people = [...new Set(mentioned)].filter((id) => !isLocalActorId(id, local));
  switch (visibility) {
    case 'PUBLIC':
      return { to: [PUBLIC], cc: [local.followers, ...people] };
    case 'UNLISTED':
      return { to: [local.followers], cc: [PUBLIC, ...people] };
    case 'FOLLOWERS_ONLY':
      return { to: [local.followers], cc: people };
    case 'DIRECT':
      return { to: people, cc: [] };
  }
}

/** Mentions already on an object (Mention tags), by handle when they carry one. */
export function mentionsOf(object: Json): ResolvedMention[] {
  const tags = Array.isArray(object.tag) ? object.tag : object.tag ? [object.tag] : [];
  const out: ResolvedMention[] = [];
  for (const tag of tags) {
    if (!isObject(tag) || tag.type !== 'Mention') continue;
    const href = idOf(tag.href);
    if (href) out.push({ href, name: typeof tag.name === 'string' ? tag.name : href });
  }
  return out;
}

/** The actor ids an object addresses besides Public and our followers (DM recipients, people
 * mentioned); an edit keeps them so nobody loses a post they could read. */
export function addressedPeople(local: LocalActor, object: Json): string[] {
  const ids = ['to', 'cc'].flatMap((k) => (Array.isArray(object[k]) ? (object[k] as unknown[]) : object[k] ? [object[k]] : []));
  return ids.map(idOf).filter((id): id is string => id !== null && id !== PUBLIC && id !== local.followers && !isLocalActorId(id, local));
}

function handleMap(mentions: ResolvedMention[]): Map<string, ResolvedMention> {
  const map = new Map<string, ResolvedMention>();
  for (const m of mentions) {
    const parts = /^@([^@]+)@([^@]+)$/.exec(m.name);
    if (parts) map.set(normalizeHandle(parts[1]!, parts[2]!), m);
  }
  return map;
}

export interface BuiltPost {
  object: ApObject;
  hashtags: string[];
  /** Handles written in the text that did not resolve (left as plain text). */
  unresolvedHandles: string[];
}

export interface PostInput {
  local: LocalActor;
  id: string;
  fields: PostFields;
  mentions: ResolvedMention[];
  /** Addressed without a tag (kept from an earlier version). */
  alsoAddressed?: string[];
  inReplyTo: string | null;
  context: string | null;
  published: string;
  updated?: string;
  base?: ApObject;
}

/** The people a post tags and addresses: each once, never the author. */
const uniqueMentions = (input: PostInput) => [...new Map(input.mentions.map((m) => [m.href, m])).values()].filter((m) => !isLocalActorId(m.href, input.local));

/**
 * The post object. `mentions` are the people resolved so far (by handle or by id); every one is
 * tagged and addressed, and those written as @user@host in the text are linked there. `base`
 * is the previous version when editing: fields this function does not own (a poll's options,
 * endTime…) are kept. `rendered`: the source already rendered for these mentions (buildPost);
 * without it the source is rendered here, on this thread.
 */
export function buildPostObject(input: PostInput & { rendered?: RenderedPost }): BuiltPost {
  const { local, fields } = input;
  const unique = uniqueMentions(input);
  const rendered = input.rendered ?? renderPost(fields.source, { mentions: handleMap(unique), hashtagHref: hashtagHref(local) });
  const { to, cc } = addressing(local, fields.visibility, [...unique.map((m) => m.href), ...(input.alsoAddressed ?? [])]);
  const tag: JsonValue[] = [
    ...unique.map((m) => ({ type: 'Mention', href: m.href, name: m.name })),
    // The link lower-cased, the name as written (Mastodon does the same).
    ...rendered.hashtags.map((t, i) => ({ type: 'Hashtag', href: hashtagHref(local)(t), name: `#${rendered.hashtagNames?.[i] ?? t}` })),
  ];
  // A title makes an Article; a poll stays a Question whatever is edited.
  const type = input.base?.type === 'Question' ? 'Question' : fields.title ? 'Article' : 'Note';
  const object: ApObject = {
    ...(input.base ?? {}),
    id: input.id,
    type,
    attributedTo: local.id,
    content: rendered.html,
    source: { content: fields.source, mediaType: 'text/markdown' },
    published: input.published,
    to,
    cc,
    tag,
    sensitive: fields.sensitive || Boolean(fields.summary),
    url: input.id,
  };
  if (fields.summary) object.summary = fields.summary;
  else delete object.summary;
  if (fields.title) object.name = fields.title;
  else if (type !== 'Question') delete object.name;
  if (input.inReplyTo) object.inReplyTo = input.inReplyTo;
  if (input.context) {
    object.context = input.context;
    object.conversation = input.context;
  }
  if (input.updated) object.updated = input.updated;
  const resolved = handleMap(unique);
  return { object, hashtags: rendered.hashtags, unresolvedHandles: rendered.handles.filter((h) => !resolved.has(h)) };
}

/** buildPostObject with a long source rendered off the main thread (render-off-thread.ts): what
 * posting and editing build, as the author's clients send it. */
export async function buildPost(input: PostInput): Promise<BuiltPost> {
  const rendered = await renderPostAnywhere(input.fields.source, { mentions: handleMap(uniqueMentions(input)), baseUrl: input.local.baseUrl });
  return buildPostObject({ ...input, rendered });
}

/** The fields of a stored post object, read back for editing or re-rendering. */
export function fieldsOf(object: Json, source: string | null, visibility: Visibility): PostFields {
  return {
    source: source ?? '',
    title: typeof object.name === 'string' && object.type === 'Article' ? object.name : null,
    summary: typeof object.summary === 'string' && object.summary !== '' ? object.summary : null,
    sensitive: object.sensitive === true,
    visibility,
  };
}
