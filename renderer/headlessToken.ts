// The token of headless mode, on the page's side. Tern prints http://127.0.0.1:<port>/#token=…:
// a fragment is never sent to a server (nor in a Referer), so the token reaches no other web
// server on 127.0.0.1, as a cookie would (browsers do not keep cookies apart by port). The page
// takes it from its address once, before the app reads its route, keeps it in sessionStorage
// (this tab and this origin only; it outlives a reload) and api.ts sends it as a bearer header
// with every call. Under Electron there is none: window.tern needs no token.
const KEY = 'tern.headlessToken';
/** Where sessionStorage is refused (storage turned off): this page's life only. */
let inMemory: string | null = null;

/** `#token=T`, or `#token=T#/stream` (the link with a place after it): the token and the rest of the fragment. */
export function splitTokenFragment(hash: string): { token: string; rest: string } | null {
  const match = /^#token=([^#]+)(#.*)?$/.exec(hash);
  if (!match) return null;
  try {
    const token = decodeURIComponent(match[1]!);
    return token === '' ? null : { token, rest: match[2] ?? '' };
  } catch {
    return null;
  }
}

/** Takes the token out of the address (into this tab's storage), leaving the place, if any: now,
 * and whenever the link is opened again in this tab (only the fragment changes: no reload).
 * Called before the app listens to the fragment, so the app never sees the token as a route. */
export function adoptTokenFromAddress(): void {
  adopt();
  window.addEventListener('hashchange', adopt);
}

function adopt(): void {
  const found = splitTokenFragment(window.location.hash);
  if (!found) return;
  rememberToken(found.token);
  window.history.replaceState(window.history.state, '', `${window.location.pathname}${window.location.search}${found.rest}`);
}

export function rememberToken(token: string): void {
  try {
    sessionStorage.setItem(KEY, token);
    inMemory = null;
  } catch {
    inMemory = token; // kept in memory only (storage turned off, or full)
  }
}

export function headlessToken(): string | null {
  try {
    // A token kept in memory when storing it failed (a full storage) is still this page's.
    return inMemory ?? sessionStorage.getItem(KEY);
  } catch {
    return inMemory;
  }
}
