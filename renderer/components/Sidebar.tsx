// The left column: Tern's mark and the places the author can go. The current place is marked
// with aria-current, which the stylesheet also uses, so it is obvious to eyes and to ears.
import { PLACES, hrefOf, type PlaceId } from '../places';
import { strings } from '../strings';
import { OverviewIcon, TernMark } from './icons';

const ICONS: Record<PlaceId, () => React.JSX.Element> = { overview: OverviewIcon };

export function Sidebar({ current }: { current: PlaceId }) {
  return (
    <aside className="sidebar">
      <div className="sidebar__brand">
        <TernMark />
        <span className="sidebar__name">{strings.appName}</span>
      </div>
      <nav aria-label={strings.places.label}>
        <ul className="places">
          {PLACES.map((place) => {
            const PlaceIcon = ICONS[place.id];
            return (
              <li key={place.id}>
                <a
                  className="places__link"
                  href={hrefOf(place.id)}
                  aria-current={place.id === current ? 'page' : undefined}
                >
                  <PlaceIcon />
                  <span>{place.label}</span>
                </a>
              </li>
            );
          })}
        </ul>
      </nav>
    </aside>
  );
}
