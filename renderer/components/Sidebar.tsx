// The left column: Tern's mark and the places the author can go. The current place is marked
// with aria-current, which the stylesheet also uses, so it is obvious to eyes and to ears.
// Notifications carry the unread count; Compose shows its shortcut.
import { useEffect } from 'react';
import { useChanges } from '../changes';
import { PLACES, hrefOf, type PlaceId } from '../places';
import { UNREAD_POLL_MS, useUnreadStore } from '../store/unread';
import { formatNumber, strings } from '../strings';
import { usePendingApps } from '../apps/pending';
import { BellIcon, GearIcon, KeyIcon, OutboxIcon, OverviewIcon, PenIcon, PeopleIcon, PersonIcon, PollIcon, SearchIcon, StreamIcon, TernMark, WebmentionIcon } from './icons';

const ICONS: Record<PlaceId, () => React.JSX.Element> = {
  stream: StreamIcon,
  search: SearchIcon,
  notifications: BellIcon,
  compose: PenIcon,
  profile: PersonIcon,
  people: PeopleIcon,
  polls: PollIcon,
  deliveries: OutboxIcon,
  webmentions: WebmentionIcon,
  apps: KeyIcon,
  settings: GearIcon,
  overview: OverviewIcon,
};

const SHORTCUTS: Partial<Record<PlaceId, string>> = { compose: 'n', search: '/' };

export function Sidebar({ current, handle }: { current: PlaceId; handle: string | null }) {
  const unread = useUnreadStore((state) => state.count);
  const refreshUnread = useUnreadStore((state) => state.refresh);
  const waitingApps = usePendingApps().length;

  useEffect(() => {
    void refreshUnread();
    const timer = setInterval(() => void refreshUnread(), UNREAD_POLL_MS);
    return () => clearInterval(timer);
  }, [refreshUnread]);
  useChanges(['notifications'], () => void refreshUnread(), 1_000);

  return (
    <aside className="sidebar">
      <div className="sidebar__brand">
        <TernMark />
        <div className="sidebar__who">
          <span className="sidebar__name">{strings.appName}</span>
          {handle && <span className="sidebar__handle">{handle}</span>}
        </div>
      </div>
      <nav aria-label={strings.places.label}>
        <ul className="places">
          {PLACES.map((place) => {
            const PlaceIcon = ICONS[place.id];
            const shortcut = SHORTCUTS[place.id];
            const count = place.id === 'notifications' ? unread : place.id === 'apps' ? waitingApps : 0;
            return (
              <li key={place.id} className={place.id === 'overview' ? 'places__item--secondary' : undefined}>
                <a
                  className="places__link"
                  href={hrefOf(place.id)}
                  aria-current={place.id === current ? 'page' : undefined}
                  aria-keyshortcuts={shortcut}
                >
                  <PlaceIcon />
                  <span className="places__label">{place.label}</span>
                  {count > 0 && (
                    <span className="badge" data-testid={place.id === 'apps' ? 'apps-badge' : 'unread-badge'}>
                      <span aria-hidden="true">{formatNumber(count)}</span>
                      <span className="visually-hidden">{place.id === 'apps' ? strings.places.waiting(count) : strings.places.unread(count)}</span>
                    </span>
                  )}
                  {shortcut && (
                    <kbd className="places__shortcut" aria-hidden="true">
                      {shortcut}
                    </kbd>
                  )}
                </a>
              </li>
            );
          })}
        </ul>
      </nav>
    </aside>
  );
}
