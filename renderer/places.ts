// The places of the sidebar (UX.md: Stream, Notifications, Compose, …). Only places that
// exist are listed; each is reached at #/<id>, so Back and Forward work and a place can be
// linked. Unknown addresses fall back to the first place.
import { useSyncExternalStore } from 'react';
import { strings } from './strings';

export const PLACES = [{ id: 'overview', label: strings.places.overview }] as const;
export type PlaceId = (typeof PLACES)[number]['id'];

export const hrefOf = (place: PlaceId) => `#/${place}`;

function placeFromHash(hash: string): PlaceId {
  const id = hash.replace(/^#\/?/, '');
  return PLACES.find((p) => p.id === id)?.id ?? PLACES[0].id;
}

function subscribe(onChange: () => void) {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
}

export function useCurrentPlace(): PlaceId {
  return useSyncExternalStore(subscribe, () => placeFromHash(window.location.hash));
}
