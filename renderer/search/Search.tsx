// Search: one box over the author's posts, everything received or looked up, people and
// webmentions (search.query), answered from this computer — offline too. The query, order and
// scope live in the address (#/search?q=…&sort=…&kind=…), so Back returns to earlier searches.
// Matches are highlighted in snippets that are text with <mark> (snippet.ts), never HTML.
// A post opens its thread; a person opens in People's lookup; a webmention, the post it is on.
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { PersonHit, PostHit, SearchKind, SearchResults, WebmentionHit } from '../../electron/core/ipc/search-contract';
import { call, toApiError, type ApiError } from '../api';
import { Avatar } from '../components/Avatar';
import { ErrorState } from '../components/ErrorState';
import { SearchIcon } from '../components/icons';
import { RelativeTime } from '../components/RelativeTime';
import { EmptyState, ListSkeleton } from '../lists/ListParts';
import { hrefOf, navigate, type Route } from '../places';
import { VisibilityMark } from '../posts/Visibility';
import { strings } from '../strings';
import { renderSnippet } from './snippet';
import { externalHref } from '../posts/links';
import './search.css';

const t = strings.search;
const KINDS: SearchKind[] = ['all', 'posts', 'people', 'webmentions'];
const SORTS = ['relevance', 'date'] as const;
type Sort = (typeof SORTS)[number];
export const SEARCH_BOX_ID = 'search-box';

interface Found {
  results: SearchResults;
  loadingMore: boolean;
  moreError: ApiError | null;
}

export function Search({ route }: { route: Route }) {
  const id = useId();
  const q = route.params.get('q')?.trim() ?? '';
  const sort: Sort = SORTS.includes(route.params.get('sort') as Sort) ? (route.params.get('sort') as Sort) : 'relevance';
  const kind: SearchKind = KINDS.includes(route.params.get('kind') as SearchKind) ? (route.params.get('kind') as SearchKind) : 'all';
  const [text, setText] = useState(q);
  const [found, setFound] = useState<Found | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [attempt, setAttempt] = useState(0);
  const box = useRef<HTMLInputElement>(null);

  useEffect(() => {
    box.current?.focus();
  }, []);
  // Back and Forward change the address: the box follows.
  useEffect(() => setText(q), [q]);

  useEffect(() => {
    if (!q) {
      setFound(null);
      setError(null);
      return;
    }
    let current = true;
    setLoading(true);
    setError(null);
    call('search.query', { text: q, sort, kind, limit: 20 })
      .then((results) => current && setFound({ results, loadingMore: false, moreError: null }))
      .catch((err: unknown) => {
        if (!current) return;
        setFound(null);
        setError(toApiError(err, 'search.query'));
      })
      .finally(() => current && setLoading(false));
    return () => {
      current = false;
    };
  }, [q, sort, kind, attempt]);

  function submit(event: FormEvent) {
    event.preventDefault();
    const next = text.trim();
    if (next === q) setAttempt((n) => n + 1);
    else navigate('search', { q: next || undefined, sort: sort === 'relevance' ? undefined : sort, kind: kind === 'all' ? undefined : kind });
  }

  async function loadMore() {
    if (!found?.results.nextCursor) return;
    setFound({ ...found, loadingMore: true, moreError: null });
    try {
      const more = await call('search.query', { text: q, sort, kind, limit: 20, cursor: found.results.nextCursor });
      setFound({
        results: {
          ...more,
          posts: [...found.results.posts, ...more.posts],
          people: kind === 'people' ? [...found.results.people, ...more.people] : found.results.people,
          webmentions: kind === 'webmentions' ? [...found.results.webmentions, ...more.webmentions] : found.results.webmentions,
        },
        loadingMore: false,
        moreError: null,
      });
    } catch (err) {
      setFound({ ...found, loadingMore: false, moreError: toApiError(err, 'search.query') });
    }
  }

  const here = (change: { sort?: Sort; kind?: SearchKind }) => {
    const s = change.sort ?? sort;
    const k = change.kind ?? kind;
    return hrefOf('search', { q: q || undefined, sort: s === 'relevance' ? undefined : s, kind: k === 'all' ? undefined : k });
  };

  return (
    <article className="view search" aria-labelledby={`${id}-title`}>
      <header className="view__header">
        <div>
          <h1 id={`${id}-title`}>{t.title}</h1>
          <p className="view__lede">{t.lede}</p>
        </div>
      </header>
      <form className="lookup" role="search" onSubmit={submit} aria-label={t.label}>
        <SearchIcon />
        <input
          ref={box}
          id={SEARCH_BOX_ID}
          className="lookup__input"
          type="search"
          aria-label={t.label}
          aria-keyshortcuts="/"
          placeholder={t.placeholder}
          autoComplete="off"
          spellCheck={false}
          maxLength={500}
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => e.key === 'Escape' && e.currentTarget.blur()}
        />
        <button type="submit" className="button button--primary" disabled={loading || text.trim() === ''}>
          {loading ? t.searching : t.submit}
        </button>
      </form>
      <div className="search__bar">
        <nav className="tabs" aria-label={t.kindsLabel}>
          {KINDS.map((k) => (
            <a key={k} className="tabs__tab" href={here({ kind: k })} aria-current={k === kind ? 'page' : undefined}>
              {t.kinds[k]}
            </a>
          ))}
        </nav>
        <nav className="search__sort" aria-label={t.sortLabel}>
          {SORTS.map((s) => (
            <a key={s} className="chip" href={here({ sort: s })} aria-current={s === sort ? 'true' : undefined}>
              {t.sort[s]}
            </a>
          ))}
        </nav>
      </div>
      <details className="search__help">
        <summary>{t.help}</summary>
        <dl>
          {t.helpRows.map(([example, meaning]) => (
            <div key={example}>
              <dt>
                <code>{example}</code>
              </dt>
              <dd>{meaning}</dd>
            </div>
          ))}
        </dl>
      </details>
      <Outcome q={q} kind={kind} found={found} loading={loading} error={error} onRetry={() => setAttempt((n) => n + 1)} onMore={() => void loadMore()} />
    </article>
  );
}

