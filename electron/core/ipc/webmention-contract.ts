// The Webmentions view's channels: received webmentions grouped by post (the newest of each
// post, then more of one post on demand), and sent ones with their delivery state. Inputs are zod-checked like every channel (contract.ts spreads these).
import { z } from 'zod';
import type { PostWebmentionsPage, ReceivedWebmentionsPage, SentWebmentionsPage } from '../webmention/views';

export type { PostWebmentionsPage, ReceivedWebmentionView, SentWebmentionView, WebmentionGroupView } from '../webmention/views';

const page = { cursor: z.string().regex(/^\d{1,15}$/).nullish(), limit: z.number().int().min(1).max(100).default(20) };

export const webmentionInputs = {
  'webmentions.received': z.object(page).strict(),
  'webmentions.sent': z.object(page).strict(),
  'webmentions.ofPost': z.object({ postId: z.number().int().positive(), ...page }).strict(),
} as const;

export interface WebmentionOutputs {
  'webmentions.received': ReceivedWebmentionsPage;
  'webmentions.sent': SentWebmentionsPage;
  'webmentions.ofPost': PostWebmentionsPage;
}
