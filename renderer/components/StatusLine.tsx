// The line along the bottom of the window: how Tern runs (desktop or headless), where its data
// lives and the schema revision, so the author can tell at a glance which Tern this is.
import { useStatusStore } from '../store/status';
import { strings } from '../strings';

const s = strings.statusLine;

export function StatusLine() {
  const status = useStatusStore((state) => state.status);
  const failed = useStatusStore((state) => state.error !== null);

  return (
    <footer className="status-line" aria-label={s.label}>
      {failed && (
        <span className="status-line__item status-line__item--warning">
          <span className="status-dot" aria-hidden="true" />
          {s.unreachable}
        </span>
      )}
      {status ? (
        <>
          <span className="status-line__item" data-testid="status-mode">
            {s.mode[status.mode]}
          </span>
          <span className="status-line__item status-line__item--path">
            <span className="status-line__label">{s.dataFolder}</span>{' '}
            <span className="mono" data-testid="status-data-dir" title={status.dataDir}>
              {status.dataDir}
            </span>
          </span>
          <span className="status-line__item">
            <span className="status-line__label">{s.schema}</span>{' '}
            <span className="mono" data-testid="status-revision">
              {status.revision ?? s.schemaNone}
            </span>
          </span>
          <span className="status-line__item status-line__item--end">{s.version(status.version)}</span>
        </>
      ) : (
        !failed && <span className="status-line__item">{s.connecting}</span>
      )}
    </footer>
  );
}
