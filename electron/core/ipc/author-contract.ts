// The author's part of the IPC contract: posting and interacting, the home stream, the profile
// with each post's delivery state, people, the delivery queue and connectivity. Spread into
// contract.ts (inputs) and its Outputs; the renderer imports only the types.
import { z } from 'zod';
import { VISIBILITIES, type Visibility } from '../../../db/columns';
import { pollInputSchema, type PollView } from './post-poll-contract';
import { MAX_ALT_LENGTH, MAX_ATTACHMENTS } from '../media/limits';

// ---- views ------------------------------------------------------------------------------------

/** A custom emoji a name or a post shows for `:shortcode:` (federation/custom-emoji.ts). */
export interface EmojiView {
  shortcode: string;
  /** The picture's own URL. */
  url: string;
  /** The picture through Tern's media proxy: what the page loads. */
  src: string;
}

export interface ActorView {
  /** actor.id; 0 for the author. */
  id: number;
  apId: string;
  name: string;
  handle: string | null;
  iconUrl: string | null;
  /** The avatar through Tern's media proxy (never the remote URL itself). */
  iconSrc?: string | null;
  url: string;
  /** Where the account moved (its document's `movedTo`), when it did. */
  movedTo?: string;
  /** The custom emoji its name may show, when it has any. */
  emojis?: EmojiView[];
}

export interface AttachmentView {
  url: string;
  mediaType: string | null;
  /** Alt text. */
  name: string | null;
  blurhash: string | null;
  width: number | null;
  height: number | null;
  /** What the page may load (Tern's own path: a local upload or the media proxy); null: not
   * shown inline (a remote video: opened outside Tern). */
  src?: string | null;
  /** A smaller image for lists (local thumbnail), else src. */
  thumbSrc?: string | null;
  kind?: 'image' | 'video' | 'audio' | 'file';
}

/** A link preview of a page the post links to (its og_meta entry: previews/opengraph.ts). */
export interface LinkPreviewView {
  url: string;
  title: string;
  description: string | null;
  siteName: string | null;
  /** The page's picture: its own URL (for the Mastodon API's clients), or null. */
  image: string | null;
  /** The same through Tern's media proxy: what Tern's own pages load. */
  imageSrc: string | null;
}

export interface PostView {
  /** Where the row lives: a received object (inbox) or one of the author's posts (outbox). */
  origin: 'inbox' | 'outbox';
  /** The row id in that table. */
  id: number;
  apId: string;
  /** The original's page: a `text/html` link when `url` lists several, else the id. */
  url: string;
  /** The object's ActivityPub type as received (Note, Article, Video, Event, …). */
  type: string;
  author: ActorView;
  published: string;
  updated: string | null;
  /** The `name` of every type but Note and Question (an Article's, a Video's, an Event's title). */
  title: string | null;
  /** Sanitized HTML. */
  contentHtml: string;
  /** The custom emoji its content may show (`:blobcat:`), when it has any. */
  emojis?: EmojiView[];
  /** The id of the post it quotes (federation/quotes.ts), when it quotes one. */
  quote?: string;
  /** For the author's own quote posts: whether the quoted post's author approved the quote
   * (federation/quoting.ts). `rejected`: shown without the quoted post. `unanswered`: no answer
   * came in the time given (quotes.askAgain asks once more). `revoked`: approved, then taken back
   * by them (shown without the quoted post). */
  quoteState?: 'approved' | 'pending' | 'unanswered' | 'rejected' | 'revoked';
  /** For the author's own quote of someone else's post: whom the approval was asked of. */
  quoteAskedOf?: ActorView;
  /** For a received post quoting one of the author's posts with their approval (the thread view):
   * the QuoteRequest (quotes.revoke, quotes.allowAgain take its id) and where the approval stands
   * — `allowedAgain`: revoked, then allowed again. */
  quoteApproval?: { inboxObjectId: number; state: 'standing' | 'revoked' | 'ended'; allowedAgain: boolean };
  /** Previews of the pages it links to, when any were fetched (the first is shown). */
  previews?: LinkPreviewView[];
  /** Content warning (plain text): the `summary` of a Note or Question, or of a sensitive post. */
  summary: string | null;
  /** The `summary` when it is not a warning (an Article's or a Page's lead), as plain text. */
  excerpt: string | null;
  sensitive: boolean;
  /** An object of a type Tern has no view for, shown as a link card (title, excerpt, link). */
  card: boolean;
  visibility: Visibility;
  inReplyTo: string | null;
  attachments: AttachmentView[];
  /** Mentions and hashtags; a Hashtag's name as `#name`, and its href only when the post gave one
   * (PeerTube and Funkwhale send none). */
  tags: ({ type: 'Mention'; name: string; href: string } | { type: 'Hashtag'; name: string; href?: string })[];
  counts: { replies: number; likes: number | null; boosts: number | null };
  mine: { own: boolean; liked: boolean; boosted: boolean; bookmarked: boolean; pinned: boolean };
  /** Set when the item is in the stream because someone boosted it. */
  boostedBy: { actor: ActorView; apId: string; at: string } | null;
  /** The author's Markdown, for editing their own posts. */
  markdown: string | null;
  deleted: boolean;
  /** A Question's poll (polls-contract.ts); null for other posts. */
  poll: PollView | null;
  /** When and where an Event (Mobilizon, Friendica, Gancio…) takes place; null for other posts. */
  event: EventView | null;
}

