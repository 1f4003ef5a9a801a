// Scopes Tern grants: IndieAuth's `profile` (and `email`, which Tern has none to give) and
// Micropub's `create`, `update`, `delete`, `media`. A requested scope Tern does not know is
// dropped before the author sees the request: it would grant nothing.

export const SCOPES = ['profile', 'create', 'update', 'delete', 'media'] as const;
export type Scope = (typeof SCOPES)[number];

const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** The known scopes of a space-separated list, each once, in Tern's order. */
export function knownScopes(scope: string | null | undefined): Scope[] {
  const asked = new Set((scope ?? '').split(' ').filter((s) => SCOPE_TOKEN.test(s)));
  return SCOPES.filter((s) => asked.has(s));
}

export function joinScopes(scopes: readonly string[]): string {
  return scopes.join(' ');
}

export function hasScope(granted: string, scope: Scope): boolean {
  return granted.split(' ').includes(scope);
}
