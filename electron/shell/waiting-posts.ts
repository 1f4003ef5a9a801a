// "3 posts waiting": how many posts (outbox objects) still have a delivery not sent and not
// given up — one post to forty servers is one post waiting, not forty. Plain Node.
import type { Sqlite } from '../../db/client';

export function waitingPostsCounter(sqlite: Sqlite): () => number {
  const statement = sqlite.prepare(
    // A row with no outbox object (none today) counts as one of its own.
    `SELECT count(DISTINCT coalesce(outbox_object_id, -id)) AS n FROM outgoing_activity WHERE is_sent = 0 AND is_errored = 0`,
  );
  return () => (statement.get() as { n: number } | undefined)?.n ?? 0;
}
