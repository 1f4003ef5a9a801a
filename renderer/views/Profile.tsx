// Profile: the author's outbox as others see it — who they are, then their posts, pinned first,
// each with how far its delivery got (one click opens the list of servers). Own posts can be
// pinned, edited and deleted from here.
import { useCallback, useEffect, useState } from 'react';
import { useChanges } from '../changes';
import { call, toApiError, type ApiError } from '../api';
import { Avatar } from '../components/Avatar';
import { PenIcon, PersonIcon } from '../components/icons';
import { Html } from '../content/Html';
import { previewMarkdown } from '../content/markdown';
import { EmptyState } from '../lists/ListParts';
import { forgetList, usePagedList } from '../lists/usePagedList';
import { usePostActions } from '../posts/actions';
import { listKeyOf, type ShownPost } from '../posts/model';
import { PostList } from '../posts/PostList';
import { hrefOf, navigate } from '../places';
import { useSettingsStore } from '../store/settings';
import { strings } from '../strings';

const t = strings.profile;
const PAGE = 20;

/** The profile's order, as timeline.profile gives it: pinned posts first, each part newest first
 * (posts of the same time keep their order). */
function inProfileOrder(items: ShownPost[], pinned: (post: ShownPost) => boolean): ShownPost[] {
  const newestFirst = (posts: ShownPost[]) => [...posts].sort((a, b) => (Date.parse(b.published) || 0) - (Date.parse(a.published) || 0));
  return [...newestFirst(items.filter(pinned)), ...newestFirst(items.filter((post) => !pinned(post)))];
}

/** The pin changes the kept profile list was last put in order for. */
let orderedForPinChanges = 0;

export function Profile() {
  const settings = useSettingsStore((state) => state.settings);
  const [deleteError, setDeleteError] = useState<ApiError | null>(null);
  const list = usePagedList<ShownPost, string>(
    'profile',
    'timeline.profile',
    async (cursor) => {
      const page = await call('timeline.profile', { cursor, limit: PAGE });
      return { items: page.items, next: page.nextCursor };
    },
    listKeyOf,
  );

  // A link preview of the author's post arrives a few seconds after it is written; the answer to
  // one of their quotes (approved, refused), likes and boosts come with what the inbox processor did.
  useChanges(['previews', 'timeline'], () => void list.freshen().catch(() => undefined), 1_000);

  // Pinned posts come first: after the author pins or unpins, the posts shown are put in Tern's
  // order (a post unpinned goes back to its date, wherever that is among the pages loaded), then
  // the first page is asked for again.
  // The same when the pin was changed elsewhere (the stream) while the profile was not shown.
  const pinChanges = usePostActions((s) => s.pinChanges);
  const { reload, update } = list;
  useEffect(() => {
    if (pinChanges === orderedForPinChanges) return;
    orderedForPinChanges = pinChanges;
    const { flags } = usePostActions.getState();
    update((items) => inProfileOrder(items, (post) => flags[post.apId]?.pinned ?? post.mine.pinned));
    reload();
  }, [pinChanges, reload, update]);

  // Stable, so the memoized posts are not all drawn again when a page is added.
  const onDelete = useCallback(
    (post: ShownPost) => {
      setDeleteError(null);
      update((items) => items.filter((p) => p.apId !== post.apId));
      call('posts.delete', { apId: post.apId }).then(
        () => forgetList('stream'),
        (err: unknown) => {
          setDeleteError(toApiError(err, 'posts.delete'));
          reload();
        },
      );
    },
    [update, reload],
  );
  const onEdit = useCallback((post: ShownPost) => navigate('compose', { edit: post.apId }), []);

  const name = settings?.displayName || settings?.username || '';
  return (
    <article className="view" aria-labelledby="profile-title">
      <header className="profile-card card">
        <Avatar name={name} id={settings?.actorId ?? ''} size="large" />
        <div className="profile-card__who">
          <h1 id="profile-title">{name || t.title}</h1>
          <p className="profile-card__handle">{settings?.handle}</p>
          {settings?.summary ? (
            <Html className="profile-card__summary" html={previewMarkdown(settings.summary)} />
          ) : (
            <p className="profile-card__summary profile-card__summary--empty">
              {t.noSummary} <a href={hrefOf('settings')}>{t.addSummary}</a>
            </p>
          )}
        </div>
        <a className="button button--primary profile-card__compose" href={hrefOf('compose')} aria-keyshortcuts="n">
          <PenIcon />
          {t.write}
        </a>
      </header>
      {deleteError && (
        <p className="field__error" role="alert">
          {deleteError.message}
        </p>
      )}
      <section className="section" aria-label={t.postsLabel}>
        <PostList
          list={list}
          label={t.postsLabel}
          failed={t.loadFailed}
          onDelete={onDelete}
          onEdit={onEdit}
          empty={
            <EmptyState icon={<PersonIcon />} title={t.emptyTitle}>
              <p>{t.emptyText}</p>
              <p className="empty-state__actions">
                <a className="button button--primary" href={hrefOf('compose')}>
                  <PenIcon />
                  {t.writeFirst}
                </a>
              </p>
            </EmptyState>
          }
        />
      </section>
    </article>
  );
}
