// Revision 0d4f0c70f784: Tern's own, after the spec's chain. Indexes the parent an inbox or
// outbox object replies to (its `inReplyTo`, an IRI or an object with an id), so recounting a
// post's replies_count is an index look-up instead of a JSON scan of both tables on every Create;
// and inbox rows by the outbox object they relate to, for the like/announce recounts (which
// otherwise read every Like or Announce ever received); and the incoming activities still to
// process, in the processor's order, so finding the due ones does not read the processed ones.
// Indexes only: no table or row changes, and downgrading drops them; but text that is not JSON
// in ap_object, which a tool can store past the spec revisions' CHECK, failed the inReplyTo
// indexes with 'malformed JSON' and the revision aborted: it is then kept inside an object,
// {"value": <text>}, its text in replaced_value, as a table rebuild keeps it
// (migrations/replaced-values.ts).
//
// Frozen: literal SQL, never generated from db/schema.ts (see f5717d82b3ff_initial.ts). The
// expression is the one db/schema.ts declares and federation/process/counters.ts queries by:
// SQLite uses an expression index only for that same expression.
import type { Revision } from './revision';
import { replacingRefusedOnFailure } from './replaced-values';

const UPGRADE = `
CREATE INDEX ix_inbox_in_reply_to ON inbox (coalesce(json_extract(ap_object, '$.inReplyTo.id'), json_extract(ap_object, '$.inReplyTo')));
CREATE INDEX ix_outbox_in_reply_to ON outbox (coalesce(json_extract(ap_object, '$.inReplyTo.id'), json_extract(ap_object, '$.inReplyTo')));
CREATE INDEX ix_inbox_relates_to_outbox_object_id ON inbox (relates_to_outbox_object_id);
CREATE INDEX ix_incoming_activity_due ON incoming_activity (next_try, id) WHERE is_processed = 0 AND is_errored = 0;
`;

const DOWNGRADE = `
DROP INDEX ix_incoming_activity_due;
DROP INDEX ix_inbox_relates_to_outbox_object_id;
DROP INDEX ix_outbox_in_reply_to;
DROP INDEX ix_inbox_in_reply_to;
`;

export const processingIndexes: Revision = {
  id: '0d4f0c70f784',
  parent: '4ab54becec04',
  description: 'indexes: in_reply_to, inbox relates_to_outbox_object_id, due incoming_activity',
  upgrade: (sqlite) => {
    for (const statement of UPGRADE.trim().split('\n')) replacingRefusedOnFailure(sqlite, ['inbox', 'outbox'], 'upgrade to 0d4f0c70f784', () => sqlite.exec(statement));
  },
  downgrade: (sqlite) => {
    sqlite.exec(DOWNGRADE);
  },
};
