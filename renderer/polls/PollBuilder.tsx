// The poll builder in Compose (UX.md): two to ten options, one choice or several, how long it
// stays open, and whether others see the results only once it closes.
import { useId } from 'react';
import { strings } from '../strings';
import { MAX_OPTIONS, type PollDraft } from './pollDraft';

const t = strings.polls;

export function PollBuilder({ poll, change }: { poll: PollDraft; change: (c: Partial<PollDraft>) => void }) {
  const id = useId();
  const setOption = (i: number, value: string) => change({ options: poll.options.map((o, j) => (j === i ? value : o)) });
  return (
    <fieldset className="poll-builder" data-testid="poll-builder">
      <legend className="visually-hidden">{t.addLabel}</legend>
      <ol className="poll-builder__options">
        {poll.options.map((option, i) => (
          <li key={i} className="poll-builder__option">
            <label className="visually-hidden" htmlFor={`${id}-o${i}`}>
              {t.option(i + 1)}
            </label>
            <input
              id={`${id}-o${i}`}
              className="field__input"
              placeholder={t.option(i + 1)}
              value={option}
              maxLength={200}
              onChange={(e) => setOption(i, e.target.value)}
            />
            {poll.options.length > 2 && (
              <button
                type="button"
                className="button button--small"
                aria-label={t.removeOption(i + 1)}
                title={t.removeOption(i + 1)}
                onClick={() => change({ options: poll.options.filter((_, j) => j !== i) })}
              >
                ×
              </button>
            )}
          </li>
        ))}
      </ol>
      {poll.options.length < MAX_OPTIONS && (
        <button type="button" className="button button--small" onClick={() => change({ options: [...poll.options, ''] })}>
          {t.addOption}
        </button>
      )}
      <div className="poll-builder__settings">
        <label className="poll-builder__setting">
          <span>{t.duration}</span>{' '}
          <select className="field__input" value={poll.durationSeconds} onChange={(e) => change({ durationSeconds: Number(e.target.value) })}>
            {t.durations.map((d) => (
              <option key={d.seconds} value={d.seconds}>
                {d.label}
              </option>
            ))}
          </select>
        </label>
        <label className="poll-builder__setting">
          <input type="checkbox" checked={poll.multiple} onChange={(e) => change({ multiple: e.target.checked })} /> {t.multiple}
        </label>
        <label className="poll-builder__setting">
          <input type="checkbox" checked={poll.hideTotals} onChange={(e) => change({ hideTotals: e.target.checked })} /> {t.hideTotals}
        </label>
      </div>
    </fieldset>
  );
}