export interface EventView {
  /** ISO 8601, with the offset the organiser gave. */
  startTime: string;
  endTime: string | null;
  /** The place as text: its name and address (street, town, region, country), or null. */
  place: string | null;
  /** Held online (Mobilizon's isOnline). */
  online: boolean;
}

export type DeliveryStateName = 'local' | 'queued' | 'sending' | 'sent' | 'failed';

/** How far one post (its latest Create or Update) got: "sent to 3 of 4 servers". */
export interface DeliveryState {
  state: DeliveryStateName;
  /** The activity these numbers are about: Create, or Update after an edit. */
  activity: string;
  /** Servers (inboxes) it is for. */
  total: number;
  sent: number;
  failed: number;
  pending: number;
  /** Why the latest failure happened, as a sentence. */
  error: string | null;
  /** When the next try is due (ISO), while some are pending. */
  nextTry: string | null;
}

export interface ProfilePost extends PostView {
  delivery: DeliveryState;
}

export interface PageOf<T> {
  items: T[];
  /** Pass back as `cursor` for the next (older) page; null at the end. */
  nextCursor: string | null;
}

export interface ThreadView {
  /** Oldest first, up to 10 levels. */
  ancestors: PostView[];
  post: PostView;
  /** Depth-first, oldest first among siblings; depth 1 = direct replies. A page of them: the
   * first `limit`, or those after `cursor`. */
  replies: (PostView & { depth: number })[];
  /** All the stored replies, shown or not. */
  totalReplies: number;
  /** Pass back as `cursor` (same apId) for the next replies; null when they are all given. */
  nextCursor: string | null;
  /** The first parent that could not be had (offline, gone), if the walk stopped early. */
  missingParent: string | null;
}

export interface PersonView {
  actor: ActorView;
  /** ISO: since when (followed, requested). */
  since: string;
}

/** The author's lists, as the Mastodon client API's entities read them (no follow requests). */
export interface PeopleLists {
  /** The first page of each (newest first); people.page gives the next ones. */
  followers: PersonView[];
  following: PersonView[];
  counts: { followers: number; following: number };
  /** Pass to people.page for the next page of that list; null when it is all here. */
  nextCursor: { followers: string | null; following: string | null };
  /** Our Follows not answered yet. */
  pendingFollows: PersonView[];
}

/** The People view: the lists, and how many follow requests wait for the author (manual
 * approval; follow-requests.list gives them a page at a time: remote actors decide how many). */
