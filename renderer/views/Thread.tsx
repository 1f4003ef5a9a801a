// Thread: a post with what it answers (oldest first) and its replies, in the same column with a
// back action, so reading a conversation never loses the place in the list it came from.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ThreadView } from '../../electron/core/ipc/author-contract';
import { call, toApiError, type ApiError } from '../api';
import { useChanges } from '../changes';
import { ErrorState } from '../components/ErrorState';
import { BackIcon } from '../components/icons';
import { ListSkeleton } from '../lists/ListParts';
import { externalHref } from '../posts/links';
import { Post } from '../posts/Post';
import { goBack, type Route } from '../places';
import { strings } from '../strings';

const t = strings.thread;
/** Replies deeper than this are drawn at this depth, so the column stays readable. */
const MAX_INDENT = 3;
/** Replies asked for at once (thread.get's default), and at most when the thread is asked again. */
const PAGE = 50;
const MAX_REFRESHED = 500;

export function Thread({ route }: { route: Route }) {
  const apId = route.params.get('ap') ?? '';
  const [thread, setThread] = useState<ThreadView | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(true);

  const load = useCallback(async () => {
    setLoading(true);
    try {
      setThread(await call('thread.get', { apId }));
      setError(null);
    } catch (err) {
      setError(toApiError(err, 'thread.get'));
    } finally {
      setLoading(false);
    }
  }, [apId]);

  useEffect(() => {
    void load();
  }, [load]);

  // What the inbox processor did may change what the thread shows (the answer to the author's
  // quote, a new reply): asked again quietly, as many replies as are shown. A failure is left to
  // the next hint; the thread shown stays. Not with a parent missing: Tern would try to fetch it
  // again at every hint.
  const shown = useRef(thread);
  shown.current = thread;
  useChanges(
    ['timeline'],
    () => {
      const current = shown.current;
      if (!current || current.missingParent) return;
      void call('thread.get', { apId, limit: Math.min(MAX_REFRESHED, Math.max(PAGE, current.replies.length)) }).then(
        (fresh) =>
          setThread((now) => {
            const next = now && now.replies.length > MAX_REFRESHED ? { ...now, ancestors: fresh.ancestors, post: fresh.post } : fresh;
            // The same object when nothing changed: nothing on screen is drawn again.
            return now && JSON.stringify(next) === JSON.stringify(now) ? now : next;
          }),
        () => undefined,
      );
    },
    1_000,
  );

  // Replies come a page at a time (a busy thread has hundreds); the next ones are appended.
  const [loadingMore, setLoadingMore] = useState(false);
  const loadMore = useCallback(async () => {
    if (!thread?.nextCursor) return;
    setLoadingMore(true);
    try {
      const next = await call('thread.get', { apId, cursor: thread.nextCursor });
      setThread((current) => current && { ...current, replies: [...current.replies, ...next.replies], nextCursor: next.nextCursor, totalReplies: next.totalReplies });
      setError(null);
    } catch (err) {
      setError(toApiError(err, 'thread.get'));
    } finally {
      setLoadingMore(false);
    }
  }, [apId, thread]);

  // The post the thread is about gets the focus once shown, so j/k and the shortcuts start from
  // it (not again when the thread is asked again: the author may be reading further down).
  const focusGiven = useRef(false);
  useEffect(() => {
    if (!thread || focusGiven.current) return;
    focusGiven.current = true;
    document.querySelector<HTMLElement>('#main .post--focused')?.focus({ preventScroll: false });
  }, [thread]);

  // Opened in the browser: an http(s) address only, whatever the answer carries.
  const parentHref = thread?.missingParent ? externalHref(thread.missingParent) : undefined;

  return (
    <article className="view" aria-labelledby="thread-title">
      <header className="view__header view__header--thread">
        <button type="button" className="button button--quiet" onClick={goBack}>
          <BackIcon />
          <span>{strings.back}</span>
        </button>
        <h1 id="thread-title" className="view__title--small">
          {t.title}
        </h1>
      </header>
      {error && <ErrorState context={t.loadFailed} error={error} onRetry={() => void load()} retrying={loading} compact={thread !== null} />}
      {thread ? (
        <div className="thread">
          {thread.missingParent && (
            <p className="thread__missing">
              {t.missingParent}
              {parentHref && (
                <>
                  {' '}
                  <a href={parentHref} target="_blank" rel="noopener noreferrer">
                    {t.openParent}
                  </a>
                </>
              )}
            </p>
          )}
          {thread.ancestors.length > 0 && (
            <div className="thread__ancestors">
              {thread.ancestors.map((post) => (
                <Post key={post.apId} post={post} />
              ))}
            </div>
          )}
          <Post post={thread.post} focused />
          {thread.replies.length > 0 ? (
            <section className="thread__replies" aria-label={t.replies(thread.totalReplies)}>
              {thread.replies.map((post) => (
                <div key={post.apId} className={`thread__reply thread__reply--depth-${Math.min(post.depth, MAX_INDENT)}`}>
                  <Post post={post} />
                </div>
              ))}
              {thread.nextCursor && (
                <div className="load-more">
                  <button type="button" className="button" onClick={() => void loadMore()} disabled={loadingMore}>
                    {loadingMore ? strings.loadingMore : strings.loadMore}
                  </button>
                </div>
              )}
            </section>
          ) : (
            <p className="thread__none">{t.noReplies}</p>
          )}
        </div>
      ) : (
        loading && !error && <ListSkeleton rows={2} />
      )}
    </article>
  );
}
