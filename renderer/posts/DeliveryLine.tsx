// Under each of the author's own posts: how far its delivery got — queued (offline), sending,
// delivered to N of M servers, failed and why. One click opens the list of servers, each with
// its own state (from the delivery queue).
import { useId, useState } from 'react';
import { toApiError, type ApiError } from '../api';
import { Delayed } from '../components/Delayed';
import { CheckIcon, ClockIcon, AttentionIcon, SendIcon } from '../components/icons';
import type { DeliveryRowView } from '../../electron/core/ipc/author-contract';
import { DeliveryRows } from '../deliveries/DeliveryRows';
import { useNow } from '../components/RelativeTime';
import { formatDateTime, formatRelative, strings } from '../strings';
import { fetchPostDeliveries } from '../deliveries/forPost';
import type { ShownPost } from './model';

const t = strings.delivery;

export function DeliveryLine({ post }: { post: ShownPost }) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [rows, setRows] = useState<DeliveryRowView[] | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const delivery = post.delivery;
  if (!delivery) return null;

  async function load() {
    setError(null);
    try {
      setRows(await fetchPostDeliveries(post.apId));
    } catch (err) {
      setError(toApiError(err, 'deliveries.list'));
    }
  }

  function toggle() {
    if (!open) void load();
    setOpen(!open);
  }

  const [Icon, text, tone] =
    delivery.state === 'queued'
      ? [ClockIcon, t.queued(delivery.total), 'waiting']
      : delivery.state === 'sending'
        ? [SendIcon, t.sending(delivery.sent, delivery.total), 'waiting']
        : delivery.state === 'sent'
          ? [CheckIcon, t.sent(delivery.sent, delivery.total), 'ok']
          : delivery.state === 'failed'
            ? [AttentionIcon, t.failed(delivery.sent, delivery.total, delivery.error), 'failed']
            : [CheckIcon, t.local, 'quiet'];
  const canOpen = delivery.state !== 'local';
  // A try failed and another is due: say why and when (a "failed" summary already says why).
  // Queued (offline), the next try waits for the network, as the summary says: only why.
  const retrying = delivery.state === 'sending' && delivery.error !== null;
  const lastFailure = delivery.state === 'queued' ? delivery.error : null;

  return (
    <div className={`delivery delivery--${tone}`} data-testid="delivery-state" data-state={delivery.state}>
      {canOpen ? (
        <button type="button" className="delivery__summary" aria-expanded={open} aria-controls={id} onClick={toggle}>
          <Icon />
          <span>{text}</span>
        </button>
      ) : (
        <p className="delivery__summary">
          <Icon />
          <span>{text}</span>
        </p>
      )}
      {retrying && <RetryNote why={delivery.error!} nextTry={delivery.nextTry} />}
      {lastFailure && (
        <p className="delivery__retry" data-testid="delivery-retry">
          {t.lastFailure(lastFailure)}
        </p>
      )}
      {open && (
        <div id={id} className="delivery__servers">
          {error ? (
            <p className="field__error">
              {error.message}{' '}
              <button type="button" className="link-button" onClick={() => void load()}>
                {strings.retry}
              </button>
            </p>
          ) : rows === null ? (
            <Delayed>
              <p className="delivery__loading" role="status">
                {strings.loading}
              </p>
            </Delayed>
          ) : rows.length === 0 ? (
            <p className="delivery__loading">{t.noServers}</p>
          ) : (
            <DeliveryRows rows={rows} compact />
          )}
        </div>
      )}
    </div>
  );
}

/** "mastodon.social did not answer in time. Tern will try again in 5 minutes." */
function RetryNote({ why, nextTry }: { why: string; nextTry: string | null }) {
  const now = useNow(30_000);
  const at = nextTry === null ? null : new Date(nextTry);
  const due = at !== null && !Number.isNaN(at.getTime()) && at.getTime() - now.getTime() > 45_000 ? at : null;
  const sentence = t.willRetry(why, due ? formatRelative(due, now) : null);
  return (
    <p className="delivery__retry" data-testid="delivery-retry">
      {due ? (
        <time dateTime={due.toISOString()} title={formatDateTime(due)}>
          {sentence}
        </time>
      ) : (
        sentence
      )}
    </p>
  );
}