export interface PeopleView extends PeopleLists {
  requestCount: number;
}

export type FollowStateName = 'following' | 'requested' | 'none';

/** The post another post quotes (posts.quoted): stored, or fetched when the quoting post is the
 * author's own or from someone they follow; otherwise the author is asked before Tern contacts
 * the quoted post's server (`ask`: lookup.resolve fetches it); `gone`: its server says it is not
 * there. */
export type QuotedView = { kind: 'post'; post: PostView } | { kind: 'ask' } | { kind: 'gone' };

export type LookupView =
  | { kind: 'actor'; actor: ActorView; followState: FollowStateName; summaryHtml: string | null; followsYou: boolean }
  | { kind: 'post'; post: PostView };

export type DeliveryRowState = 'queued' | 'resolving' | 'sending' | 'retrying' | 'sent' | 'failed';

export interface DeliveryRowView {
  id: number;
  createdAt: string;
  state: DeliveryRowState;
  recipient: string;
  host: string;
  /** What is being delivered. */
  activity: { type: string; apId: string | null; label: string };
  /** Tries counted: those answered, and those that failed (refused, timed out…); not one stopped
   * by Tern, cut by the network going away, or failing just after a wake from sleep. */
  tries: number;
  nextTry: string | null;
  /** When a request of this row last left Tern (it may have reached the server, answer or not);
   * null when none ever did. Newer than the tries counted when Tern stopped before an answer
   * (error then says so). */
  lastTry: string | null;
  lastStatus: number | null;
  lastResponse: string | null;
  error: string | null;
}

export interface DeliveriesView extends PageOf<DeliveryRowView> {
  counts: Record<DeliveryRowState, number>;
}

export interface ConnectivityView {
  online: boolean;
  network: 'online' | 'offline';
  workOffline: boolean;
  source: string;
  since: string;
  /** Deliveries not sent yet (waiting or being sent). */
  queued: number;
  /** What those deliveries are for. */
  waiting: WaitingView;
}

/** What waits to be sent (delivery/status.ts waitingToSend). */
export interface WaitingView {
  /** Deliveries not sent yet, one per server (as `queued`). */
  deliveries: number;
  /** The author's posts they carry (new, edited: each post once). */
  posts: number;
  /** The author's other actions they carry (likes, boosts, follows, deletions…). */
  other: number;
}

// ---- inputs -----------------------------------------------------------------------------------

const apId = z.string().trim().url().max(2048);
const byApId = z.object({ apId }).strict();
const attachmentsInput = z
  .array(
    z
      .object({
        uploadId: z.number().int().positive(),
        alt: z.string().max(MAX_ALT_LENGTH).nullish(),
        filename: z.string().max(255).nullish(),
      })
      .strict(),
  )
  .max(MAX_ATTACHMENTS);
const page = { cursor: z.string().max(300).nullish(), limit: z.number().int().min(1).max(100).default(30) };

