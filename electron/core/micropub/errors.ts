// What the Micropub request parser (micropub.ts) and its media step (media.ts) share: the error
// a request is refused with, and the shape of mf2 properties.
import type { Scope } from '../indieauth/scopes';

export class MicropubError extends Error {
  override name = 'MicropubError';
  constructor(
    readonly code: 'invalid_request' | 'insufficient_scope' | 'unauthorized' | 'forbidden',
    message: string,
    readonly status: 400 | 401 | 403 | 404 = 400,
    readonly scope?: Scope,
  ) {
    super(message);
  }
}

/** mf2 properties: each a list of strings or objects ({html}, {value, alt}). */
export type Properties = Record<string, unknown[]>;
