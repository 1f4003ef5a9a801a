// npm run torture — the long fault runs of docs/reliability.md: SIGKILL at random moments, 100
// times each (TORTURE_KILLS to change), during a delivery to 1,000 followers, a backup, a restore and an
// upgrade of 200,000 rows (test/faults/power-loss.ts). Prints what held. The CI suite runs the same with a few
// kills (test/faults/power-loss.test.ts).
import { tortureBackupRestore, tortureDelivery, tortureInbox, tortureMigration, tortureSearchRebuild, type KillResult } from '../test/faults/power-loss';

const kills = Number(process.env.TORTURE_KILLS ?? 100);
const line = (r: KillResult, extra = '') =>
  console.log(
    `${r.scenario.padEnd(9)} ${String(r.kills).padStart(4)} kills, ${String(r.midTask).padStart(4)} mid-task | integrity failures ${r.integrityFailures} | rows lost ${r.rowsLost} | leftovers ${r.leftovers.length}${extra}${r.notes.length ? `\n          ${r.notes.join('\n          ')}` : ''}`,
  );

const started = performance.now();
const delivery = await tortureDelivery(kills, 1_000);
line(delivery, ` | delivered to all ${delivery.followers}: ${delivery.allDelivered ? 'yes' : 'NO'} | requests ${delivery.received} | acknowledged then sent again ${delivery.ackedResent} (${(delivery.ackedResent / Math.max(1, delivery.midTask)).toFixed(1)} per kill)`);
const inbox = await tortureInbox(kills);
line(inbox, ` | sent ${inbox.sent}, acknowledged ${inbox.acknowledged}, acknowledged but lost ${inbox.acknowledgedLost}, not processed exactly once ${inbox.notProcessedOnce}`);
for (const r of await tortureBackupRestore(kills)) line(r);
line(await tortureMigration(kills, 200_000));
line(await tortureSearchRebuild(kills, 100_000));
console.log(`torture done in ${Math.round((performance.now() - started) / 1000)} s`);
const bad = inbox.acknowledgedLost + inbox.notProcessedOnce + inbox.integrityFailures + delivery.integrityFailures + delivery.rowsLost + delivery.leftovers.length + (delivery.allDelivered ? 0 : 1);
process.exit(bad > 0 ? 1 : 0);
