// Notifications: follow requests waiting for an answer (Accept/Reject right there), then what
// happened, grouped by kind and post ("Ana and 4 others liked your post"), unread first. Opening
// a group marks it read; "Mark all as read" does the rest.
import { memo, useCallback, useState } from 'react';
import { useChanges } from '../changes';
import { call, toApiError, type ApiError } from '../api';
import { Avatar } from '../components/Avatar';
import { BellIcon } from '../components/icons';
import { RelativeTime } from '../components/RelativeTime';
import { nameSlot, WithNames } from '../components/WithNames';
import { ListFrame, EmptyState } from '../lists/ListParts';
import { usePagedList } from '../lists/usePagedList';
import { FollowRequests } from '../notifications/FollowRequests';
import { groupNotifications, type NotificationGroup, type NotificationItem } from '../notifications/groups';
import { KIND_ICONS, REACTION_ICON, TYPELESS_ICONS } from '../notifications/kinds';
import { reactionSentence } from '../notifications/reactions';
import { typelessWording } from '../notifications/typeless';
import { QuoteApproval, type ApprovalShown } from '../posts/QuoteApproval';
import { hrefOf } from '../places';
import { useSettingsStore } from '../store/settings';
import { useUnreadStore } from '../store/unread';
import { strings } from '../strings';
import { PollIcon } from '../components/icons';

const t = strings.notifications;
const PAGE = 50;

export function Notifications() {
  const handle = useSettingsStore((state) => state.settings?.handle ?? '');
  const setUnread = useUnreadStore((state) => state.set);
  const list = usePagedList<NotificationItem, string>(
    'notifications',
    'notifications.list',
    async (cursor) => {
      const page = await call('notifications.list', { limit: PAGE, cursor });
      if (cursor === null) setUnread(page.unreadCount);
      return { items: page.items, next: page.nextCursor };
    },
    (item) => String(item.id),
  );
  const [markError, setMarkError] = useState<ApiError | null>(null);
  const unread = list.items.some((item) => item.isNew);
  // New notifications go on top as they arrive; those shown keep their places below.
  useChanges(['notifications'], list.reload, 1_000);

  // Stable (as the list's own functions are), so the memoized rows are not all drawn again when
  // a page is added.
  const { settle, update, reload } = list;
  const markRead = useCallback(
    async (ids: number[] | 'all') => {
      setMarkError(null);
      const wanted = ids === 'all' ? null : new Set(ids);
      // A reload under way (a new notification's hint) read them unread: its answer is dropped,
      // and it is asked again once they are marked (what it was to bring is still to be shown).
      const dropped = settle();
      update((items) => items.map((item) => (wanted === null || wanted.has(item.id) ? { ...item, isNew: false } : item)));
      try {
        if (ids === 'all') await call('notifications.markAllRead', {});
        else await call('notifications.markRead', { ids });
        if (dropped) reload();
      } catch (err) {
        setMarkError(toApiError(err, 'notifications.markRead'));
        reload();
      }
      void useUnreadStore.getState().refresh();
    },
    [settle, update, reload],
  );
  const markGroupRead = useCallback((group: NotificationGroup) => void markRead(group.items.filter((i) => i.isNew).map((i) => i.id)), [markRead]);

  // The approval of a quote taken back or allowed again (posts/QuoteApproval.tsx): said so on its row.
  const quoteApprovalChanged = useCallback(
    (id: number, next: ApprovalShown) => {
      // Changed by now: a reload dropped here is asked again, and reads it so.
      const dropped = settle();
      update((items) => items.map((item) => (item.id === id && item.detail?.kind === 'quoted' ? { ...item, detail: { ...item.detail, ...next } } : item)));
      if (dropped) reload();
    },
    [settle, update, reload],
  );

  const groups = groupNotifications(list.items);
  return (
    <article className="view" aria-labelledby="notifications-title">
      <header className="view__header">
        <div>
          <h1 id="notifications-title">{t.title}</h1>
          <p className="view__lede">{t.lede}</p>
        </div>
        {unread && (
          <button type="button" className="button button--quiet" onClick={() => void markRead('all')}>
            {t.markAllRead}
          </button>
        )}
      </header>
      <FollowRequests />
      {markError && <p className="field__error" role="alert">{markError.message}</p>}
      <section className="section" aria-label={t.title}>
        <ListFrame
          list={list}
          failed={t.loadFailed}
          empty={
            <EmptyState icon={<BellIcon />} title={t.emptyTitle}>
              <p>{t.emptyText(handle)}</p>
            </EmptyState>
          }
        >
          <ul className="card card--flush notifications" aria-busy={list.loading}>
            {groups.map((group) => (
              <GroupRow key={group.key} group={group} onRead={markGroupRead} onQuoteApprovalChange={quoteApprovalChanged} />
            ))}
          </ul>
        </ListFrame>
      </section>
    </article>
  );
}

/** Where a group leads: the post it is about, else the actor's card in People (webmentions: their place). */
function targetOf(group: NotificationGroup): { href: string; external: boolean } | null {
  // A webmention opens the Webmentions place, where the page, its author and state are shown.
  if (group.kind?.endsWith('_WEBMENTION')) return { href: hrefOf('webmentions'), external: false };
  // A typeless notification on a remote Question: a poll the author voted in ended.
  const object =
    group.outboxObject ?? (group.kind === 'MENTION' || (group.kind === null && group.inboxObject?.apType === 'Question') ? group.inboxObject : null);
  if (object && !object.isDeleted) return { href: hrefOf('thread', { ap: object.apId }), external: false };
  // Someone (a follow): their card in People, where the author can follow back.
  const actor = group.actors[0];
  if (actor) return { href: hrefOf('people', { q: actor.apId }), external: false };
  return null;
}

