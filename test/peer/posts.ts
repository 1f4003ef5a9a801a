// What a test peer publishes and how it interacts with others' posts: notes (with mentions,
// hashtags, replies and DMs), edits, deletions, poll votes, likes, boosts and profile edits.
// Addressing follows Mastodon's habits, since that is what Tern will meet most.
import { randomUUID } from 'node:crypto';
import {
  Announce,
  Create,
  Delete,
  Emoji,
  Hashtag,
  Image,
  Like,
  Mention,
  Note,
  PUBLIC_COLLECTION,
  Tombstone,
  Undo,
  Update,
  type Activity,
  type Actor,
  type Object as APObject,
  type Recipient,
} from '@fedify/vocab';
import { toRecipient } from './federation';
import { instant, isPublic, toNote, toPerson, type PeerContext, type PeerState, type StoredNote } from './state';

/** 'public' (to Public, cc followers), 'followers' (followers only), or these actors only (a DM). */
export type Audience = 'public' | 'followers' | string[];

export interface NoteInput {
  /** HTML, sent as is. */
  content: string;
  to?: Audience;
  inReplyTo?: string;
  /** Actor URLs; each gets a Mention tag, a cc and a copy. */
  mentions?: string[];
  /** Hashtag names, with or without '#'. */
  tags?: string[];
  /** Custom emoji, as Mastodon tags one: an Emoji named `:shortcode:` with its picture. */
  emojis?: { shortcode: string; url: string }[];
  /** The quote policy it advertises (StoredNote.quotePolicy); none when unset. */
  quotePolicy?: 'public' | 'manual';
}

/** What the actions need from a running peer. */
export interface PeerRuntime {
  name: string;
  origin: string;
  state: PeerState;
  context(): PeerContext;
  me(): URL;
  newId(kind: string): URL;
  deliver(activity: Activity, recipients: Recipient[], preferSharedInbox: boolean): Promise<void>;
  lookup(url: string): Promise<APObject | null>;
  resolveActor(url: string): Promise<Actor>;
  log(line: string): void;
}

export interface SentNote {
  noteId: string;
  createId: string;
}

