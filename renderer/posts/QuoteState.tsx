// Where the approval of the author's own quote stands (federation/quoting.ts), said on the post:
// approved, waiting, refused or revoked (the post is shown without the quoted one) — each naming
// whom it was asked of — or unanswered, with Ask again (quotes.askAgain: a new QuoteRequest), after which it
// waits again. A quote of the author's own post, approved by nobody but them, says nothing.
import { useState } from 'react';
import { call, toApiError, type ApiError } from '../api';
import { nameSlot, WithNames } from '../components/WithNames';
import { strings } from '../strings';
import type { ShownPost } from './model';

const t = strings.post;
type State = NonNullable<ShownPost['quoteState']>;

const SAYS: Record<State, (who: string | null) => string> = {
  approved: t.quoteApproved,
  pending: t.quotePending,
  unanswered: t.quoteUnanswered,
  rejected: t.quoteRejected,
  revoked: t.quoteRevokedByThem,
};

export function QuoteState({ post }: { post: ShownPost }) {
  // Asked again: waiting, until the list brings the post again with its own state.
  const [asked, setAsked] = useState<{ from: State | undefined; to: State } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const state = asked && asked.from === post.quoteState ? asked.to : post.quoteState;
  const who = post.quoteAskedOf;
  if (!state || (state === 'approved' && !who)) return null;

  async function askAgain() {
    setBusy(true);
    setError(null);
    try {
      const again = await call('quotes.askAgain', { apId: post.apId });
      setAsked({ from: post.quoteState, to: again.quoteState ?? 'pending' });
    } catch (err) {
      setError(toApiError(err, 'quotes.askAgain'));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className={`post__quote-state post__quote-state--${state}`}>
      <span data-testid="quote-state" title={who?.handle ?? undefined}>
        {who ? <WithNames text={SAYS[state](nameSlot(0))} names={[who.name]} /> : SAYS[state](null)}
      </span>
      {state === 'unanswered' && (
        <>
          {' '}
          <button type="button" className="link-button" disabled={busy} onClick={() => void askAgain()} aria-label={t.askAgainLabel}>
            {t.askAgain}
          </button>
        </>
      )}
      {error && (
        <p className="field__error" role="alert">
          {error.message}
        </p>
      )}
    </div>
  );
}
