// What the datetime CHECKs and triggers of revision 5d0e8a3c71f4 cost on the hottest inserts:
// 10,000 rows into inbox and into incoming_activity, written as Tern writes them (toISOString,
// so the triggers never rewrite), one transaction per 10,000, into a database at 70cce0da20c3
// (before) and one at head (after), in turns so that both see the same machine. Prints the CPU µs
// per row, the least and the median of the runs. `npx tsx bench/datetime-triggers.ts [--offset]`:
// --offset writes '+02:00' values, as another tool might, so the triggers rewrite every row.
import { openSqlite, type Sqlite } from '../db/client';
import { upgrade } from '../migrations/runner';

const ROWS = 10_000;
const RUNS = 21;
const offset = process.argv.includes('--offset');
const TABLES = ['inbox', 'incoming_activity'] as const;

function database(target: string): Sqlite {
  const sqlite = openSqlite(':memory:');
  upgrade(sqlite, target);
  sqlite.exec("INSERT INTO actor (id, created_at, updated_at, ap_id, ap_actor, ap_type) VALUES (1, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z', 'https://a.example/u', '{}', 'Person')");
  return sqlite;
}

const at = (i: number) => {
  const iso = new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString();
  return offset ? iso.replace('.000Z', '+02:00') : iso;
};

/** A function inserting ROWS rows into `table` of `sqlite`, returning µs per row. */
function inserter(sqlite: Sqlite, table: (typeof TABLES)[number]): () => number {
  const insert =
    table === 'inbox'
      ? sqlite.prepare("INSERT INTO inbox (created_at, updated_at, actor_id, server, is_hidden_from_stream, ap_actor_id, ap_type, ap_id, ap_published_at, ap_object, visibility, is_bookmarked, is_deleted, replies_count) VALUES (?, ?, 1, 'a.example', 0, 'https://a.example/u', 'Note', ?, ?, '{\"type\":\"Note\",\"content\":\"hello\"}', 'PUBLIC', 0, 0, 0)")
      : sqlite.prepare("INSERT INTO incoming_activity (created_at, sent_by_ap_actor_id, ap_id, ap_object, tries, next_try, is_processed, is_errored) VALUES (?, 'https://a.example/u', ?, '{\"type\":\"Create\"}', 0, ?, 0, 0)");
  let next = 0;
  const run = sqlite.transaction(() => {
    for (let i = next; i < next + ROWS; i++) {
      const t = at(i);
      if (table === 'inbox') insert.run(t, t, `https://a.example/n/${i}`, t);
      else insert.run(t, `https://a.example/a/${i}`, t);
    }
    next += ROWS;
  });
  // CPU time of this process, not wall time: the machine may be busy with other work.
  return () => {
    const start = process.cpuUsage();
    run();
    const used = process.cpuUsage(start);
    return (used.user + used.system) / ROWS;
  };
}

const summary = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  return { least: sorted[0]!, median: sorted[Math.floor(sorted.length / 2)]! };
};

for (const table of TABLES) {
  const before = database('70cce0da20c3');
  const after = database('head');
  const runs = { before: inserter(before, table), after: inserter(after, table) };
  const times = { before: [] as number[], after: [] as number[] };
  for (let r = 0; r < RUNS; r++) {
    times.before.push(runs.before());
    times.after.push(runs.after());
  }
  const b = summary(times.before);
  const a = summary(times.after);
  console.log(
    `${table}${offset ? ' (+02:00 values)' : ''}: before ${b.least.toFixed(2)} µs/row (median ${b.median.toFixed(2)}), ` +
      `after ${a.least.toFixed(2)} µs/row (median ${a.median.toFixed(2)}); added ${(a.least - b.least).toFixed(2)} µs (median ${(a.median - b.median).toFixed(2)})`,
  );
  before.close();
  after.close();
}
