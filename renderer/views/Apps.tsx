// Apps: sign-in requests waiting for the author's consent (IndieAuth), and the apps that hold a
// token (Micropub). The listener's page only waits; approving happens here, by the author,
// with the scopes they tick. Revoking takes a token back at once. Anyone can open the sign-in
// page, so strangers' requests can take every place: the view says when sign-ins are being
// refused, and declines all waiting requests (or one host's) in one click.
import { useCallback, useEffect, useState } from 'react';
import type { AppAccess, PendingAuthorization } from '../../electron/core/ipc/apps-contract';
import { call, toApiError, type ApiError } from '../api';
import { clientIdentity } from '../apps/client-identity';
import { usePendingApps, usePendingStore } from '../apps/pending';
import '../apps/apps.css';
import { Avatar } from '../components/Avatar';
import { ErrorState } from '../components/ErrorState';
import { AttentionIcon, KeyIcon } from '../components/icons';
import { RelativeTime } from '../components/RelativeTime';
import { EmptyState, ListSkeleton } from '../lists/ListParts';
import { strings } from '../strings';

const t = strings.apps;

export function Apps() {
  const pending = usePendingApps();
  const refreshPending = usePendingStore((s) => s.refresh);
  const refusals = usePendingStore((s) => s.refusals);
  const [declining, setDeclining] = useState(false);
  const [declineError, setDeclineError] = useState<ApiError | null>(null);
  const [apps, setApps] = useState<AppAccess[] | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [answered, setAnswered] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      setApps(await call('apps.list', {}));
      setError(null);
    } catch (err) {
      setError(toApiError(err, 'apps.list'));
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  const onAnswered = (message: string) => {
    setAnswered(message);
    void refreshPending();
    void load();
  };

  /** Declines every waiting request shown, or one redirect host's, at once (by id: one that came
   * in since this list was read is not declined unseen). */
  const declineAll = async (host?: string) => {
    const ids = pending.filter((request) => host === undefined || request.redirectHost === host).map((request) => request.id);
    if (ids.length === 0) return;
    setDeclining(true);
    setDeclineError(null);
    try {
      const { declined } = await call('apps.declineAll', { ids });
      onAnswered(t.declinedAll(declined));
    } catch (err) {
      setDeclineError(toApiError(err, 'apps.declineAll'));
    } finally {
      setDeclining(false);
    }
  };
  const perHost = new Map<string, number>();
  for (const request of pending) perHost.set(request.redirectHost, (perHost.get(request.redirectHost) ?? 0) + 1);

  return (
    <article className="view" aria-labelledby="apps-title">
      <header className="view__header">
        <div>
          <h1 id="apps-title">{t.title}</h1>
          <p className="view__lede">{t.lede}</p>
        </div>
      </header>

      <section className="section" aria-labelledby="apps-pending-title">
        <div className="section__header">
          <h2 id="apps-pending-title">{t.pendingTitle}</h2>
          {pending.length > 1 && refusals.count === 0 && (
            <button type="button" className="button button--small" onClick={() => void declineAll()} disabled={declining} data-testid="decline-all">
              {t.declineAll(pending.length)}
            </button>
          )}
        </div>
        {refusals.count > 0 && pending.length > 0 && (
          <div className="notice notice--attention apps__refused" role="alert" data-testid="sign-ins-refused">
            <AttentionIcon />
            <div>
              <p className="notice__title">{t.refusedTitle(refusals.count)}</p>
              <p className="notice__detail">{t.refusedDetail}</p>
              <button type="button" className="button button--danger button--small apps__decline-all" onClick={() => void declineAll()} disabled={declining} data-testid="decline-all">
                {t.declineAll(pending.length)}
              </button>
            </div>
          </div>
        )}
        {declineError && (
          <p className="field__error" role="alert">
            {declineError.message}
          </p>
        )}
        <p role="status" className="form__saved">
          {answered ?? ''}
        </p>
        {pending.length === 0 ? (
          <p className="section__empty">{t.pendingEmpty}</p>
        ) : (
          pending.map((request) => (
            <Consent
              key={request.id}
              request={request}
              onAnswered={onAnswered}
              sameHost={perHost.get(request.redirectHost) ?? 1}
              onDeclineHost={() => void declineAll(request.redirectHost)}
              declining={declining}
            />
          ))
        )}
      </section>

      <section className="section" aria-labelledby="apps-access-title">
        <div className="section__header">
          <h2 id="apps-access-title">{t.accessTitle}</h2>
        </div>
        {error && <ErrorState context={t.loadFailed} error={error} onRetry={() => void load()} compact={apps !== null} />}
        {apps === null ? (
          !error && <ListSkeleton rows={2} kind="row" />
        ) : apps.length === 0 ? (
          <EmptyState icon={<KeyIcon />} title={t.accessEmpty} />
        ) : (
          <ul className="card card--flush people-list" aria-label={t.accessTitle}>
            {apps.map((app) => (
              <AppRow key={app.id} app={app} onChanged={() => void load()} />
            ))}
          </ul>
        )}
      </section>
    </article>
  );
}

