// Deliveries: the outgoing queue. At the top, whether Tern may send now (online, offline, or
// working offline — with the switch), how much waits, and whether the listener is on and where;
// then each delivery with its server, state, tries, next try, last answer and — when it went
// wrong — why, in a sentence, with "Retry now".
import { useCallback, useState } from 'react';
import type { DeliveriesView, DeliveryRowView } from '../../electron/core/ipc/author-contract';
import { useChanges } from '../changes';
import { call, toApiError, type ApiError } from '../api';
import { Switch } from '../components/Field';
import { RefreshButton } from '../components/RefreshButton';
import { OutboxIcon } from '../components/icons';
import { DeliveryRows } from '../deliveries/DeliveryRows';
import { EmptyState } from '../lists/ListParts';
import { ListFrame } from '../lists/ListParts';
import { usePagedList } from '../lists/usePagedList';
import { hrefOf, type Route } from '../places';
import { NOTHING_WAITING, useConnectivityStore } from '../store/connectivity';
import { useSettingsStore } from '../store/settings';
import { formatNumber, strings } from '../strings';

const t = strings.deliveries;
const c = strings.connectivity;
const FILTERS = ['all', 'pending', 'failed', 'sent'] as const;
type Filter = (typeof FILTERS)[number];
const PAGE = 50;

export function Deliveries({ route }: { route: Route }) {
  const param = route.params.get('show');
  const filter: Filter = FILTERS.includes(param as Filter) ? (param as Filter) : 'all';
  const [counts, setCounts] = useState<DeliveriesView['counts'] | null>(null);
  const [retrying, setRetrying] = useState<ReadonlySet<number>>(new Set());
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const list = usePagedList<DeliveryRowView, string>(
    `deliveries:${filter}`,
    'deliveries.list',
    async (cursor) => {
      const page = await call('deliveries.list', { cursor, limit: PAGE, state: filter });
      setCounts(page.counts);
      return { items: page.items, next: page.nextCursor };
    },
    (row) => String(row.id),
  );

  // Rows shown change state as they are sent (and the counts with them): brought up to date in place.
  useChanges(['deliveries'], () => void list.freshen().catch(() => undefined), 1_000);

  const { reload } = list;
  const retry = useCallback(async (row?: DeliveryRowView) => {
    setError(null);
    setMessage(null);
    if (row) setRetrying((s) => new Set(s).add(row.id));
    try {
      const { retried } = await call('deliveries.retryNow', row ? { id: row.id } : {});
      setMessage(t.retried(retried));
      reload();
      void useConnectivityStore.getState().refresh();
    } catch (err) {
      setError(toApiError(err, 'deliveries.retryNow'));
    } finally {
      if (row) setRetrying((s) => new Set([...s].filter((id) => id !== row.id)));
    }
  }, [reload]);
  const retryOne = useCallback((row: DeliveryRowView) => void retry(row), [retry]);

  const waiting = counts ? counts.queued + counts.retrying + counts.resolving + counts.sending : 0;
  const total: Record<Filter, number | null> = counts
    ? { all: Object.values(counts).reduce((a, b) => a + b, 0), pending: waiting, failed: counts.failed, sent: counts.sent }
    : { all: null, pending: null, failed: null, sent: null };
  const canRetryAll = counts !== null && (counts.failed > 0 || counts.retrying > 0);

  return (
    <article className="view" aria-labelledby="deliveries-title">
      <header className="view__header">
        <div>
          <h1 id="deliveries-title">{t.title}</h1>
          <p className="view__lede">{t.lede}</p>
        </div>
        {list.loaded && (
          <RefreshButton busy={list.loading} onClick={list.reload} />
        )}
      </header>

      <ConnectionPanel />

      <div className="deliveries-bar">
        <nav className="tabs" aria-label={t.filter}>
          {FILTERS.map((id) => (
            <a key={id} className="tabs__tab" href={hrefOf('deliveries', { show: id })} aria-current={id === filter ? 'page' : undefined}>
              {t.filters[id]}
              {total[id] !== null && <span className="tabs__count">{formatNumber(total[id])}</span>}
            </a>
          ))}
        </nav>
        {canRetryAll && (
          <button type="button" className="button button--small" onClick={() => void retry()}>
            {t.retryAll}
          </button>
        )}
      </div>
      {message && (
        <p className="form__note" role="status">
          {message}
        </p>
      )}
      {error && (
        <p className="field__error" role="alert">
          {error.message}
        </p>
      )}
      <ListFrame
        list={list}
        failed={t.loadFailed}
        empty={
          <EmptyState icon={<OutboxIcon />} title={filter === 'all' ? t.emptyTitle : t.emptyFiltered}>
            {filter === 'all' && <p>{t.emptyText}</p>}
          </EmptyState>
        }
      >
        <div className="card card--flush">
          <DeliveryRows rows={list.items} onRetry={retryOne} retrying={retrying} />
        </div>
      </ListFrame>
    </article>
  );
}

/** Online or not, Work offline, what waits, and the listener. */
function ConnectionPanel() {
  const { view, setWorkOffline } = useConnectivityStore();
  const settings = useSettingsStore((s) => s.settings);
  const [error, setError] = useState<ApiError | null>(null);
  const listener = settings?.listenerStatus;
  const state = !view ? null : view.workOffline ? 'working-offline' : view.online ? 'online' : 'offline';

  return (
    <section className="card connection" aria-label={strings.statusLine.label} data-testid="connection">
      <div className="connection__row">
        <div className={`connection__state connection__state--${state ?? 'unknown'}`}>
          <span className="status-dot" aria-hidden="true" />
          <div>
            <p className="connection__title" data-testid="connection-state">
              {state === 'working-offline' ? c.workingOffline : state === 'online' ? t.online : state === 'offline' ? t.offline : strings.loading}
            </p>
            <p className="connection__detail">
              {state === 'working-offline' ? t.workingOffline : state === 'offline' ? t.offlineBecause : state === 'online' ? t.onlineText : ''}
            </p>
          </div>
        </div>
        <p className="connection__waiting" data-testid="connection-waiting">
          {c.waiting(view?.waiting ?? NOTHING_WAITING)}
        </p>
      </div>
      <Switch
        label={c.workOffline}
        checked={view?.workOffline ?? false}
        disabled={!view}
        error={error?.message}
        onChange={(on) => {
          setError(null);
          setWorkOffline(on).catch((err: unknown) => setError(toApiError(err, 'connectivity.setWorkOffline')));
        }}
      />
      {listener && (
        <p className="connection__listener" data-testid="connection-listener">
          <span className={listener.running ? 'status-dot status-dot--on' : 'status-dot status-dot--off'} aria-hidden="true" />
          {listener.running ? c.listenerOn(settings?.baseUrl ?? listener.url ?? '') : c.listenerOff}
          {listener.running && listener.url && <span className="connection__local">{t.listenerLocal(listener.url)}</span>}
          <a href={hrefOf('settings')}>{t.listenerSettings}</a>
        </p>
      )}
    </section>
  );
}
