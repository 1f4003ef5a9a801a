// Finding the public address in what a tunnel prints. cloudflared's quick tunnel prints
// https://<words>.trycloudflare.com in a box, ngrok (with --log stdout) a line with
// url=https://<id>.ngrok-free.app, Tailscale Funnel https://<machine>.<tailnet>.ts.net/. What
// they have in common, and what a help or documentation link lacks, is that the public
// address is a bare https origin: an https URL with no path, query or fragment.
const HTTPS_URL = /https:\/\/[^\s"'<>|`\\]+/g;

/** The first bare https origin in a line of a tunnel's output, or null. */
export function publicUrlIn(line: string): string | null {
  for (const match of line.matchAll(HTTPS_URL)) {
    const text = match[0].replace(/[.,;:)\]]+$/, '');
    if (!URL.canParse(text)) continue;
    const url = new URL(text);
    if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) continue;
    if (!url.hostname.includes('.')) continue;
    return url.origin;
  }
  return null;
}