interface GroupRowProps {
  group: NotificationGroup;
  onRead: (group: NotificationGroup) => void;
  onQuoteApprovalChange: (id: number, next: ApprovalShown) => void;
}

/** Groups are built again at each render: one is the same as before when it holds the same
 * items (each a new object once it changes: list.update), in the same order — what it shows is
 * made of them. */
const sameRow = (before: GroupRowProps, after: GroupRowProps) =>
  before.onRead === after.onRead &&
  before.onQuoteApprovalChange === after.onQuoteApprovalChange &&
  before.group.key === after.group.key &&
  before.group.items.length === after.group.items.length &&
  before.group.items.every((item, i) => item === after.group.items[i]);

/** Memoized (sameRow): a list that grows by a page draws the page's new rows only. */
const GroupRow = memo(function GroupRow({ group, onRead: onReadGroup, onQuoteApprovalChange }: GroupRowProps) {
  const onRead = () => onReadGroup(group);
  // A notification with no type on one of our Questions: the poll ended (polls/broadcast.ts).
  const pollEnded = group.kind === null && group.outboxObject?.apType === 'Question';
  const votedPollEnded = group.kind === null && !group.outboxObject && group.inboxObject?.apType === 'Question';
  // A move, a report a server forwarded or a quote: typeless too (notifications/typeless.ts).
  const typeless = typelessWording(group);
  // An emoji reaction, or one taken back: which emoji, not "liked" (notifications/reactions.tsx).
  const reacted = reactionSentence(group);
  const KindIcon = pollEnded || votedPollEnded ? PollIcon : typeless ? TYPELESS_ICONS[typeless.kind] : reacted ? REACTION_ICON : KIND_ICONS[group.kind ?? 'MENTION'];
  const kindClass = reacted ? 'reaction' : (group.kind ?? 'other').toLowerCase();
  const first = group.actors[0];
  // Each name in the sentence isolated from the words around it (components/WithNames.tsx).
  const names = reacted ? reacted.names : group.actors.map((a) => a.name);
  const who = t.actors(group.actors.map((_, i) => nameSlot(i)));
  const sentence = pollEnded
    ? strings.polls.pollEnded
    : votedPollEnded
      ? strings.polls.votedPollEnded(who)
      : typeless
        ? typeless.sentence
        : reacted
          ? reacted.text
          : t.sentence(group.kind, who);
  const excerpt = group.kind === 'MENTION' || votedPollEnded ? group.inboxObject?.excerpt : group.outboxObject?.excerpt;
  const deleted = group.outboxObject?.isDeleted || (group.kind === 'MENTION' && group.inboxObject?.isDeleted);
  const target = typeless ? typeless.target : targetOf(group);
  const body = (
    <>
      <span className={`notification__kind notification__kind--${kindClass}`}>
        <KindIcon />
      </span>
      <span className="notification__main">
        <span className="notification__avatars">
          {group.actors.slice(0, 5).map((actor) => (
            <Avatar key={actor.id} name={actor.name} id={actor.apId} size="small" src={actor.iconSrc} />
          ))}
        </span>
        <span className="notification__sentence">
          <WithNames text={sentence} names={names} />
        </span>
        {(excerpt || deleted) && <span className="notification__excerpt">{deleted ? t.deleted : excerpt}</span>}
        {typeless?.links.map((link) => (
          <a key={link.href} className="notification__excerpt" href={link.href} onClick={group.isNew ? onRead : undefined}>
            {link.label}
          </a>
        ))}
      </span>
      <span className="notification__meta">
        {group.isNew && <span className="unread-dot" title={t.unread} />}
        <RelativeTime iso={group.createdAt} />
      </span>
    </>
  );
  return (
    <li className={group.isNew ? 'notification notification--new' : 'notification'} data-testid="notification">
      {group.isNew && <span className="visually-hidden">{t.unread}: </span>}
      {target ? (
        <a
          className="notification__link"
          href={target.href}
          onClick={group.isNew ? onRead : undefined}
          {...(target.external ? { target: '_blank', rel: 'noopener noreferrer' } : {})}
          title={first?.handle ?? undefined}
        >
          {body}
        </a>
      ) : (
        <div className="notification__link">{body}</div>
      )}
      {typeless?.kind === 'quoted' && <QuotedFooter group={group} onChange={onQuoteApprovalChange} />}
    </li>
  );
}, sameRow);

/** Under a "… quoted your post" notification: the approval Tern gave, to revoke or allow again. */
function QuotedFooter({ group, onChange }: { group: NotificationGroup; onChange: (id: number, next: ApprovalShown) => void }) {
  const item = group.items[0];
  const detail = item?.detail;
  if (!item || detail?.kind !== 'quoted' || !group.inboxObject) return null;
  const who = group.actors[0]?.handle || group.actors[0]?.name || 'Someone';
  return <QuoteApproval className="notification__footer" requestId={group.inboxObject.id} who={who} shown={detail} onChange={(next) => onChange(item.id, next)} />;
}
