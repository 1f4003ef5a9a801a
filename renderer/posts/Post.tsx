// One post (UX.md "Posts"): who wrote it (and who boosted it), when (relative, absolute on
// hover), its visibility, the content — sanitized, behind "Show more" when it carries a content
// warning — and the actions under it. Own posts show how far their delivery got and offer pin,
// edit and delete. It is an <article> the keyboard moves between (j/k), and each action is a
// button the shortcuts press (o, r, l, b, q).
import { memo, useId, useState } from 'react';
import { Avatar } from '../components/Avatar';
import { BoostIcon, BookmarkIcon, HeartIcon, MoreIcon, PinIcon, QuoteIcon, ReplyIcon } from '../components/icons';
import { Menu, type MenuItem } from '../components/Menu';
import { RelativeTime } from '../components/RelativeTime';
import { nameSlot, WithNames } from '../components/WithNames';
import { Html } from '../content/Html';
import { EmojiText } from '../content/emoji';
import { hrefOf, navigate } from '../places';
import { formatNumber, strings } from '../strings';
import { usePostState, usePostActions, type Flag } from './actions';
import { DeliveryLine } from './DeliveryLine';
import { listKeyOf, type PostView, type ShownPost } from './model';
import { VisibilityMark } from './Visibility';
import { PollBlock } from '../polls/PollBlock';
import { Attachments } from '../media/Attachments';
import { externalHref, hostOf } from './links';
import { EventLine } from './EventLine';
import { LinkPreview, usePreviews } from './LinkPreview';
import { QuotedPost } from './QuotedPost';
import { QuoteApproval } from './QuoteApproval';
import { QuoteState } from './QuoteState';
import { useKeptFlag } from './kept-state';

const t = strings.post;

/** Types read on their own page (an Article, a Video, an Event): a link to it under the post. */
const LINKED_TYPES = new Set(['Article', 'Page', 'Video', 'Audio', 'Image', 'Event']);

export interface PostProps {
  post: ShownPost;
  /** The post the thread is about: larger, not a link to itself. */
  focused?: boolean;
  onDelete?: (post: ShownPost) => void;
  onEdit?: (post: ShownPost) => void;
}

/** Memoized: a list that grows by a page renders the page's new posts, not again every post it
 * already shows (each post follows its own state through its hooks). npm run bench:renderer,
 * "Load more" until the new page is drawn, at 2,000 posts: 541 ms before, 180–189 ms after
 * (e2e/list-memo.spec.ts keeps it so). */
