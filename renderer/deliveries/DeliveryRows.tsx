// Rows of the delivery queue: to which server, in what state, after how many tries, when the
// next one is due, what the server last answered and — when something went wrong — why, as a
// sentence, with "Retry now". Used by Deliveries and under a post's delivery state.
import { memo } from 'react';
import type { DeliveryRowView } from '../../electron/core/ipc/author-contract';
import { RelativeTime } from '../components/RelativeTime';
import { strings } from '../strings';

const t = strings.deliveries;

export function DeliveryRows({
  rows,
  compact = false,
  onRetry,
  retrying,
}: {
  rows: DeliveryRowView[];
  /** Under a post: the activity is known, so it is not repeated. */
  compact?: boolean;
  /** Keep it the same function across renders (useCallback): the rows are memoized on it. */
  onRetry?: (row: DeliveryRowView) => void;
  retrying?: ReadonlySet<number>;
}) {
  return (
    <ul className={compact ? 'deliveries deliveries--compact' : 'deliveries'}>
      {rows.map((row) => (
        <DeliveryRow key={row.id} row={row} compact={compact} onRetry={onRetry} retrying={retrying?.has(row.id) ?? false} />
      ))}
    </ul>
  );
}

/** One delivery. Memoized: "Load more" appends a page, and a change event brings the shown
 * rows again (the unchanged ones as the same objects: usePagedList): only new or changed rows
 * are rendered again (e2e/list-memo.spec.ts). */
const DeliveryRow = memo(function DeliveryRow({
  row,
  compact,
  onRetry,
  retrying,
}: {
  row: DeliveryRowView;
  compact: boolean;
  onRetry: ((row: DeliveryRowView) => void) | undefined;
  retrying: boolean;
}) {
  const canRetry = onRetry && (row.state === 'failed' || row.state === 'retrying');
  return (
    <li className="delivery-row" data-testid="delivery-row" data-state={row.state}>
      <div className="delivery-row__head">
        <span className="delivery-row__host" title={row.recipient}>
          {row.host}
        </span>
        <span className={`chip chip--${row.state}`}>
          {row.state === 'resolving' && row.activity.type === 'Webmention' ? strings.webmentions.sentState.discovering : t.state[row.state]}
        </span>
      </div>
      {!compact && <p className="delivery-row__what">{row.activity.label}</p>}
      <p className="delivery-row__facts">
        <span>{t.tries(row.tries)}</span>
        {row.lastStatus !== null && <span>{t.lastStatus(row.lastStatus)}</span>}
        {row.lastTry && (
          <span>
            {t.lastTry} <RelativeTime iso={row.lastTry} />
          </span>
        )}
        {row.nextTry && row.state !== 'sent' && row.state !== 'failed' && (
          <span>
            {t.nextTry} <RelativeTime iso={row.nextTry} />
          </span>
        )}
      </p>
      {row.error && row.state !== 'sent' && (
        <p className={row.state === 'failed' ? 'delivery-row__error delivery-row__error--final' : 'delivery-row__error'}>
          {row.error} {row.state === 'failed' ? t.gaveUp : t.willRetry}
        </p>
      )}
      {canRetry && (
        <button type="button" className="button button--small delivery-row__retry" disabled={retrying} onClick={() => onRetry(row)} aria-label={t.retryOne(row.host)}>
          {t.retryNow}
        </button>
      )}
    </li>
  );
});
