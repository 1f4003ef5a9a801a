// The places of the sidebar (UX.md: Stream, Notifications, Compose, …) and the few pages that
// open inside one of them (a thread). Each is reached at #/<id>, with its parameters after a
// `?` (#/thread?id=…&box=inbox), so Back and Forward work and a place can be linked. Unknown
// addresses fall back to the first place.
import { useSyncExternalStore } from 'react';
import { strings } from './strings';

export const PLACES = [
  { id: 'stream', label: strings.places.stream },
  { id: 'search', label: strings.places.search },
  { id: 'notifications', label: strings.places.notifications },
  { id: 'compose', label: strings.places.compose },
  { id: 'profile', label: strings.places.profile },
  { id: 'people', label: strings.places.people },
  { id: 'polls', label: strings.places.polls },
  { id: 'deliveries', label: strings.places.deliveries },
  { id: 'webmentions', label: strings.places.webmentions },
  { id: 'apps', label: strings.places.apps },
  { id: 'settings', label: strings.places.settings },
  { id: 'overview', label: strings.places.overview },
] as const;
export type PlaceId = (typeof PLACES)[number]['id'];

/** Pages that are not places of their own: they open in the column of the place they came from. */
const PAGES = ['thread'] as const;
export type PageId = (typeof PAGES)[number];
export type RouteId = PlaceId | PageId;

export interface Route {
  id: RouteId;
  params: URLSearchParams;
}

export function hrefOf(id: RouteId, params?: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params ?? {})) if (value !== undefined) query.set(key, String(value));
  const tail = query.toString();
  return tail ? `#/${id}?${tail}` : `#/${id}`;
}

export function navigate(id: RouteId, params?: Record<string, string | number | undefined>): void {
  window.location.hash = hrefOf(id, params);
}

/** Back to where the author came from (a list, a post); the first place when there is nothing before. */
export function goBack(): void {
  if (window.history.length > 1) window.history.back();
  else navigate(PLACES[0].id);
}

function isRouteId(id: string): id is RouteId {
  return PLACES.some((p) => p.id === id) || (PAGES as readonly string[]).includes(id);
}

export function parseRoute(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?', 2);
  return isRouteId(path) ? { id: path, params: new URLSearchParams(query) } : { id: PLACES[0].id, params: new URLSearchParams() };
}

function subscribe(onChange: () => void) {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
}

/** The address's fragment; a string, so React compares snapshots by value. */
const currentHash = () => window.location.hash;

export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribe, currentHash);
  return parseRoute(hash);
}

// A page (a thread) belongs to the place it was opened from, so the sidebar keeps that place
// marked and the page's Back action knows where it returns.
let lastPlace: PlaceId = PLACES[0].id;

/** The place the sidebar marks for a route. */
export function placeOf(route: Route): PlaceId {
  if (route.id !== 'thread') lastPlace = route.id;
  return lastPlace;
}
