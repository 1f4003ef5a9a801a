// The queue rows of one post, for the list under its delivery state. deliveries.list has no
// filter by post, so this reads the newest pages and keeps the post's rows (its Create and any
// Update share the post's id in `activity.apId` for the Create only — see the report).
import type { DeliveriesView, DeliveryRowView } from '../../electron/ipc/author-contract';
import { call } from '../api';

const PAGE = 100;
const MAX_PAGES = 5;

export async function fetchPostDeliveries(apId: string): Promise<DeliveryRowView[]> {
  const rows: DeliveryRowView[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer: DeliveriesView = await call('deliveries.list', { limit: PAGE, cursor, state: 'all' });
    rows.push(...answer.items.filter((row) => row.activity.apId === apId));
    cursor = answer.nextCursor;
    if (cursor === null) break;
  }
  return rows;
}