interface OutcomeProps {
  q: string;
  kind: SearchKind;
  found: Found | null;
  loading: boolean;
  error: ApiError | null;
  onRetry: () => void;
  onMore: () => void;
}

function Outcome({ q, kind, found, loading, error, onRetry, onMore }: OutcomeProps) {
  if (!q) {
    return (
      <EmptyState icon={<SearchIcon />} title={t.idleTitle}>
        <p>{t.idleText}</p>
      </EmptyState>
    );
  }
  // A query Tern could not read: its sentence says what to write instead; retrying would not help.
  if (error?.code === 'bad_input') {
    return (
      <p className="field__error search__error" role="alert" data-testid="search-error">
        {t.badQuery} {error.message}
      </p>
    );
  }
  if (error) return <ErrorState context={t.failed} error={error} onRetry={onRetry} retrying={loading} />;
  if (!found) return <ListSkeleton />;
  const { results } = found;
  const nothing = results.posts.length + results.people.length + results.webmentions.length === 0;
  return (
    <div className="search__results" aria-busy={loading}>
      {results.indexing && (
        <p className="notice notice--waiting" role="status" data-testid="search-indexing">
          {t.indexing(results.indexing.percent)}
        </p>
      )}
      {nothing ? (
        <EmptyState icon={<SearchIcon />} title={t.nothingTitle(q)}>
          <p>{t.nothingText}</p>
        </EmptyState>
      ) : (
        <>
          {results.people.length > 0 && <People hits={results.people} titled={kind === 'all'} />}
          {results.webmentions.length > 0 && <Webmentions hits={results.webmentions} titled={kind === 'all'} />}
          {results.posts.length > 0 && <Posts hits={results.posts} titled={kind === 'all'} />}
        </>
      )}
      {found.moreError && <ErrorState context={strings.lists.moreFailed} error={found.moreError} onRetry={onMore} retrying={found.loadingMore} compact />}
      {results.nextCursor && !found.moreError && (
        <div className="load-more">
          <button type="button" className="button" onClick={onMore} disabled={found.loadingMore}>
            {found.loadingMore ? strings.loadingMore : strings.loadMore}
          </button>
        </div>
      )}
    </div>
  );
}

function Section({ title, titled, children }: { title: string; titled: boolean; children: React.ReactNode }) {
  const id = useId();
  return (
    <section className="search__section" aria-labelledby={titled ? id : undefined} aria-label={titled ? undefined : title}>
      {titled && <h2 id={id}>{title}</h2>}
      {children}
    </section>
  );
}

function Posts({ hits, titled }: { hits: PostHit[]; titled: boolean }) {
  return (
    <Section title={t.posts} titled={titled}>
      <ol className="search__list">
        {hits.map(({ post, snippet }) => (
          <li key={`${post.origin}:${post.id}`} className="card search-hit" data-post tabIndex={0} data-testid="search-post">
            <div className="search-hit__who">
              <Avatar name={post.author.name} id={post.author.apId} size="small" src={post.author.iconSrc} />
              <span className="search-hit__name">{post.author.name}</span>
              <span className="search-hit__handle">{post.author.handle ?? ''}</span>
              <VisibilityMark visibility={post.visibility} />
              <a className="search-hit__time" href={hrefOf('thread', { ap: post.apId })} data-action="open" aria-label={t.openThread}>
                <RelativeTime iso={post.published} />
              </a>
            </div>
            <p className="search-hit__snippet">{renderSnippet(snippet)}</p>
          </li>
        ))}
      </ol>
    </Section>
  );
}

function People({ hits, titled }: { hits: PersonHit[]; titled: boolean }) {
  return (
    <Section title={t.people} titled={titled}>
      <ul className="card card--flush search__list">
        {hits.map(({ actor, snippet }) => (
          <li key={actor.id} className="person" data-testid="search-person">
            <Avatar name={actor.name} id={actor.apId} src={actor.iconSrc} />
            <div className="person__who">
              <a className="person__name" href={hrefOf('people', { focus: 'lookup', q: actor.apId })} aria-label={`${t.openPerson} ${actor.name}`}>
                {actor.name}
              </a>
              <span className="person__handle">{actor.handle ?? actor.apId}</span>
              <span className="search-hit__snippet search-hit__snippet--small">{renderSnippet(snippet)}</span>
            </div>
          </li>
        ))}
      </ul>
    </Section>
  );
}

function Webmentions({ hits, titled }: { hits: WebmentionHit[]; titled: boolean }) {
  return (
    <Section title={t.webmentions} titled={titled}>
      <ul className="search__list">
        {hits.map((w) => (
          <li key={w.id} className="card search-hit" data-testid="search-webmention">
            <div className="search-hit__who">
              <span className="chip chip--quiet">{strings.webmentions.kind[w.kind]}</span>
              <span className="search-hit__name">{w.authorName ?? t.someone}</span>
              <a className="search-hit__handle" href={externalHref(w.source)} target="_blank" rel="noopener noreferrer nofollow">
                {w.source}
              </a>
              <span className="search-hit__time">
                <RelativeTime iso={w.receivedAt} />
              </span>
            </div>
            <p className="search-hit__snippet">{renderSnippet(w.snippet)}</p>
            <a href={hrefOf('thread', { ap: w.post.apId })}>{t.onPost}</a>
          </li>
        ))}
      </ul>
    </Section>
  );
}
