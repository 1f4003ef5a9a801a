// npm run torture — the long fault runs of docs/reliability.md: SIGKILL at random moments, 100
// times each (TORTURE_KILLS to change), during a delivery to 1,000 followers, the inbox under
// load, an upload of 20 photos, a backup, a restore, an upgrade of 200,000 rows and a search-index
// rebuild of 100,000 (test/faults/power-loss.ts). Prints what held. TORTURE_ONLY=delivery,inbox,upload,backup,migration,index
// runs some of them. The CI suite runs the same with a few kills (test/faults/power-loss.test.ts).
import { tortureBackupRestore, tortureDelivery, tortureInbox, tortureMigration, tortureSearchRebuild, tortureUpload, type KillResult } from '../test/faults/power-loss';

const kills = Number(process.env.TORTURE_KILLS ?? 100);
const only = new Set((process.env.TORTURE_ONLY ?? 'delivery,inbox,upload,backup,migration,index').split(','));
let bad = 0;
const line = (r: KillResult, extra = '') => {
  bad += r.integrityFailures + r.rowsLost + r.leftovers.length;
  console.log(
    `${r.scenario.padEnd(12)} ${String(r.kills).padStart(4)} kills, ${String(r.midTask).padStart(4)} mid-task | integrity failures ${r.integrityFailures} | rows lost ${r.rowsLost} | leftovers ${r.leftovers.length}${extra}${r.leftovers.length ? `\n             left: ${[...new Set(r.leftovers)].slice(0, 5).join(', ')}` : ''}${r.notes.length ? `\n             ${r.notes.join('\n             ')}` : ''}`,
  );
};

const started = performance.now();
if (only.has('delivery')) {
  const delivery = await tortureDelivery(kills, 1_000);
  if (!delivery.allDelivered) bad++;
  line(delivery, ` | delivered to all ${delivery.followers}: ${delivery.allDelivered ? 'yes' : 'NO'} | requests ${delivery.received} | acknowledged then sent again ${delivery.ackedResent} (${(delivery.ackedResent / Math.max(1, delivery.midTask)).toFixed(1)} per kill)`);
}
if (only.has('inbox')) {
  const inbox = await tortureInbox(kills);
  bad += inbox.acknowledgedLost + inbox.notProcessedOnce;
  line(inbox, ` | sent ${inbox.sent}, acknowledged ${inbox.acknowledged}, acknowledged but lost ${inbox.acknowledgedLost}, not processed exactly once ${inbox.notProcessedOnce}`);
}
if (only.has('upload')) {
  const upload = await tortureUpload(kills, 20);
  line(upload, ` | stored in the end ${upload.stored} of 20`);
}
if (only.has('backup')) for (const r of await tortureBackupRestore(kills)) line(r);
if (only.has('migration')) line(await tortureMigration(kills, 200_000));
if (only.has('index')) line(await tortureSearchRebuild(kills, 100_000));
console.log(`torture done in ${Math.round((performance.now() - started) / 1000)} s`);
process.exit(bad > 0 ? 1 : 0);
