// The Apps part of the IPC contract: sign-in requests waiting for the author's consent, the
// author's answer, and the apps holding a token (Settings → Apps with access). Spread into
// contract.ts; the renderer imports only the types.
import { z } from 'zod';
import type { AppAccess, PendingAuthorization, SignInRefusals } from '../indieauth/service';
import { SCOPES } from '../indieauth/scopes';

export type { AppAccess, PendingAuthorization, SignInRefusals };

export const appsInputs = {
  'apps.pending': z.object({}).strict(),
  'apps.decide': z
    .object({
      id: z.string().regex(/^[A-Za-z0-9_-]{16}$/),
      approve: z.boolean(),
      scopes: z.array(z.enum(SCOPES)).max(SCOPES.length).default([]),
    })
    .strict(),
  /** The waiting requests the app showed (PendingAuthorization.id): all of them, or one redirect
   * host's. Named, so a request that came in since is never declined unseen. */
  'apps.declineAll': z.object({ ids: z.array(z.string().min(1).max(64)).min(1).max(1000) }).strict(),
  'apps.refusals': z.object({}).strict(),
  'apps.list': z.object({}).strict(),
  'apps.revoke': z.object({ id: z.number().int().positive() }).strict(),
} as const;

export interface AppsOutputs {
  'apps.pending': PendingAuthorization[];
  'apps.decide': { redirectUri: string };
  'apps.declineAll': { declined: number };
  'apps.refusals': SignInRefusals;
  'apps.list': AppAccess[];
  'apps.revoke': { revoked: number };
}
