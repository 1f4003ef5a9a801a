// `npm run db -- <command>`: the process around migrations/commands.ts.
import { main } from './commands';

process.exitCode = main(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});
