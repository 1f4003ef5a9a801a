// The lookup behind status ids (ids.ts): an id holds a row id's low bits only, so the row is the
// one among (low, low + 2^21, …) up to the table's largest id whose published time matches. Both
// reads go by primary key; below 2 million rows there is one candidate.
import { inArray, max } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { inbox, outbox } from '../../../db/schema';
import type { RowKey } from '../federation/actions/reads';
import { idTimeOf, ROW_BITS, type FindKey, type IdParts } from './ids';

const STEP = 2 ** ROW_BITS;
/** SQLite's bound-variable limit is 32,766; a chunk stays well under it. */
const CHUNK = 10_000;

export function rowKeyFinder(db: DbOrTx): FindKey {
  return ({ time, origin, low }: IdParts): RowKey | null => {
    const table = origin === 'inbox' ? inbox : outbox;
    const top = db.select({ top: max(table.id) }).from(table).get()?.top ?? 0;
    for (let from = low; from <= top; from += STEP * CHUNK) {
      const ids: number[] = [];
      for (let id = from; id <= top && ids.length < CHUNK; id += STEP) ids.push(id);
      const rows = db
        .select({ id: table.id, published: table.apPublishedAt })
        .from(table as typeof inbox)
        .where(inArray(table.id, ids))
        .all();
      const hit = rows.find((r) => idTimeOf(r.published) === time);
      if (hit) return { published: hit.published, origin, id: hit.id };
    }
    return null;
  };
}
