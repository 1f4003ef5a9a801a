// Revision 9519a2c5ec87: Tern's own, after e7c3a9d51b20. Every Like or Announce of one of the
// author's posts recounts that post's likes or boosts from the rows (process/counters.ts:
// distinct actors, not undone or deleted). With the one-column index of 0d4f0c70f784 that count
// read every interaction row of the post from the table, so a popular post made each further
// Like slower (measured: ≈760 µs per recount at 250 Likes a post, most of the processing time
// of a Like). This index holds the whole count — post, type, deleted flag and actor — so the
// recount reads the index alone; it also serves every look-up by the post (its prefix), so it
// replaces ix_inbox_relates_to_outbox_object_id. Indexes only; downgrading puts the old one back.
//
// Frozen: literal SQL, never generated from db/schema.ts (see f5717d82b3ff_initial.ts).
import type { Revision } from './revision';

const UPGRADE = `
DROP INDEX ix_inbox_relates_to_outbox_object_id;
CREATE INDEX ix_inbox_relates_to_outbox_object_counts ON inbox (relates_to_outbox_object_id, ap_type, is_deleted, actor_id);
`;

const DOWNGRADE = `
DROP INDEX ix_inbox_relates_to_outbox_object_counts;
CREATE INDEX ix_inbox_relates_to_outbox_object_id ON inbox (relates_to_outbox_object_id);
`;

export const interactionCountsIndex: Revision = {
  id: '9519a2c5ec87',
  parent: 'e7c3a9d51b20',
  description: 'index: likes and boosts of a post counted from the index alone',
  upgrade: (sqlite) => {
    sqlite.exec(UPGRADE);
  },
  downgrade: (sqlite) => {
    sqlite.exec(DOWNGRADE);
  },
};