export const authorInputs = {
  'posts.create': z
    .object({
      content: z.string().max(100_000),
      title: z.string().max(500).nullish(),
      visibility: z.enum(VISIBILITIES).default('PUBLIC'),
      summary: z.string().max(2_000).nullish(),
      sensitive: z.boolean().optional(),
      attachments: attachmentsInput.optional(),
      inReplyTo: apId.nullish(),
      mentions: z.array(z.string().trim().min(1).max(2048)).max(100).optional(),
      poll: pollInputSchema.nullish(),
      // The post to quote (public or unlisted).
      quote: apId.nullish(),
    })
    .strict(),
  'posts.edit': z
    .object({
      apId,
      content: z.string().max(100_000),
      title: z.string().max(500).nullish(),
      summary: z.string().max(2_000).nullish(),
      sensitive: z.boolean().optional(),
    })
    .strict(),
  'posts.delete': byApId,
  'posts.pin': byApId,
  'posts.unpin': byApId,
  'posts.like': byApId,
  'posts.unlike': byApId,
  'posts.boost': byApId,
  'posts.unboost': byApId,
  'posts.bookmark': byApId,
  'posts.unbookmark': byApId,
  'social.follow': z.object({ target: z.string().trim().min(3).max(2048) }).strict(),
  'social.unfollow': z.object({ actorApId: apId }).strict(),
  'social.acceptRequest': z.object({ inboxObjectId: z.number().int().positive() }).strict(),
  'social.rejectRequest': z.object({ inboxObjectId: z.number().int().positive() }).strict(),
  'social.removeFollower': z.object({ actorApId: apId }).strict(),
  // The QuoteRequest a "quoted your post" notification points at (its inboxObject.id).
  'quotes.revoke': z.object({ inboxObjectId: z.number().int().positive() }).strict(),
  // The same QuoteRequest, once revoked: a new request for that quote is approved again.
  'quotes.allowAgain': z.object({ inboxObjectId: z.number().int().positive() }).strict(),
  // One of the author's quote posts whose quoted author never answered (quoteState `unanswered`).
  'quotes.askAgain': byApId,
  'lookup.resolve': z.object({ query: z.string().trim().min(3).max(2048) }).strict(),
  'posts.quoted': z.object({ apId, by: apId }).strict(),
  'thread.get': z.object({ apId, cursor: z.string().regex(/^\d{1,6}$/).nullish(), limit: z.number().int().min(1).max(500).default(50) }).strict(),
  'timeline.stream': z.object(page).strict(),
  'timeline.profile': z.object(page).strict(),
  'people.list': z.object({ limit: z.number().int().min(1).max(200).default(50) }).strict(),
  'people.page': z.object({ list: z.enum(['followers', 'following']), ...page, limit: z.number().int().min(1).max(200).default(50) }).strict(),
  'deliveries.list': z
    .object({ ...page, state: z.enum(['all', 'pending', 'failed', 'sent']).default('all'), postApId: z.string().url().optional() })
    .strict(),
  'deliveries.retryNow': z.object({ id: z.number().int().positive().optional() }).strict(),
  'connectivity.get': z.object({}).strict(),
  'connectivity.setWorkOffline': z.object({ workOffline: z.boolean() }).strict(),
} as const;

export interface AuthorOutputs {
  'posts.create': ProfilePost;
  'posts.edit': ProfilePost;
  'posts.delete': { apId: string; queued: number };
  'posts.pin': ProfilePost;
  'posts.unpin': ProfilePost;
  'posts.like': PostView;
  'posts.unlike': PostView;
  'posts.boost': PostView;
  'posts.unboost': PostView;
  'posts.bookmark': PostView;
  'posts.unbookmark': PostView;
  'social.follow': { actor: ActorView; state: FollowStateName };
  'social.unfollow': { actor: ActorView; state: FollowStateName };
  'social.acceptRequest': { outboxObjectId: number };
  'social.rejectRequest': { outboxObjectId: number };
  'social.removeFollower': { outboxObjectId: number };
  'quotes.revoke': { approval: 'revoked' | 'ended'; queued: number };
  /** `changed`: false when it was allowed again already. */
  'quotes.allowAgain': { changed: boolean };
  'quotes.askAgain': ProfilePost;
  'lookup.resolve': LookupView;
  'posts.quoted': QuotedView;
  'thread.get': ThreadView;
  'timeline.stream': PageOf<PostView>;
  'timeline.profile': PageOf<ProfilePost>;
  'people.list': PeopleView;
  'people.page': PageOf<PersonView>;
  'deliveries.list': DeliveriesView;
  'deliveries.retryNow': { retried: number };
  'connectivity.get': ConnectivityView;
  'connectivity.setWorkOffline': ConnectivityView;
}

export const AUTHOR_CHANNELS = Object.keys(authorInputs) as (keyof typeof authorInputs)[];
