// The queue rows of one post, for the list under its delivery state: its Create and the rows of
// the activities about it (an edit's Update, a Delete), newest first, all pages.
import type { DeliveriesView, DeliveryRowView } from '../../electron/core/ipc/author-contract';
import { call } from '../api';

const PAGE = 100;
const MAX_PAGES = 20;

export async function fetchPostDeliveries(apId: string): Promise<DeliveryRowView[]> {
  const rows: DeliveryRowView[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer: DeliveriesView = await call('deliveries.list', { limit: PAGE, cursor, state: 'all', postApId: apId });
    rows.push(...answer.items);
    cursor = answer.nextCursor;
    if (cursor === null) break;
  }
  return rows;
}