export const Post = memo(function Post({ post, focused = false, onDelete, onEdit }: PostProps) {
  const id = useId();
  const state = usePostState(post);
  const failure = state.failed;
  const toggle = usePostActions((s) => s.toggle);
  const retry = usePostActions((s) => s.set);
  const retryDelivery = usePostActions((s) => s.retryDelivery);
  const [revealed, setRevealed] = useKeptFlag(`warning:${post.apId}`);
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const threadHref = hrefOf('thread', { ap: post.apId });
  const warning = post.summary ?? (post.sensitive ? '' : null);
  const hidden = warning !== null && !revealed;
  const own = post.mine.own;
  const previews = usePreviews(post);
  // Revoked or allowed again here: shown so until the post comes again with its own state.
  const [approvalChange, setApprovalChange] = useState<{ from: PostView['quoteApproval']; to: NonNullable<PostView['quoteApproval']> } | null>(null);
  const quoteApproval = approvalChange && approvalChange.from === post.quoteApproval ? approvalChange.to : post.quoteApproval;

  const action = (flag: Flag) => () => void toggle(post, flag);
  const moreItems: MenuItem[] = [];
  if (own && !post.deleted) {
    moreItems.push({ label: state.pinned ? t.unpin : t.pin, onSelect: action('pinned') });
    if (onEdit) moreItems.push({ label: t.edit, onSelect: () => onEdit(post) });
    if (onDelete) moreItems.push({ label: t.delete, onSelect: () => setConfirmingDelete(true), danger: true });
  }
  const originalHref = externalHref(post.url);
  if (!own && originalHref) moreItems.push({ label: t.openOriginal, onSelect: () => window.open(originalHref, '_blank', 'noopener,noreferrer') });

  return (
    <article
      className={focused ? 'post post--focused' : 'post'}
      data-post={listKeyOf(post)}
      data-testid="post"
      tabIndex={0}
      aria-labelledby={`${id}-author`}
      aria-describedby={`${id}-content`}
    >
      {post.boostedBy && (
        <p className="post__context">
          <BoostIcon className="post__context-icon" />
          <span className="post__context-text">
            <WithNames text={t.boostedBy(nameSlot(0))} names={[post.boostedBy.actor.name]} />
          </span>
        </p>
      )}
      {state.pinned && own && !post.boostedBy && (
        <p className="post__context">
          <PinIcon className="post__context-icon" />
          <span>{t.pinned}</span>
        </p>
      )}
      <div className="post__body">
        <Avatar name={post.author.name} id={post.author.apId} size={focused ? 'large' : 'medium'} src={post.author.iconSrc} />
        <div className="post__main">
          <header className="post__header">
            <span className="post__who" id={`${id}-author`}>
              {own ? (
                <AuthorName post={post} />
              ) : (
                // Someone else: their card (who they are, follow or unfollow) opens in People.
                <a className="post__who-link" href={hrefOf('people', { q: post.author.apId })} title={t.openAuthor(post.author.name)}>
                  <AuthorName post={post} />
                </a>
              )}
            </span>
            <span className="post__meta">
              <VisibilityMark visibility={post.visibility} />
              {focused ? (
                <RelativeTime iso={post.published} />
              ) : (
                <a className="post__time" href={threadHref} data-action="open" aria-label={t.openThread}>
                  <RelativeTime iso={post.published} />
                </a>
              )}
              {post.updated && post.updated !== post.published && <span className="post__edited">{t.edited}</span>}
            </span>
          </header>
          {post.inReplyTo && !focused && (
            <a className="post__reply-to" href={hrefOf('thread', { ap: post.inReplyTo })}>
              {t.replyingTo}
            </a>
          )}
          {post.card ? (
            // A type Tern has no view for: what it is called, its lead, and where to read it.
            <a className="post__card" href={originalHref} target="_blank" rel="noopener noreferrer nofollow">
              <span className="post__card-title">{post.title ?? post.url}</span>
              {post.excerpt && <span className="post__card-excerpt">{post.excerpt}</span>}
              <span className="post__card-host">{t.cardHost(hostOf(post.url), post.type)}</span>
            </a>
          ) : (
            <>
              {post.title && <h3 className="post__title">{post.title}</h3>}
              {post.event && <EventLine event={post.event} />}
              {/* A summary that is not a warning (an Article's lead) is shown, never hidden. */}
              {post.excerpt && <p className="post__excerpt">{post.excerpt}</p>}
            </>
          )}
          {warning !== null && (
            <div className="post__warning">
              <span className="post__warning-text">{warning || t.sensitive}</span>
              <button
                type="button"
                className="button button--small"
                aria-expanded={revealed}
                aria-controls={`${id}-content`}
                onClick={() => setRevealed(!revealed)}
              >
                {revealed ? t.showLess : t.showMore}
              </button>
            </div>
          )}
          {post.deleted ? (
            <p className="post__deleted" id={`${id}-content`}>{t.deleted}</p>
          ) : (
            <Html
              id={`${id}-content`}
              // Quoting: the text's own "RE: <link>" fallback (Mastodon's quote-inline) is hidden, the quoted post shown instead.
              className={`post__content${hidden ? ' post__content--hidden' : ''}${post.quote ? ' post__content--quoting' : ''}`}
              html={post.contentHtml}
              emojis={post.emojis}
            />
          )}
          {/* Media of a sensitive post stay under their blurhash (revealing nothing) until clicked;
              so do those under a content warning, which some servers send without marking them sensitive. */}
          {post.attachments.length > 0 && !post.deleted && <Attachments attachments={post.attachments} sensitive={warning !== null} keptAs={`media:${post.apId}`} />}
          {post.poll && !hidden && !post.deleted && <PollBlock apId={post.apId} poll={post.poll} own={own} />}
          {/* The author's own quote: shown without the quoted post once its author said no, or took their yes back. */}
          {post.quote && !hidden && !post.deleted && post.quoteState !== 'rejected' && post.quoteState !== 'revoked' && <QuotedPost apId={post.quote} by={post.apId} />}
          {post.quote && !post.deleted && <QuoteState post={post} />}
          {/* Someone's quote of the author's post (a thread): the approval Tern gave it. */}
          {quoteApproval && !post.deleted && (
            <QuoteApproval
              className="post__quote-state"
              requestId={quoteApproval.inboxObjectId}
              who={post.author.handle ?? post.author.name}
              shown={{ approval: quoteApproval.state, allowedAgain: quoteApproval.allowedAgain }}
              saysApproved
              onChange={(next) => setApprovalChange({ from: post.quoteApproval, to: { ...quoteApproval, allowedAgain: next.allowedAgain, state: next.approval ?? quoteApproval.state } })}
            />
          )}
          {/* As Mastodon shows it: one card, for the first link, on a post without media, poll or quote. */}
          {previews?.[0] && !hidden && !post.deleted && !post.card && !post.poll && !post.quote && post.attachments.length === 0 && <LinkPreview preview={previews[0]} />}
          {!own && !post.card && !post.deleted && originalHref && LINKED_TYPES.has(post.type) && (
            <a className="post__original" href={originalHref} target="_blank" rel="noopener noreferrer nofollow">
              {t.original(hostOf(post.url))}
            </a>
          )}

          {post.delivery && <DeliveryLine post={post} />}

          {failure && (
            <p className="post__failed" role="alert">
              {/* Refused by Tern: "Could not like: …"; recorded but not delivered: said as it is. */}
              <span>{failure.deliveryIds ? failure.message : t.failed(t.flagVerb[failure.flag](failure.wanted), failure.message)}</span>{' '}
              <button type="button" className="link-button" onClick={() => void (failure.deliveryIds ? retryDelivery(post.apId) : retry(post.apId, failure.flag, failure.wanted))}>
                {strings.retry}
              </button>
            </p>
          )}

          {confirmingDelete ? (
            <div className="post__confirm" role="group" aria-label={t.deleteQuestion}>
              <span>{t.deleteQuestion}</span>
              <button
                type="button"
                className="button button--danger button--small"
                onClick={() => {
                  setConfirmingDelete(false);
                  onDelete?.(post);
                }}
              >
                {t.delete}
              </button>
              <button type="button" className="button button--small" onClick={() => setConfirmingDelete(false)} autoFocus>
                {strings.cancel}
              </button>
            </div>
          ) : (
            !post.deleted && (
              <div className="post__actions" role="group" aria-label={t.actions}>
                <ActionButton
                  action="reply"
                  label={t.reply}
                  icon={<ReplyIcon />}
                  count={post.counts.replies}
                  onClick={() => navigate('compose', { reply: post.apId })}
                />
                {own ? (
                  <>
                    <Tally icon={<BoostIcon />} count={post.counts.boosts} label={t.boosts} />
                    <Tally icon={<HeartIcon />} count={post.counts.likes} label={t.likes} />
                  </>
                ) : (
                  <>
                    <ActionButton
                      action="boost"
                      label={t.boost}
                      icon={<BoostIcon />}
                      count={state.boosts}
                      pressed={state.boosted}
                      pending={state.waiting('boosted')}
                      disabled={post.visibility === 'FOLLOWERS_ONLY' || post.visibility === 'DIRECT'}
                      onClick={action('boosted')}
                    />
                    <ActionButton
                      action="like"
                      label={t.like}
                      icon={<HeartIcon />}
                      count={state.likes}
                      pressed={state.liked}
                      pending={state.waiting('liked')}
                      onClick={action('liked')}
                    />
                    <ActionButton
                      action="bookmark"
                      label={t.bookmark}
                      icon={<BookmarkIcon />}
                      pressed={state.bookmarked}
                      pending={state.waiting('bookmarked')}
                      onClick={action('bookmarked')}
                    />
                  </>
                )}
                <ActionButton
                  action="quote"
                  label={t.quote}
                  icon={<QuoteIcon />}
                  // FEP-044f: followers-only and direct posts are quoted by no one (the core refuses too).
                  disabled={post.visibility === 'FOLLOWERS_ONLY' || post.visibility === 'DIRECT'}
                  title={post.visibility === 'FOLLOWERS_ONLY' || post.visibility === 'DIRECT' ? t.quoteNotAllowed : undefined}
                  onClick={() => navigate('compose', { quote: post.apId })}
                />
                {moreItems.length > 0 && <Menu label={t.more} icon={<MoreIcon />} items={moreItems} />}
              </div>
            )
          )}
        </div>
      </div>
    </article>
  );
});

