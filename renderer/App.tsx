// The app frame (UX.md "Shape"): places on the left, one readable column in the middle, the
// status line along the bottom. Until Tern knows who the author is, the first-run setup takes
// the whole window. The page shown follows the address (#/stream, #/thread?…).
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { Delayed } from './components/Delayed';
import { ErrorState } from './components/ErrorState';
import { ShortcutsDialog } from './components/ShortcutsDialog';
import { Sidebar } from './components/Sidebar';
import { StatusLine } from './components/StatusLine';
import { useShortcuts } from './keyboard';
import { placeOf, useRoute, type Route, type RouteId } from './places';
import { hasIdentity, useSettingsStore } from './store/settings';
import { useStatusStore } from './store/status';
import { strings } from './strings';
import { Apps } from './views/Apps';
import { Compose } from './views/Compose';
import { Deliveries } from './views/Deliveries';
import { Notifications } from './views/Notifications';
import { Overview } from './views/Overview';
import { People } from './views/People';
import { Polls } from './views/Polls';
import { Profile } from './views/Profile';
import { Settings } from './views/Settings';
import { Setup } from './views/Setup';
import { Stream } from './views/Stream';
import { Thread } from './views/Thread';
import { Webmentions } from './webmentions/Webmentions';
import { Search } from './search/Search';

const VIEWS: Record<RouteId, (props: { route: Route }) => React.JSX.Element> = {
  stream: Stream,
  search: Search,
  notifications: Notifications,
  compose: Compose,
  profile: Profile,
  people: People,
  polls: Polls,
  deliveries: Deliveries,
  webmentions: Webmentions,
  apps: Apps,
  settings: Settings,
  overview: Overview,
  thread: Thread,
};

const TITLES: Record<RouteId, string> = {
  stream: strings.places.stream,
  search: strings.search.title,
  notifications: strings.places.notifications,
  compose: strings.places.compose,
  profile: strings.places.profile,
  people: strings.places.people,
  polls: strings.places.polls,
  deliveries: strings.places.deliveries,
  webmentions: strings.places.webmentions,
  apps: strings.places.apps,
  settings: strings.places.settings,
  overview: strings.overview.title,
  thread: strings.thread.title,
};

// The address's #fragment names the place, so the skip link moves focus itself.
function skipToMain(event: React.MouseEvent) {
  event.preventDefault();
  document.getElementById('main')?.focus();
}

export function App() {
  const { settings, error, loading, load, refresh } = useSettingsStore();

  useEffect(() => {
    void load();
  }, [load]);

  if (!settings) {
    return (
      <main className="setup" id="main">
        {error ? (
          <div className="setup__card">
            <ErrorState context={strings.setup.loadFailed} error={error} onRetry={() => void refresh()} retrying={loading} />
          </div>
        ) : (
          <Delayed>
            <p className="setup__loading" role="status">
              {strings.loading}
            </p>
          </Delayed>
        )}
      </main>
    );
  }
  if (!hasIdentity(settings)) return <Setup settings={settings} />;
  return <Frame handle={settings.handle} />;
}

function Frame({ handle }: { handle: string | null }) {
  const route = useRoute();
  const loadStatus = useStatusStore((state) => state.load);
  const [helpOpen, setHelpOpen] = useState(false);
  const showHelp = useCallback(() => setHelpOpen(true), []);
  const View = VIEWS[route.id];
  const routeKey = window.location.hash;
  useShortcuts(showHelp);
  useScrollMemory(routeKey);

  // The status line needs the status in every place, so the frame asks for it.
  useEffect(() => {
    void loadStatus();
  }, [loadStatus]);

  useEffect(() => {
    document.title = `${TITLES[route.id]} — ${strings.appName}`;
  }, [route.id]);

  return (
    <div className="app">
      <a className="skip-link" href="#main" onClick={skipToMain}>
        {strings.skipToContent}
      </a>
      <Sidebar current={placeOf(route)} handle={handle} />
      <main id="main" className="main" tabIndex={-1}>
        <div className="column">
          <View key={viewKey(route, routeKey)} route={route} />
        </div>
      </main>
      <StatusLine />
      <ShortcutsDialog open={helpOpen} onClose={() => setHelpOpen(false)} />
    </div>
  );
}

// A view starts afresh for each address, except People: its tabs are addresses too, and
// switching tabs must not drop what the lookup box found; and Search, whose query is in the
// address: a new search must not take the box away from the author typing in it.
const viewKey = (route: Route, routeKey: string) => (route.id === 'people' || route.id === 'search' ? route.id : routeKey);

// Going back to a list returns to where the author was reading in it (its items are kept in
// the list store, so they are on screen at once), with the keyboard on the post it was on, so
// j/k go on from there; any other page opens at its top.
const scrollPositions = new Map<string, number>();
const focusedPosts = new Map<string, string>();

function useScrollMemory(routeKey: string) {
  const previous = useRef(routeKey);
  useLayoutEffect(() => {
    const main = document.getElementById('main');
    if (!main) return;
    if (previous.current !== routeKey) {
      main.scrollTop = scrollPositions.get(routeKey) ?? 0;
      previous.current = routeKey;
      const key = focusedPosts.get(routeKey);
      const post = key === undefined ? null : [...main.querySelectorAll<HTMLElement>('[data-post]')].find((p) => p.dataset.post === key);
      post?.focus({ preventScroll: true });
    }
    const remember = () => scrollPositions.set(routeKey, main.scrollTop);
    const rememberPost = (event: FocusEvent) => {
      const key = event.target instanceof HTMLElement ? event.target.closest<HTMLElement>('[data-post]')?.dataset.post : undefined;
      if (key !== undefined) focusedPosts.set(routeKey, key);
    };
    main.addEventListener('scroll', remember, { passive: true });
    main.addEventListener('focusin', rememberPost);
    return () => {
      main.removeEventListener('scroll', remember);
      main.removeEventListener('focusin', rememberPost);
    };
  }, [routeKey]);
}
