// Under a "… quoted your post" notification: the author may take back Tern's approval of that
// quote (quotes.revoke), after saying so once more — their post then no longer shows ours on
// servers that honour it (FEP-044f). A revoked approval says so; one that ended otherwise (the
// quoting post deleted) offers nothing.
import { useState } from 'react';
import { call, toApiError, type ApiError } from '../api';
import { strings } from '../strings';
import type { NotificationGroup } from './groups';

const t = strings.notifications;

export function QuoteApproval({ group, onRevoked }: { group: NotificationGroup; onRevoked: (id: number) => void }) {
  const item = group.items[0];
  const detail = item?.detail;
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  if (!item || detail?.kind !== 'quoted' || !group.inboxObject || !detail.approval || detail.approval === 'ended') return null;
  const who = group.actors[0]?.handle || group.actors[0]?.name || 'Someone';
  const requestId = group.inboxObject.id;

  async function revoke() {
    setBusy(true);
    setError(null);
    try {
      await call('quotes.revoke', { inboxObjectId: requestId });
      setConfirming(false);
      onRevoked(item!.id);
    } catch (err) {
      setError(toApiError(err, 'quotes.revoke'));
    } finally {
      setBusy(false);
    }
  }

  if (detail.approval === 'revoked') {
    return (
      <p className="notification__footer notification__note" data-testid="quote-approval">
        {t.quoteRevoked}
      </p>
    );
  }
  return (
    <div className="notification__footer" data-testid="quote-approval">
      {confirming ? (
        <div className="post__confirm" role="group" aria-label={t.revokeQuoteQuestion(who)}>
          <span>{t.revokeQuoteQuestion(who)}</span>
          <button type="button" className="button button--danger button--small" disabled={busy} onClick={() => void revoke()}>
            {t.revokeQuoteConfirm}
          </button>
          <button type="button" className="button button--small" disabled={busy} onClick={() => setConfirming(false)} autoFocus>
            {strings.cancel}
          </button>
        </div>
      ) : (
        <button type="button" className="button button--small" onClick={() => setConfirming(true)} aria-label={t.revokeQuoteLabel(who)}>
          {t.revokeQuote}
        </button>
      )}
      {error && (
        <p className="field__error" role="alert">
          {error.message}
        </p>
      )}
    </div>
  );
}
