// The line along the bottom of the window (UX.md "Shape"): online or offline (a state, not an
// error), how many posts wait to be sent, whether the listener runs and at which public URL, and
// when Tern last answered; at the end, how Tern runs and its version.
import { useEffect } from 'react';
import { useChanges } from '../changes';
import { hrefOf } from '../places';
import { CONNECTIVITY_POLL_MS, NOTHING_WAITING, useConnectivityStore } from '../store/connectivity';
import { useSettingsStore } from '../store/settings';
import { useStatusStore } from '../store/status';
import { strings } from '../strings';
import { RelativeTime } from './RelativeTime';

const s = strings.statusLine;
const c = strings.connectivity;

export function StatusLine() {
  const status = useStatusStore((state) => state.status);
  const failed = useStatusStore((state) => state.error !== null);
  const { online, view, checkedAt, refresh } = useConnectivityStore();
  const workOffline = view?.workOffline ?? false;
  const waiting = view?.waiting ?? NOTHING_WAITING;
  const settings = useSettingsStore((state) => state.settings);

  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), CONNECTIVITY_POLL_MS);
    return () => clearInterval(timer);
  }, [refresh]);
  // Deliveries starting and ending (a fan-out: many a second), the network, the settings.
  useChanges(['deliveries', 'status'], () => void refresh(), 1_000);

  const listener = settings?.listenerStatus;
  const publicUrl = settings?.baseUrl ?? null;

  return (
    <footer className="status-line" aria-label={s.label}>
      {failed ? (
        <span className="status-line__item status-line__item--warning">
          <span className="status-dot" aria-hidden="true" />
          {s.unreachable}
        </span>
      ) : (
        online !== null && (
          <span
            className={online ? 'status-line__item status-line__item--online' : 'status-line__item status-line__item--offline'}
            data-testid="status-connectivity"
          >
            <span className="status-dot" aria-hidden="true" />
            {workOffline ? c.workingOffline : online ? c.online : c.offline}
          </span>
        )
      )}
      {online !== null && (
        <a
          className="status-line__item status-line__link"
          href={hrefOf('deliveries')}
          data-testid="status-waiting"
          title={waiting.deliveries > 0 ? c.waitingDeliveries(waiting.deliveries) : undefined}
        >
          {c.waiting(waiting)}
        </a>
      )}
      {listener && (
        <span className="status-line__item status-line__item--path" data-testid="status-listener">
          <span className={listener.running ? 'status-dot status-dot--on' : 'status-dot status-dot--off'} aria-hidden="true" />
          <span className="status-line__url" title={listener.url ?? undefined}>
            {listener.running ? c.listenerOn(publicUrl ?? listener.url ?? '') : c.listenerOff}
          </span>
        </span>
      )}
      {checkedAt !== null && (
        <span className="status-line__item status-line__item--quiet">
          <span className="status-line__label">{c.checked}</span> <RelativeTime iso={new Date(checkedAt).toISOString()} />
        </span>
      )}
      {status ? (
        <span className="status-line__item status-line__item--end">
          <span data-testid="status-mode">{s.mode[status.mode]}</span>
          <span aria-hidden="true">·</span>
          <span>{s.version(status.version)}</span>
        </span>
      ) : (
        !failed && <span className="status-line__item">{s.connecting}</span>
      )}
    </footer>
  );
}
