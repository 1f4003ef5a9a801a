// Scopes Tern grants: IndieAuth's `profile` (and `email`, which Tern has none to give),
// Micropub's `create`, `update`, `delete`, `media`, and the Mastodon client API's `read`,
// `write`, `follow`, `push`. A requested scope Tern does not know is dropped before the author
// sees the request: it would grant nothing. Mastodon's granular scopes (`read:statuses`,
// `write:media`…) are shown and granted as their top-level scope, so the author approves
// exactly what the app will be able to do.

export const SCOPES = ['profile', 'create', 'update', 'delete', 'media', 'read', 'write', 'follow', 'push'] as const;
export type Scope = (typeof SCOPES)[number];
/** What the IndieAuth metadata advertises (the Mastodon ones are for /oauth/authorize). */
export const INDIEAUTH_SCOPES = SCOPES.slice(0, 5);

/** The Mastodon client API's scopes (docs.joinmastodon.org/api/oauth-scopes). */
export const MASTODON_SCOPES = ['read', 'write', 'follow', 'push'] as const;
export type MastodonScope = (typeof MASTODON_SCOPES)[number];

const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
const GRANULAR = /^(read|write|follow|push):[a-z_:]+$/;

/** The known scopes of a space-separated list, each once, in Tern's order. */
export function knownScopes(scope: string | null | undefined): Scope[] {
  const asked = new Set(
    (scope ?? '')
      .split(' ')
      .filter((s) => SCOPE_TOKEN.test(s))
      .map((s) => (GRANULAR.test(s) ? s.slice(0, s.indexOf(':')) : s)),
  );
  return SCOPES.filter((s) => asked.has(s));
}

export function joinScopes(scopes: readonly string[]): string {
  return scopes.join(' ');
}

export function hasScope(granted: string, scope: Scope): boolean {
  return granted.split(' ').includes(scope);
}
