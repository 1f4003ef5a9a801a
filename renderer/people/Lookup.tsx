// Looking someone (or a post) up by handle or URL: @ana@example.social, a profile page, a post's
// link. An account found can be followed or unfollowed right there; a post is shown as a post.
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { LookupView } from '../../electron/core/ipc/author-contract';
import { call, toApiError, type ApiError } from '../api';
import { Avatar } from '../components/Avatar';
import { SearchIcon } from '../components/icons';
import { EmojiText } from '../content/emoji';
import { Html } from '../content/Html';
import { Post } from '../posts/Post';
import { strings } from '../strings';

const t = strings.people;

/** `initialQuery` (a search result's actor, say) is looked up at once. */
export function Lookup({ autoFocus, onChanged, initialQuery }: { autoFocus: boolean; onChanged: () => void; initialQuery?: string | null }) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [query, setQuery] = useState(initialQuery ?? '');
  const [result, setResult] = useState<LookupView | null>(null);
  const [searching, setSearching] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);

  useEffect(() => {
    if (autoFocus) input.current?.focus();
  }, [autoFocus]);

  async function run(text: string) {
    if (text.trim().length < 3) return;
    setSearching(true);
    setError(null);
    setResult(null);
    try {
      setResult(await call('lookup.resolve', { query: text.trim() }));
    } catch (err) {
      setError(toApiError(err, 'lookup.resolve'));
    } finally {
      setSearching(false);
    }
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    void run(query);
  }

  useEffect(() => {
    if (!initialQuery) return;
    setQuery(initialQuery);
    void run(initialQuery);
    // Once per query given (run reads nothing else that changes).
  }, [initialQuery]);

  return (
    <section className="section" aria-labelledby={`${id}-title`}>
      <div className="section__header">
        <h2 id={`${id}-title`}>{t.lookupTitle}</h2>
      </div>
      <form className="lookup" role="search" onSubmit={submit} aria-labelledby={`${id}-title`}>
        <label className="visually-hidden" htmlFor={`${id}-query`}>
          {t.lookupLabel}
        </label>
        <SearchIcon />
        <input
          ref={input}
          id={`${id}-query`}
          className="lookup__input"
          type="search"
          placeholder={t.lookupPlaceholder}
          autoComplete="off"
          spellCheck={false}
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        <button type="submit" className="button button--primary" disabled={searching || query.trim().length < 3}>
          {searching ? t.lookingUp : t.lookUp}
        </button>
      </form>
      {error && (
        <p className="field__error" role="alert">
          {error.message}
        </p>
      )}
      {result?.kind === 'actor' && <FoundActor found={result} onChanged={onChanged} />}
      {result?.kind === 'post' && <Post post={result.post} />}
    </section>
  );
}

function FoundActor({ found, onChanged }: { found: Extract<LookupView, { kind: 'actor' }>; onChanged: () => void }) {
  const [state, setState] = useState(found.followState);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const actor = found.actor;

  async function toggle() {
    setBusy(true);
    setError(null);
    try {
      const answer =
        state === 'none'
          ? await call('social.follow', { target: actor.apId })
          : await call('social.unfollow', { actorApId: actor.apId });
      setState(answer.state);
      onChanged();
    } catch (err) {
      setError(toApiError(err, state === 'none' ? 'social.follow' : 'social.unfollow'));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="card found" data-testid="lookup-result">
      <div className="person">
        <Avatar name={actor.name} id={actor.apId} size="large" src={actor.iconSrc} />
        <div className="person__who">
          <a className="person__name" href={actor.url} target="_blank" rel="noopener noreferrer">
            <EmojiText text={actor.name} emojis={actor.emojis} />
          </a>
          <span className="person__handle">{actor.handle ?? actor.apId}</span>
          {actor.movedTo && <span className="person__meta">{t.movedTo(actor.movedTo)}</span>}
          {found.followsYou && <span className="chip chip--quiet">{t.followsYou}</span>}
        </div>
        <div className="person__actions">
          <button
            type="button"
            className={state === 'none' ? 'button button--primary' : 'button'}
            onClick={() => void toggle()}
            disabled={busy}
          >
            {state === 'following' ? t.unfollow : state === 'requested' ? t.cancelRequest : t.follow}
          </button>
        </div>
      </div>
      {state === 'requested' && <p className="found__note">{t.requestedNote}</p>}
      {found.summaryHtml && <Html className="found__summary" html={found.summaryHtml} emojis={actor.emojis} />}
      {error && <p className="field__error found__note">{error.message}</p>}
    </div>
  );
}
