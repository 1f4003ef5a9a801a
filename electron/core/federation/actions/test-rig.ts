// Test support for the author's actions: a real core in a temp folder with its listener on
// 127.0.0.1 (so Fedify peers fetch our actor and verify our signatures), the inbox and delivery
// loops running, and connectivity under the test's control. Not imported by production code.
import { eq } from 'drizzle-orm';
import { outgoingActivity, type OutgoingActivity } from '../../../../db/schema';
import { manualSource, type ManualSource } from '../../connectivity/watch';
import type { Core } from '../../core';
import { openListeningCore } from '../../listener/test-support';
import type { AuthorService } from '.';

export interface AuthorRig {
  core: Core;
  author: AuthorService;
  /** Our actor id (the listener's URL). */
  url: string;
  /** The machine's network as the connectivity watch sees it. */
  net: ManualSource;
  rowsOf(outboxObjectId: number): OutgoingActivity[];
  close(): Promise<void>;
}

export async function openAuthorRig(): Promise<AuthorRig> {
  const t = await openListeningCore('alice');
  const net = manualSource(true);
  t.core.connectivity.setSource(net);
  t.core.loops.inbox.start();
  t.core.loops.delivery.start();
  return {
    core: t.core,
    author: t.core.services.author,
    url: t.url,
    net,
    rowsOf: (id) => t.core.db.select().from(outgoingActivity).where(eq(outgoingActivity.outboxObjectId, id)).orderBy(outgoingActivity.id).all(),
    async close() {
      await t.core.loops.delivery.stop({ graceMs: 0 });
      await t.core.loops.inbox.stop();
      await t.close();
    },
  };
}
