// The author's approval of someone's quote of one of their posts (FEP-044f), under the "… quoted
// your post" notification and under the quoting post in its thread. While it stands the author
// may take it back (quotes.revoke), after saying so once more — the quoting post then no longer
// shows theirs on servers that honour it. A revoked quote is refused when its author asks again,
// until the author allows it again (quotes.allowAgain). One that ended otherwise (the quoting
// post deleted) offers nothing.
import { useState } from 'react';
import { call, toApiError, type ApiError } from '../api';
import type { NotificationItem } from '../notifications/groups';
import { strings } from '../strings';

const t = strings.notifications;

/** Where the approval stands, as the core says it (the notification's detail, a post's view). */
export type ApprovalShown = Pick<Extract<NonNullable<NotificationItem['detail']>, { kind: 'quoted' }>, 'approval' | 'allowedAgain'>;

interface Props {
  /** The QuoteRequest (its inbox row id) the approval answered. */
  requestId: number;
  /** The quoter, as named in the question. */
  who: string;
  shown: ApprovalShown;
  /** Said so while it stands (under a post; a notification's sentence says it already). */
  saysApproved?: boolean;
  /** Where it stands in its place (a notification's footer, a post's line). */
  className: string;
  onChange: (next: ApprovalShown) => void;
}

export function QuoteApproval({ requestId, who, shown, saysApproved = false, className, onChange }: Props) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  if (!shown.approval || shown.approval === 'ended') return null;

  async function act(channel: 'quotes.revoke' | 'quotes.allowAgain', next: ApprovalShown) {
    setBusy(true);
    setError(null);
    try {
      await call(channel, { inboxObjectId: requestId });
      setConfirming(false);
      onChange(next);
    } catch (err) {
      setError(toApiError(err, channel));
    } finally {
      setBusy(false);
    }
  }

  const failure = error && (
    <p className="field__error" role="alert">
      {error.message}
    </p>
  );
  if (shown.approval === 'revoked') {
    return (
      <div className={`quote-approval ${className}`} data-testid="quote-approval">
        <span className="quote-approval__note" data-testid="quote-approval-note">
          {shown.allowedAgain ? t.quoteAllowedAgain : t.quoteRevoked}
        </span>
        {!shown.allowedAgain && (
          <>
            {' '}
            <button
              type="button"
              className="button button--small"
              disabled={busy}
              onClick={() => void act('quotes.allowAgain', { approval: 'revoked', allowedAgain: true })}
              aria-label={t.allowQuoteAgainLabel(who)}
            >
              {t.allowQuoteAgain}
            </button>
          </>
        )}
        {failure}
      </div>
    );
  }
  return (
    <div className={`quote-approval ${className}`} data-testid="quote-approval">
      {confirming ? (
        <div className="post__confirm" role="group" aria-label={t.revokeQuoteQuestion(who)}>
          <span>{t.revokeQuoteQuestion(who)}</span>
          <button type="button" className="button button--danger button--small" disabled={busy} onClick={() => void act('quotes.revoke', { approval: 'revoked', allowedAgain: false })}>
            {t.revokeQuoteConfirm}
          </button>
          <button type="button" className="button button--small" disabled={busy} onClick={() => setConfirming(false)} autoFocus>
            {strings.cancel}
          </button>
        </div>
      ) : (
        <>
          {saysApproved && (
            <>
              <span className="quote-approval__note" data-testid="quote-approval-note">
                {t.quoteApprovedByYou}
              </span>{' '}
            </>
          )}
          <button type="button" className="button button--small" onClick={() => setConfirming(true)} aria-label={t.revokeQuoteLabel(who)}>
            {t.revokeQuote}
          </button>
        </>
      )}
      {failure}
    </div>
  );
}