interface ConsentProps {
  request: PendingAuthorization;
  onAnswered: (message: string) => void;
  /** Requests waiting for the same redirect host, this one included. */
  sameHost: number;
  onDeclineHost: () => void;
  declining: boolean;
}

function Consent({ request, onAnswered, sameHost, onDeclineHost, declining }: ConsentProps) {
  const [chosen, setChosen] = useState<string[]>(request.scopes);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const { client } = request;
  const who = clientIdentity(client);

  async function answer(approve: boolean) {
    setBusy(true);
    setError(null);
    try {
      await call('apps.decide', { id: request.id, approve, scopes: approve ? (chosen as PendingAuthorization['scopes']) : [] });
      onAnswered(approve ? t.approved(client.name) : t.denied(client.name));
    } catch (err) {
      setError(toApiError(err, 'apps.decide'));
      setBusy(false);
    }
  }

  const toggle = (scope: string, on: boolean) => setChosen((now) => (on ? [...now, scope] : now.filter((s) => s !== scope)));
  const titleId = `consent-${request.id}`;
  return (
    <form className="card consent" data-testid="consent" aria-labelledby={titleId} onSubmit={(e) => e.preventDefault()}>
      <div className="consent__head">
        <Avatar name={client.name} id={client.clientId} />
        <h3 className="consent__title" id={titleId}>
          {t.asks(who.title)}
        </h3>
      </div>
      <dl className="consent__facts">
        <dt>{client.registered ? t.registered : t.identifiedBy}</dt>
        <dd data-testid="consent-client">
          {who.host !== null && <strong>{who.host}</strong>} {who.address}
          {who.claimed && ` ${t.claimed}`}
        </dd>
        <dt>{t.sendsBackTo}</dt>
        <dd data-testid="consent-redirect">{request.redirectUri}</dd>
        <dt>{t.pairingCode}</dt>
        <dd>
          <strong data-testid="consent-code">{request.pairingCode}</strong> — {t.pairingHint}
        </dd>
        <dt>{t.expires}</dt>
        <dd>
          <RelativeTime iso={request.expiresAt} />
        </dd>
      </dl>
      {request.scopes.length === 0 ? (
        <p>{t.signInOnly}</p>
      ) : (
        <fieldset className="consent__scopes">
          <legend>{t.scopesLegend}</legend>
          {request.scopes.map((scope) => (
            <label key={scope} className="consent__scope">
              <input type="checkbox" name="scope" value={scope} checked={chosen.includes(scope)} onChange={(e) => toggle(scope, e.target.checked)} />
              <span>
                {t.scopes[scope] ?? scope} <code>{scope}</code>
              </span>
            </label>
          ))}
        </fieldset>
      )}
      {error && (
        <p className="field__error" role="alert">
          {error.message}
        </p>
      )}
      <div className="consent__actions">
        {sameHost > 1 && (
          <button type="button" className="button button--small consent__decline-host" onClick={onDeclineHost} disabled={busy || declining}>
            {t.declineHost(request.redirectHost, sameHost)}
          </button>
        )}
        <button type="button" className="button" onClick={() => void answer(false)} disabled={busy}>
          {t.deny}
        </button>
        <button type="button" className="button button--primary" onClick={() => void answer(true)} disabled={busy}>
          {t.approve}
        </button>
      </div>
    </form>
  );
}

function AppRow({ app, onChanged }: { app: AppAccess; onChanged: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);

  async function revoke() {
    setBusy(true);
    try {
      await call('apps.revoke', { id: app.id });
      onChanged();
    } catch (err) {
      setError(toApiError(err, 'apps.revoke'));
      setBusy(false);
    }
  }

  return (
    <li className="person" data-testid="app-access">
      <Avatar name={app.clientName} id={app.clientId} />
      <div className="person__who">
        <span className="person__name">{app.clientName}</span>
        <span className="person__handle">{app.clientUrl ?? app.clientId}</span>
        <span className="app-row__scopes">
          {app.scopes.map((scope) => (
            <span key={scope} className="chip chip--quiet">
              {scope}
            </span>
          ))}
        </span>
        <span className="person__meta">
          {t.granted} <RelativeTime iso={app.createdAt} /> ·{' '}
          {app.expiresAt === null ? t.untilRevoked : <>{t.validUntil} <RelativeTime iso={app.expiresAt} /></>}
        </span>
        {error && <span className="field__error">{error.message}</span>}
      </div>
      <div className="person__actions">
        {confirming ? (
          <>
            <button type="button" className="button button--danger button--small" onClick={() => void revoke()} disabled={busy}>
              {t.confirmRevoke}
            </button>
            <button type="button" className="button button--small" onClick={() => setConfirming(false)} autoFocus>
              {strings.cancel}
            </button>
          </>
        ) : (
          <button type="button" className="button button--small" onClick={() => setConfirming(true)} aria-label={`${t.revoke} ${app.clientName}`}>
            {t.revoke}
          </button>
        )}
      </div>
    </li>
  );
}
