// The Apps part of the IPC contract: sign-in requests waiting for the author's consent, the
// author's answer, and the apps holding a token (Settings → Apps with access). Spread into
// contract.ts; the renderer imports only the types.
import { z } from 'zod';
import type { AppAccess, PendingAuthorization } from '../indieauth/service';
import { SCOPES } from '../indieauth/scopes';

export type { AppAccess, PendingAuthorization };

export const appsInputs = {
  'apps.pending': z.object({}).strict(),
  'apps.decide': z
    .object({
      id: z.string().regex(/^[A-Za-z0-9_-]{16}$/),
      approve: z.boolean(),
      scopes: z.array(z.enum(SCOPES)).max(SCOPES.length).default([]),
    })
    .strict(),
  'apps.list': z.object({}).strict(),
  'apps.revoke': z.object({ id: z.number().int().positive() }).strict(),
} as const;

export interface AppsOutputs {
  'apps.pending': PendingAuthorization[];
  'apps.decide': { redirectUri: string };
  'apps.list': AppAccess[];
  'apps.revoke': { revoked: number };
}