function AuthorName({ post }: { post: ShownPost }) {
  return (
    <>
      <span className="post__name">
        <EmojiText text={post.author.name} emojis={post.author.emojis} />
      </span>{' '}
      <span className="post__handle">{post.author.handle ?? post.author.apId}</span>
    </>
  );
}

/** On the author's own posts: how many boosted and liked it (they cannot like their own). Read
 * as one image named by its label ("3 likes"): no hidden text, which would be a positioned box
 * (a paint layer) in each of the author's posts. */
function Tally({ icon, count, label }: { icon: React.ReactNode; count: number | null; label: (n: number) => string }) {
  const n = count ?? 0;
  return (
    <span className="post-action post-action--tally" title={label(n)} role="img" aria-label={label(n)}>
      {icon}
      {n > 0 && (
        <span className="post-action__count" aria-hidden="true">
          {formatNumber(n)}
        </span>
      )}
    </span>
  );
}

interface ActionButtonProps {
  action: string;
  label: string;
  icon: React.ReactNode;
  count?: number | null;
  pressed?: boolean;
  pending?: boolean | undefined;
  disabled?: boolean;
  /** The tooltip, when it says more than the label (why the action is not available). */
  title?: string | undefined;
  onClick: () => void;
}

function ActionButton({ action, label, icon, count, pressed, pending, disabled, title, onClick }: ActionButtonProps) {
  return (
    <button
      type="button"
      className={pending ? `post-action post-action--${action} post-action--pending` : `post-action post-action--${action}`}
      data-action={action}
      aria-label={label}
      title={title ?? label}
      aria-pressed={pressed}
      disabled={disabled}
      onClick={onClick}
    >
      {icon}
      {count !== undefined && count !== null && count > 0 && <span className="post-action__count">{formatNumber(count)}</span>}
      {pending && (
        <span className="post-action__pending" data-testid="pending">
          <span className="visually-hidden">{t.pending}</span>
        </span>
      )}
    </button>
  );
}

