// Tern's views → Mastodon's entities (docs.joinmastodon.org/entities): Status, MediaAttachment,
// Poll, Notification, Relationship (Account: account-entity.ts). Pure mapping: every value comes from the
// core's views (already sanitized) or the stored actor document, read totally.
import { createHash } from 'node:crypto';
import type { RowKey } from '../federation/actions/reads';
import type { ActorView, AttachmentView, PeopleLists, PostView } from '../ipc/author-contract';
import type { PollView } from '../ipc/polls-contract';
import type { Visibility } from '../../../db/schema';
import { cleanFilename, mediaUrl, thumbnailUrl } from '../media/attachments';
import type { NotificationItem } from '../notifications/service';
import type { Upload } from '../../../db/schema';
import { hashtagHrefOf } from '../federation/actions/markdown';
import { isLocalActorId } from '../federation/identity';
import { statusId } from './ids';
import { endedPollOf, mastodonTypeOf, REACTION_NOTIFICATION } from './notification-types';
import { createAccounts, mastodonEmojis } from './account-entity';
import { groupKeyOf, keyedOf } from './notification-groups';
import { reactionBudget } from '../federation/reaction-tally';
import type { MapperDeps } from './mapper-deps';

const VISIBILITY: Record<Visibility, 'public' | 'unlisted' | 'private' | 'direct'> = {
  PUBLIC: 'public',
  UNLISTED: 'unlisted',
  FOLLOWERS_ONLY: 'private',
  DIRECT: 'direct',
};
export const visibilityOf = (v: Visibility) => VISIBILITY[v];
export const fromVisibility = (v: 'public' | 'unlisted' | 'private' | 'direct'): Visibility =>
  (Object.entries(VISIBILITY).find(([, m]) => m === v)![0] as Visibility);

/** One emoji's reactions on a status (Pleroma's `pleroma.emoji_reactions` entries). */
interface EmojiReaction {
  name: string;
  count: number;
  me: boolean;
  url?: string;
  static_url?: string;
}

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);

export type { MapperDeps } from './mapper-deps';

