// The app frame (UX.md "Shape"): places on the left, one readable column in the middle, the
// status line along the bottom. The place shown follows the address (#/overview).
import { useEffect } from 'react';
import { Sidebar } from './components/Sidebar';
import { StatusLine } from './components/StatusLine';
import { useCurrentPlace, type PlaceId } from './places';
import { useStatusStore } from './store/status';
import { strings } from './strings';
import { Overview } from './views/Overview';

const VIEWS: Record<PlaceId, () => React.JSX.Element> = { overview: Overview };
const TITLES: Record<PlaceId, string> = { overview: strings.overview.title };

// The address's #fragment names the place, so the skip link moves focus itself.
function skipToMain(event: React.MouseEvent) {
  event.preventDefault();
  document.getElementById('main')?.focus();
}

export function App() {
  const place = useCurrentPlace();
  const loadStatus = useStatusStore((state) => state.load);
  const View = VIEWS[place];

  // The status line needs the status in every place, so the frame asks for it.
  useEffect(() => {
    void loadStatus();
  }, [loadStatus]);

  useEffect(() => {
    document.title = `${TITLES[place]} — ${strings.appName}`;
  }, [place]);

  return (
    <div className="app">
      <a className="skip-link" href="#main" onClick={skipToMain}>
        {strings.skipToContent}
      </a>
      <Sidebar current={place} />
      <main id="main" className="main" tabIndex={-1}>
        <div className="column">
          <View />
        </div>
      </main>
      <StatusLine />
    </div>
  );
}
