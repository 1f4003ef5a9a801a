// A stand-in for a tunnel program in tests: a real process that prints what cloudflared, ngrok
// or tailscale funnel print (a documentation link first, then the public address) and runs
// until it is sent SIGTERM. `--fail` prints an error and exits with code 3 instead.
//   node fake-tunnel.mjs --style cloudflared|ngrok|tailscale --host words.example [--fail]
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { style: { type: 'string', default: 'cloudflared' }, host: { type: 'string', default: 'quick-brown-fox.trycloudflare.com' }, fail: { type: 'boolean' }, url: { type: 'string' } } });
if (values.fail) {
  console.error('ERR failed to request quick Tunnel: connection refused');
  process.exit(3);
}
const host = values.host;
if (values.style === 'cloudflared') {
  console.error('INF Thank you for trying Cloudflare Tunnel. See https://developers.cloudflare.com/cloudflare-one/connections/connect-apps');
  console.error(`INF Settings: map[url:${values.url ?? 'http://127.0.0.1:4861'}]`);
  console.error('INF |  Your quick Tunnel has been created! Visit it at (it may take some time to be reachable):  |');
  console.error(`INF |  https://${host}                                                 |`);
} else if (values.style === 'ngrok') {
  console.log('t=2026-11-22T06:00:00+0000 lvl=info msg="update available" url=https://ngrok.com/download');
  console.log(`t=2026-11-22T06:00:01+0000 lvl=info msg="started tunnel" obj=tunnels name=command_line addr=http://localhost:4861 url=https://${host}`);
} else {
  console.log('Available on the internet:');
  console.log('');
  console.log(`https://${host}/`);
  console.log('|-- / proxy http://127.0.0.1:4861');
}
process.on('SIGTERM', () => {
  console.error('INF Initiating graceful shutdown');
  process.exit(0);
});
setInterval(() => {}, 1 << 30);
