// Follow requests waiting for the author (when followers are approved by hand), with Accept and
// Reject right there, newest first, a page at a time (remote actors decide how many there are).
// An answered request leaves the list at once; if Tern refuses, it comes back with the reason.
import { useEffect, useRef, useState } from 'react';
import type { Output } from '../../electron/core/ipc/contract';
import { call, toApiError, type ApiError } from '../api';
import { Avatar } from '../components/Avatar';
import { EmojiText } from '../content/emoji';
import { ErrorState } from '../components/ErrorState';
import { RelativeTime } from '../components/RelativeTime';
import { useUnreadStore } from '../store/unread';
import { strings } from '../strings';

type RequestPage = Output<'follow-requests.list'>;
type FollowRequest = RequestPage['items'][number];
const t = strings.followRequests;

/** `onAnswered` lets the page around refresh what an answer changes (People's counts). */
export function FollowRequests({ showEmpty = false, onAnswered }: { showEmpty?: boolean; onAnswered?: () => void }) {
  const [requests, setRequests] = useState<RequestPage | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [answering, setAnswering] = useState<ReadonlySet<number>>(new Set());
  const [answerError, setAnswerError] = useState<{ id: number; error: ApiError } | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  // Bumped by each first-page load: a next page asked for before it is not appended to it.
  const loads = useRef(0);

  async function load() {
    const seen = ++loads.current;
    try {
      const page = await call('follow-requests.list', {});
      if (seen !== loads.current) return;
      setRequests(page);
      setError(null);
    } catch (err) {
      if (seen === loads.current) setError(toApiError(err, 'follow-requests.list'));
    }
  }

  async function loadMore() {
    const cursor = requests?.nextCursor;
    if (!cursor) return;
    const seen = loads.current;
    setLoadingMore(true);
    try {
      const page = await call('follow-requests.list', { cursor });
      if (seen !== loads.current) return;
      setRequests((current) => {
        if (!current) return current;
        // A request answered meanwhile is not in `current` any more; one shown already stays once.
        const shown = new Set(current.items.map((r) => r.inboxObjectId));
        return { items: [...current.items, ...page.items.filter((r) => !shown.has(r.inboxObjectId))], nextCursor: page.nextCursor, count: page.count };
      });
      setError(null);
    } catch (err) {
      setError(toApiError(err, 'follow-requests.list'));
    } finally {
      setLoadingMore(false);
    }
  }

  useEffect(() => {
    void load();
  }, []);

  async function answer(request: FollowRequest, accept: boolean) {
    const id = request.inboxObjectId;
    setAnswering((s) => new Set(s).add(id));
    setAnswerError(null);
    try {
      if (accept) await call('social.acceptRequest', { inboxObjectId: id });
      else await call('social.rejectRequest', { inboxObjectId: id });
      setRequests((current) => current && { ...current, items: current.items.filter((r) => r.inboxObjectId !== id), count: Math.max(0, current.count - 1) });
      // Accepting creates a "new follower" notification.
      void useUnreadStore.getState().refresh();
      onAnswered?.();
    } catch (err) {
      setAnswerError({ id, error: toApiError(err, accept ? 'social.acceptRequest' : 'social.rejectRequest') });
    } finally {
      setAnswering((s) => {
        const next = new Set(s);
        next.delete(id);
        return next;
      });
    }
  }

  if (error && !requests) return <ErrorState context={t.loadFailed} error={error} onRetry={() => void load()} compact />;
  if (!requests || (requests.items.length === 0 && requests.count === 0 && !showEmpty)) return null;
  const shown = requests.items;
  return (
    <section className="section" aria-labelledby="follow-requests-title">
      <div className="section__header">
        <h2 id="follow-requests-title">{t.title}</h2>
        <p className="section__aside">{t.count(requests.count)}</p>
      </div>
      {shown.length === 0 ? (
        !requests.nextCursor && <p className="section__empty">{t.empty}</p>
      ) : (
        <ul className="card card--flush people-list">
          {shown.map((request) => (
            <li key={request.inboxObjectId} className="person" data-testid="follow-request">
              <Avatar name={request.actor.name} id={request.actor.apId} src={request.actor.iconSrc} />
              <div className="person__who">
                <a className="person__name" href={request.actor.url} target="_blank" rel="noopener noreferrer">
                  <EmojiText text={request.actor.name} emojis={request.actor.emojis} />
                </a>
                <span className="person__handle">{request.actor.handle ?? request.actor.apId}</span>
                <span className="person__meta">
                  {t.asked} <RelativeTime iso={request.requestedAt} />
                </span>
                {answerError?.id === request.inboxObjectId && <span className="field__error">{answerError.error.message}</span>}
              </div>
              <div className="person__actions">
                <button
                  type="button"
                  className="button button--primary"
                  disabled={answering.has(request.inboxObjectId)}
                  onClick={() => void answer(request, true)}
                  aria-label={t.acceptLabel(request.actor.name)}
                >
                  {t.accept}
                </button>
                <button
                  type="button"
                  className="button"
                  disabled={answering.has(request.inboxObjectId)}
                  onClick={() => void answer(request, false)}
                  aria-label={t.rejectLabel(request.actor.name)}
                >
                  {t.reject}
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {error && <ErrorState context={t.loadFailed} error={error} onRetry={() => void loadMore()} compact />}
      {requests.nextCursor && (
        <div className="load-more">
          <button type="button" className="button" onClick={() => void loadMore()} disabled={loadingMore}>
            {loadingMore ? strings.loadingMore : strings.loadMore}
          </button>
        </div>
      )}
    </section>
  );
}
