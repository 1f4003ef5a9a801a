// Overview: the state of this Tern from `app.status` — whether the database schema is current,
// how many rows each of the spec's records holds, where the data lives, and since when Tern runs.
import type { AppStatus, CountedTable } from '../../electron/core/ipc/contract';
import { Delayed } from '../components/Delayed';
import { ErrorState } from '../components/ErrorState';
import { RefreshButton } from '../components/RefreshButton';
import { AttentionIcon, CheckIcon } from '../components/icons';
import { RelativeTime } from '../components/RelativeTime';
import { useStatusStore } from '../store/status';
import { formatNumber, strings } from '../strings';

const t = strings.overview;
const RECORDS = Object.keys(strings.records) as CountedTable[];

export function Overview() {
  const { status, loading, error, refresh } = useStatusStore();
  const retry = () => void refresh();

  return (
    <article className="view" aria-labelledby="overview-title" aria-busy={loading}>
      <header className="view__header">
        <div>
          <h1 id="overview-title">{t.title}</h1>
          <p className="view__lede">{t.lede}</p>
        </div>
        {status && (
          <RefreshButton busy={loading} onClick={retry} />
        )}
      </header>

      {error && (
        <ErrorState
          context={status ? t.refreshFailed : t.loadFailed}
          error={error}
          onRetry={retry}
          retrying={loading}
          compact={status !== null}
        />
      )}
      {status ? (
        <StatusDetails status={status} />
      ) : (
        loading &&
        !error && (
          <Delayed>
            <OverviewSkeleton />
          </Delayed>
        )
      )}
    </article>
  );
}

function StatusDetails({ status }: { status: AppStatus }) {
  const totalRows = RECORDS.reduce((sum, table) => sum + (status.counts[table] ?? 0), 0);
  return (
    <>
      <SchemaState revision={status.revision} head={status.head} />

      <section className="section" aria-labelledby="storage-title">
        <div className="section__header">
          <h2 id="storage-title">{t.storageHeading}</h2>
        </div>
        <dl className="card facts">
          <div className="facts__row">
            <dt>{t.dataFolder}</dt>
            <dd className="mono" data-testid="data-dir">
              {status.dataDir}
            </dd>
          </div>
          <div className="facts__row">
            <dt>{t.databaseFile}</dt>
            <dd className="mono" data-testid="database-path">
              {status.databasePath}
            </dd>
          </div>
          <div className="facts__row">
            <dt>{t.startedAt}</dt>
            <dd data-testid="started-at">
              <RelativeTime iso={status.startedAt} />
            </dd>
          </div>
          <div className="facts__row">
            <dt>{t.version}</dt>
            <dd>{status.version}</dd>
          </div>
        </dl>
      </section>
      <section className="section" aria-labelledby="records-title">
        <div className="section__header">
          <h2 id="records-title">{t.recordsHeading}</h2>
          <p className="section__aside" data-testid="records-summary">
            {t.recordsSummary(RECORDS.length, totalRows)}
          </p>
        </div>
        <div className="card card--flush">
          <table className="records" aria-labelledby="records-title">
            <thead>
              <tr>
                <th scope="col">{t.recordColumn}</th>
                <th scope="col" className="records__table">{t.tableColumn}</th>
                <th scope="col" className="numeric">
                  {t.rowsColumn}
                </th>
              </tr>
            </thead>
            <tbody>
              {RECORDS.map((table) => {
                const rows = status.counts[table] ?? 0;
                return (
                  <tr key={table}>
                    <th scope="row">{strings.records[table]}</th>
                    <td className="mono records__table">{table}</td>
                    <td className={rows === 0 ? 'numeric records__zero' : 'numeric'}>{formatNumber(rows)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      </section>

    </>
  );
}

function SchemaState({ revision, head }: { revision: string | null; head: string }) {
  const current = revision === head;
  const [title, detail] = current
    ? [t.upToDate(head), t.upToDateDetail]
    : revision
      ? [t.needsUpgrade, t.needsUpgradeDetail(revision, head)]
      : [t.noSchema, t.noSchemaDetail(head)];
  return (
    <div className={current ? 'notice notice--ok' : 'notice notice--attention'} data-testid="schema-state">
      {current ? <CheckIcon /> : <AttentionIcon />}
      <div>
        <p className="notice__title">{title}</p>
        <p className="notice__detail">{detail}</p>
      </div>
    </div>
  );
}

/** The shape of the overview in grey, shown only when loading takes a moment. */
function OverviewSkeleton() {
  return (
    <div className="skeleton" role="status">
      <span className="visually-hidden">{strings.loading}</span>
      <div className="skeleton__block skeleton__block--notice" />
      <div className="skeleton__line skeleton__line--heading" />
      <div className="skeleton__block skeleton__block--facts" />
      <div className="skeleton__line skeleton__line--heading" />
      <div className="skeleton__block skeleton__block--table" />
    </div>
  );
}