/** Builds entities for one request (the author's counts and people read once). */
export function createMapper(deps: MapperDeps) {
  const { local } = deps;
  let people: PeopleLists | null = null;
  const peopleNow = () => (people ??= deps.people());
  // A mapper serves one answer (api.ts apiOf): its statuses share one budget of reactions read,
  // and a status shown twice (a notification's, a reblog's) is tallied once and shown the same.
  const reactionBudgetLeft = reactionBudget();
  const tallies = new Map<number, ReturnType<MapperDeps['reads']['reactions']>>();

  const { account, ownAccount } = createAccounts(deps, peopleNow);

  function attachment(a: AttachmentView, index: number, statusKey: string) {
    const kind = a.kind ?? 'file';
    const own = a.url.startsWith(`${local.baseUrl}/media/`) ? /\/media\/([0-9a-f]{64})\//.exec(a.url)?.[1] : undefined;
    const type = kind === 'file' ? 'unknown' : a.mediaType === 'image/gif' ? 'image' : kind;
    const size = a.width && a.height ? { width: a.width, height: a.height, size: `${a.width}x${a.height}`, aspect: a.width / a.height } : null;
    return {
      id: own ? String(deps.reads.uploadByHash(own)?.id ?? hashId(own)) : hashId(`${statusKey}:${index}:${a.url}`),
      type,
      url: a.url,
      preview_url: own && kind === 'image' ? thumbnailUrl(local, own) : kind === 'image' ? a.url : null,
      remote_url: own ? null : a.url,
      preview_remote_url: null,
      text_url: null,
      meta: size ? { original: size, small: size } : {},
      description: a.name,
      blurhash: a.blurhash,
    };
  }

  function poll(view: PostView, id: string, p: PollView) {
    const counts = p.options.map((o) => o.votes);
    const total = counts.every((n) => n === null) ? null : counts.reduce<number>((sum, n) => sum + (n ?? 0), 0);
    const own = view.mine.own;
    return {
      id,
      expires_at: p.endTime,
      expired: p.closed || (p.endTime !== null && Date.parse(p.endTime) <= Date.now()),
      multiple: p.kind === 'anyOf',
      votes_count: total ?? 0,
      voters_count: p.kind === 'anyOf' ? p.votersCount : null,
      options: p.options.map((o) => ({ title: o.name, votes_count: p.hideTotals && !p.closed ? null : o.votes })),
      emojis: [],
      voted: own || p.myVotes !== null,
      own_votes: (p.myVotes ?? []).map((name) => p.options.findIndex((o) => o.name === name)).filter((i) => i >= 0),
    };
  }

  /** The first link preview as Mastodon's PreviewCard (a "link" card; no embeds). */
  function cardOf(view: PostView) {
    const p = view.previews?.[0];
    if (!p) return null;
    return {
      url: p.url,
      title: p.title,
      description: p.description ?? '',
      type: 'link' as const,
      author_name: '',
      author_url: '',
      provider_name: p.siteName ?? '',
      provider_url: '',
      html: '',
      width: 0,
      height: 0,
      image: p.image,
      embed_url: '',
      blurhash: null,
    };
  }

  /** Mastodon 4.5's Quote (a ShallowQuote inside a quoted status): the quoted status only once
   * the quote is accepted — the author's own quote waits for its approval (quoteState), was
   * refused, or was revoked (Mastodon's `revoked`: approved, then taken back; its
   * REST::BaseQuoteSerializer gives the quoted status only while `accepted`); anyone else's quote
   * is shown as accepted, as Tern shows it. */
  function quoteOf(
    view: PostView,
    depth: number,
  ): { state: 'accepted'; quoted_status_id: string } | { state: 'accepted'; quoted_status: Record<string, unknown> } | { state: 'pending' | 'rejected' | 'revoked'; quoted_status: null } | null {
    if (!view.quote) return null;
    // Mastodon has no "unanswered": to a client the quote is still pending.
    if (view.quoteState === 'pending' || view.quoteState === 'unanswered') return { state: 'pending', quoted_status: null };
    if (view.quoteState === 'rejected' || view.quoteState === 'revoked') return { state: view.quoteState, quoted_status: null };
    const found = deps.reads.find(view.quote);
    const quoted = found ? deps.reads.post(found.origin, found.id) : null;
    if (!quoted || quoted.view.deleted) return null;
    if (depth > 0) return { state: 'accepted' as const, quoted_status_id: statusId(quoted.key) };
    return { state: 'accepted' as const, quoted_status: statusOf(quoted.view, quoted.key, depth + 1) };
  }

  /** A Tag entity; one sent without a link (PeerTube's, Funkwhale's) links to the author's own
   * page of the tag, as Mastodon links every tag to its own server's page. */
  function hashtagEntity(name: string, href: string | undefined) {
    const bare = name.replace(/^#/, '');
    return { name: bare, url: href ?? hashtagHrefOf(local.baseUrl)(bare.toLowerCase()) };
  }

  /** The author's post's emoji reactions as Pleroma/Akkoma give them (`pleroma.emoji_reactions`,
   * which clients with reaction support read: megalodon, Pleroma's and Akkoma's front ends), and
   * how many likers only reacted. A received post's reactions are not known (Tern keeps only the
   * reactions to the author's own). The author cannot react, so `me` is false. A custom emoji is
   * named without its colons and shown by its picture's own URL, as the post's emojis are. */
  function reactionsOf(key: RowKey) {
    if (key.origin !== 'outbox') return { emoji_reactions: [] as EmojiReaction[], reactingLikers: 0 };
    let tally = tallies.get(key.id);
    if (!tally) tallies.set(key.id, (tally = deps.reads.reactions(key.id, reactionBudgetLeft)));
    const emoji_reactions = tally.reactions.map((r): EmojiReaction =>
      r.custom ? { name: r.custom.shortcode, count: r.count, me: false, url: r.custom.url, static_url: r.custom.url } : { name: r.emoji, count: r.count, me: false },
    );
    return { emoji_reactions, reactingLikers: tally.reactingLikers };
  }

  function statusOf(view: PostView, key: RowKey, depth = 0) {
    const id = statusId(key);
    const { emoji_reactions, reactingLikers } = reactionsOf(key);
    const parent = view.inReplyTo ? deps.reads.find(view.inReplyTo) : null;
    const parentPost = parent ? deps.reads.post(parent.origin, parent.id) : null;
    const content = view.title ? `<p><strong>${escapeText(view.title)}</strong></p>${view.contentHtml}` : view.contentHtml;
    const mentions = view.tags
      .filter((t) => t.type === 'Mention')
      .map((t) => {
        // Fedify writes our bare-origin id with a trailing slash (interop-notes).
        const known = isLocalActorId(t.href, local) ? ({ id: 0 } as const) : deps.reads.actorByApId(t.href);
        const name = t.name.replace(/^@/, '');
        return known ? { id: String(known.id), username: name.split('@')[0] ?? name, url: t.href, acct: name.endsWith(`@${local.host}`) ? (name.split('@')[0] ?? name) : name } : null;
      })
      .filter((m) => m !== null);
    return {
      id,
      uri: view.apId,
      url: view.url,
      created_at: iso(view.published)!,
      account: account(view.author),
      content,
      visibility: visibilityOf(view.visibility),
      sensitive: view.sensitive,
      spoiler_text: view.summary ?? '',
      media_attachments: view.attachments.map((a, i) => attachment(a, i, id)),
      application: null,
      mentions,
      tags: view.tags.filter((t) => t.type === 'Hashtag').map((t) => hashtagEntity(t.name, t.href)),
      emojis: mastodonEmojis(view.emojis),
      reblogs_count: view.counts.boosts ?? 0,
      // likes_count counts Misskey's reacting Likes too: a favourite is a like only.
      favourites_count: Math.max(0, (view.counts.likes ?? 0) - reactingLikers),
      replies_count: view.counts.replies,
      in_reply_to_id: parentPost ? statusId(parentPost.key) : null,
      in_reply_to_account_id: parentPost ? account(parentPost.view.author).id : null,
      reblog: null as unknown,
      poll: view.poll ? poll(view, id, view.poll) : null,
      // As Mastodon gives one: for a post without media or a quote.
      card: view.quote || view.attachments.length > 0 ? null : cardOf(view),
      // Mastodon 4.5's quote: the quoted post when Tern has it (a quote inside it as its id only).
      quote: quoteOf(view, depth),
      language: null,
      text: null,
      edited_at: view.updated && !Number.isNaN(Date.parse(view.updated)) ? iso(view.updated) : null,
      favourited: view.mine.liked,
      reblogged: view.mine.boosted,
      muted: false,
      bookmarked: view.mine.bookmarked,
      pinned: view.mine.own ? view.mine.pinned : undefined,
      filtered: [],
      pleroma: { emoji_reactions },
    };
  }

  /** A post as the stream lists it: a boost is a wrapper status around the boosted one. */
  function status(view: PostView, key: RowKey) {
    if (!view.boostedBy) return statusOf(view, key);
    const inner = deps.reads.find(view.apId);
    const boosted = statusOf({ ...view, boostedBy: null }, inner ?? key);
    const wrapper = statusOf({ ...view, boostedBy: null, author: view.boostedBy.actor, apId: view.boostedBy.apId, url: view.boostedBy.apId, published: view.boostedBy.at, inReplyTo: null, attachments: [], tags: [], poll: null, contentHtml: '', summary: null, title: null }, key);
    return { ...wrapper, reblog: boosted, favourited: view.mine.liked, reblogged: view.mine.boosted, bookmarked: view.mine.bookmarked };
  }

  function relationship(target: ActorView) {
    // Each looked up alone: the People view holds a first page (50) of followers and followed
    // people, and the requests are as many as remote actors make them.
    const relation = target.id > 0 ? deps.relation(target.id) : { following: false, followedBy: false, requestedBy: false };
    const following = relation.following;
    return {
      id: String(target.id),
      following,
      showing_reblogs: following,
      notifying: false,
      languages: null,
      followed_by: relation.followedBy,
      blocking: false,
      blocked_by: false,
      muting: false,
      muting_notifications: false,
      // Our own Follows waiting: as many as the author made.
      requested: peopleNow().pendingFollows.some((x) => x.actor.apId === target.apId),
      requested_by: relation.requestedBy,
      domain_blocking: false,
      endorsed: false,
      note: '',
    };
  }

  function notification(item: NotificationItem) {
    const type = mastodonTypeOf(item);
    const poll = endedPollOf(item);
    // An ended poll of ours has no actor: Mastodon names the poll's author, the account itself.
    if (!type || (!item.actor && !poll)) return null;
    const object = poll ?? (type === 'mention' ? item.inboxObject : type === 'follow' ? null : item.outboxObject);
    const post = object && !object.isDeleted ? deps.reads.post(object.box, object.id) : null;
    if (type !== 'follow' && !post) return null;
    // Pleroma's reaction notification: the emoji (a custom one as :shortcode:, with its picture).
    const reaction = type === REACTION_NOTIFICATION && item.reaction ? { emoji: item.reaction.emoji, ...(item.reaction.custom ? { emoji_url: item.reaction.custom.url } : {}) } : {};
    return {
      id: String(item.id),
      type,
      created_at: item.createdAt,
      // The key the grouped list groups it by (notification-groups.ts), as Mastodon's v1 gives it.
      group_key: groupKeyOf(keyedOf(item), type),
      account: item.actor ? account(item.actor) : ownAccount(),
      ...(post ? { status: status(post.view, post.key) } : {}),
      ...reaction,
    };
  }

  /** An upload not yet (or already) in a post, as POST /api/v2/media answers it. */
  function upload(row: Upload, description: string | null) {
    const kind = row.contentType.split('/')[0];
    const type = kind === 'image' || kind === 'video' || kind === 'audio' ? kind : 'unknown';
    const size = row.width && row.height ? { width: row.width, height: row.height, size: `${row.width}x${row.height}`, aspect: row.width / row.height } : null;
    return {
      id: String(row.id),
      type,
      url: mediaUrl(local, row.contentHash, cleanFilename(null, row.contentType)),
      preview_url: row.hasThumbnail ? thumbnailUrl(local, row.contentHash) : null,
      remote_url: null,
      preview_remote_url: null,
      text_url: null,
      meta: size ? { original: size, small: size } : {},
      description,
      blurhash: row.blurhash,
    };
  }

  return { account, ownAccount, status, poll, attachment, relationship, notification, upload };
}

export type Mapper = ReturnType<typeof createMapper>;

function escapeText(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** A stable numeric id for a file that has none (a remote attachment). */
export function hashId(text: string): string {
  return String(BigInt(`0x${createHash('sha256').update(text).digest('hex').slice(0, 12)}`));
}

