// The Webmentions view's channels: received webmentions grouped by post, and sent ones with
// their delivery state. Inputs are zod-checked like every channel (contract.ts spreads these).
import { z } from 'zod';
import type { ReceivedWebmentionsPage, SentWebmentionsPage } from '../webmention/views';

export type { ReceivedWebmentionView, SentWebmentionView, WebmentionGroupView } from '../webmention/views';

const page = { cursor: z.string().regex(/^\d{1,15}$/).nullish(), limit: z.number().int().min(1).max(100).default(20) };

export const webmentionInputs = {
  'webmentions.received': z.object(page).strict(),
  'webmentions.sent': z.object(page).strict(),
} as const;

export interface WebmentionOutputs {
  'webmentions.received': ReceivedWebmentionsPage;
  'webmentions.sent': SentWebmentionsPage;
}