export async function createNote(rt: PeerRuntime, input: NoteInput): Promise<SentNote> {
  const ctx = rt.context();
  const audience = input.to ?? 'public';
  const followersUri = ctx.getFollowersUri(rt.name);
  const direct = Array.isArray(audience) ? await Promise.all(audience.map(rt.resolveActor)) : [];
  const mentioned = await Promise.all((input.mentions ?? []).map(rt.resolveActor));
  const replyAuthor = input.inReplyTo == null ? null : await authorOf(rt, input.inReplyTo);
  // Like Mastodon: every addressed actor of a DM is also mentioned, and so is a reply's author.
  const tagged = uniqueActors([...direct, ...mentioned, ...(replyAuthor == null ? [] : [replyAuthor])]);
  const taggedIds = tagged.map((actor) => actor.id as URL);
  const directIds = direct.map((actor) => actor.id as URL);
  const [to, cc] =
    audience === 'public'
      ? [[PUBLIC_COLLECTION], [followersUri, ...taggedIds]]
      : audience === 'followers'
        ? [[followersUri], taggedIds]
        : [directIds, taggedIds.filter((id) => !directIds.some((d) => d.href === id.href))];
  const followerCopies = audience === 'public' || audience === 'followers' ? [...rt.state.followers.values()] : [];
  return await sendNote(rt, {
    id: ctx.getObjectUri(Note, { identifier: rt.name, id: randomUUID() }),
    content: input.content,
    name: null,
    published: await instant(),
    updated: null,
    to,
    cc,
    tags: [
      ...tagged.map((actor) => new Mention({ href: actor.id, name: handleOf(actor) })),
      ...(input.tags ?? []).map((tag) => {
        const bare = tag.replace(/^#/, '');
        return new Hashtag({ href: new URL(`/tags/${encodeURIComponent(bare)}`, rt.origin), name: `#${bare}` });
      }),
      ...(input.emojis ?? []).map(
        (e) => new Emoji({ id: new URL(`/emojis/${e.shortcode}`, rt.origin), name: `:${e.shortcode}:`, icon: new Image({ mediaType: 'image/png', url: new URL(e.url) }) }),
      ),
    ],
    inReplyTo: input.inReplyTo == null ? null : new URL(input.inReplyTo),
    recipients: [...followerCopies, ...tagged.map(toRecipient)],
    ...(input.quotePolicy ? { quotePolicy: input.quotePolicy } : {}),
  });
}

/** A Mastodon-style poll vote: a Note with `name` = option and `inReplyTo` = the poll, to its author only. */
export async function vote(rt: PeerRuntime, questionUrl: string, authorActorUrl: string, optionName: string): Promise<SentNote> {
  const author = await rt.resolveActor(authorActorUrl);
  return await sendNote(rt, {
    id: rt.context().getObjectUri(Note, { identifier: rt.name, id: randomUUID() }),
    content: null,
    name: optionName,
    published: await instant(),
    updated: null,
    to: [author.id as URL],
    cc: [],
    tags: [],
    inReplyTo: new URL(questionUrl),
    recipients: [toRecipient(author)],
  });
}

export async function updateNote(rt: PeerRuntime, noteId: string, content: string): Promise<string> {
  const note = ownNote(rt, noteId);
  note.content = content;
  note.updated = await instant();
  const update = new Update({
    id: rt.newId('updates'),
    actor: rt.me(),
    object: toNote(rt.context(), rt.state, note),
    tos: note.to,
    ccs: note.cc,
    published: note.updated,
  });
  await rt.deliver(update, note.recipients, true);
  return idOf(update);
}

export async function deleteNote(rt: PeerRuntime, noteId: string): Promise<string> {
  const note = ownNote(rt, noteId);
  rt.state.notes.delete(noteId);
  rt.state.outbox = rt.state.outbox.filter((activity) => activity.objectId?.href !== noteId);
  const del = new Delete({ id: rt.newId('deletes'), actor: rt.me(), object: new Tombstone({ id: note.id }), tos: note.to, ccs: note.cc });
  await rt.deliver(del, note.recipients, true);
  return idOf(del);
}

export async function like(rt: PeerRuntime, objectUrl: string, authorActorUrl: string): Promise<string> {
  const author = await rt.resolveActor(authorActorUrl);
  const activity = new Like({ id: rt.newId('likes'), actor: rt.me(), object: new URL(objectUrl), to: author.id });
  await rt.deliver(activity, [toRecipient(author)], false);
  rt.state.likes.set(objectUrl, activity);
  return idOf(activity);
}

export async function unlike(rt: PeerRuntime, objectUrl: string, authorActorUrl: string): Promise<string> {
  const liked = rt.state.likes.get(objectUrl);
  if (liked == null) throw new Error(`no Like of ${objectUrl} to undo`);
  const author = await rt.resolveActor(authorActorUrl);
  const undo = new Undo({ id: rt.newId('undos'), actor: rt.me(), object: liked, to: author.id });
  await rt.deliver(undo, [toRecipient(author)], false);
  rt.state.likes.delete(objectUrl);
  return idOf(undo);
}

export async function announce(rt: PeerRuntime, objectUrl: string, authorActorUrl: string): Promise<string> {
  const author = await rt.resolveActor(authorActorUrl);
  const activity = new Announce({
    id: rt.newId('announces'),
    actor: rt.me(),
    object: new URL(objectUrl),
    published: await instant(),
    to: PUBLIC_COLLECTION,
    ccs: [author.id as URL, rt.context().getFollowersUri(rt.name)],
  });
  await rt.deliver(activity, [toRecipient(author), ...rt.state.followers.values()], true);
  rt.state.announces.set(objectUrl, activity);
  rt.state.outbox.push(activity);
  return idOf(activity);
}

export async function undoAnnounce(rt: PeerRuntime, objectUrl: string, authorActorUrl: string): Promise<string> {
  const announced = rt.state.announces.get(objectUrl);
  if (announced == null) throw new Error(`no Announce of ${objectUrl} to undo`);
  const author = await rt.resolveActor(authorActorUrl);
  const undo = new Undo({
    id: rt.newId('undos'),
    actor: rt.me(),
    object: announced,
    to: PUBLIC_COLLECTION,
    ccs: [author.id as URL, rt.context().getFollowersUri(rt.name)],
  });
  await rt.deliver(undo, [toRecipient(author), ...rt.state.followers.values()], true);
  rt.state.announces.delete(objectUrl);
  rt.state.outbox = rt.state.outbox.filter((activity) => activity !== announced);
  return idOf(undo);
}

export async function updateProfile(rt: PeerRuntime, profile: { name?: string; summary?: string }): Promise<string> {
  const { state } = rt;
  state.profile = {
    name: profile.name ?? state.profile.name,
    summary: profile.summary ?? state.profile.summary,
    updated: await instant(),
  };
  const ctx = rt.context();
  const update = new Update({
    id: rt.newId('updates'),
    actor: rt.me(),
    object: await toPerson(ctx, state),
    to: PUBLIC_COLLECTION,
    cc: ctx.getFollowersUri(rt.name),
  });
  await rt.deliver(update, [...state.followers.values()], true);
  return idOf(update);
}

async function sendNote(rt: PeerRuntime, note: StoredNote): Promise<SentNote> {
  rt.state.notes.set(note.id.href, note);
  const create = new Create({
    id: new URL(`${note.id.href}/activity`),
    actor: rt.me(),
    object: toNote(rt.context(), rt.state, note),
    tos: note.to,
    ccs: note.cc,
    published: note.published,
  });
  if (isPublic(note)) rt.state.outbox.push(create);
  await rt.deliver(create, note.recipients, true);
  return { noteId: note.id.href, createId: idOf(create) };
}

async function authorOf(rt: PeerRuntime, objectUrl: string): Promise<Actor | null> {
  // Best effort, as servers do: a reply to something we cannot fetch still goes out.
  try {
    const object = await rt.lookup(objectUrl);
    const authorId = object?.attributionId;
    return authorId == null ? null : await rt.resolveActor(authorId.href);
  } catch (error) {
    rt.log(`could not find the author of ${objectUrl}: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  }
}

function ownNote(rt: PeerRuntime, noteId: string): StoredNote {
  const note = rt.state.notes.get(noteId);
  if (note == null) throw new Error(`no such note of ours: ${noteId}`);
  return note;
}

function handleOf(actor: Actor): string {
  return `@${actor.preferredUsername?.toString() ?? 'unknown'}@${actor.id?.host ?? 'unknown'}`;
}

function uniqueActors(actors: Actor[]): Actor[] {
  return [...new Map(actors.map((actor) => [actor.id?.href ?? '', actor])).values()];
}

function idOf(activity: Activity): string {
  return activity.id?.href ?? '';
}
