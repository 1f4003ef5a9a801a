// The poll inside a post: a vote form (radio buttons for a single choice, checkboxes for more)
// while someone else's poll is open and the author has not voted, else the results — a bar per
// option, the author's own choices marked, how many voted and when it ends or ended. Tallies a
// poll hides until it closes are said to be hidden, never shown as zeros.
import { useEffect, useId, useState, type FormEvent } from 'react';
import { call, toApiError, type ApiError } from '../api';
import { useNow } from '../components/RelativeTime';
import type { PollView } from '../../electron/core/ipc/polls-contract';
import { formatDateTime, formatRelative, strings } from '../strings';

const t = strings.polls;

export function PollBlock({ apId, poll: initial, own }: { apId: string; poll: PollView; own: boolean }) {
  const id = useId();
  const now = useNow(30_000);
  const [poll, setPoll] = useState(initial);
  const [chosen, setChosen] = useState<string[]>([]);
  const [voting, setVoting] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => setPoll(initial), [initial]);

  const end = poll.endTime ? new Date(poll.endTime) : null;
  const closed = poll.closed || (end !== null && end.getTime() <= now.getTime());
  const canVote = !own && !closed && poll.myVotes === null;

  async function vote(event: FormEvent) {
    event.preventDefault();
    if (chosen.length === 0 || voting) return;
    setVoting(true);
    setError(null);
    try {
      const post = await call('polls.vote', { apId, choices: chosen });
      if (post.poll) setPoll(post.poll);
    } catch (err) {
      setError(toApiError(err, 'polls.vote'));
    } finally {
      setVoting(false);
    }
  }

  const footer = (
    <p className="poll__footer">
      {poll.votersCount !== null && <span>{t.voters(poll.votersCount)}</span>}
      {end && (
        <time dateTime={end.toISOString()} title={formatDateTime(end)} data-testid="poll-time">
          {closed ? t.endedAt(formatRelative(end, now)) : t.endsIn(formatRelative(end, now))}
        </time>
      )}
      {closed && !end && <span>{t.ended}</span>}
    </p>
  );

  if (canVote) {
    const type = poll.kind === 'oneOf' ? 'radio' : 'checkbox';
    return (
      <form className="poll" onSubmit={vote} aria-label={t.pollLabel} data-testid="poll">
        <fieldset className="poll__choices">
          <legend className="poll__legend">{poll.kind === 'oneOf' ? t.chooseOne : t.chooseAny}</legend>
          {poll.options.map((option, i) => (
            <label key={option.name} className="poll__choice" htmlFor={`${id}-${i}`}>
              <input
                id={`${id}-${i}`}
                type={type}
                name={`${id}-choice`}
                value={option.name}
                checked={chosen.includes(option.name)}
                onChange={(e) =>
                  setChosen((c) => (type === 'radio' ? [option.name] : e.target.checked ? [...c, option.name] : c.filter((n) => n !== option.name)))
                }
              />
              <bdi>{option.name}</bdi>
            </label>
          ))}
        </fieldset>
        {error && (
          <p className="field__error" role="alert">
            {t.voteFailed(error.message)}
          </p>
        )}
        <div className="poll__actions">
          <button type="submit" className="button button--small button--primary" disabled={chosen.length === 0 || voting}>
            {voting ? t.voting : t.vote}
          </button>
          {footer}
        </div>
      </form>
    );
  }

  const hidden = poll.options.every((o) => o.votes === null);
  const whole = poll.kind === 'oneOf' ? poll.options.reduce((sum, o) => sum + (o.votes ?? 0), 0) : (poll.votersCount ?? 0);
  const mine = new Set(poll.myVotes ?? []);
  return (
    <section className="poll" aria-label={t.pollLabel} data-testid="poll">
      {hidden ? (
        <>
          <ul className="poll__results">
            {poll.options.map((option) => (
              <li key={option.name} className={mine.has(option.name) ? 'poll__result poll__result--mine' : 'poll__result'} data-testid="poll-result">
                <span className="poll__name">
                  <bdi>{option.name}</bdi> {mine.has(option.name) && <span className="poll__mine">{t.yourVote}</span>}
                </span>
              </li>
            ))}
          </ul>
          <p className="poll__note">{t.hiddenUntilClosed}</p>
        </>
      ) : (
        <ul className="poll__results">
          {poll.options.map((option) => {
            const votes = option.votes ?? 0;
            const share = whole > 0 ? (votes * 100) / whole : 0;
            return (
              <li key={option.name} className={mine.has(option.name) ? 'poll__result poll__result--mine' : 'poll__result'} data-testid="poll-result">
                <span className="poll__bar" style={{ width: `${Math.min(share, 100)}%` }} aria-hidden="true" />
                <span className="poll__percent">{t.percent(votes, whole)}</span>
                <span className="poll__name">
                  <bdi>{option.name}</bdi> {mine.has(option.name) && <span className="poll__mine">{t.yourVote}</span>}
                </span>
                <span className="poll__count">{t.votes(votes)}</span>
              </li>
            );
          })}
        </ul>
      )}
      {own && poll.hideTotals && !closed && <p className="poll__note">{t.hiddenForOthers}</p>}
      {footer}
    </section>
  );
}
