// The app:// protocol: serves the built renderer to the window instead of file://, with the
// same strict CSP as headless mode. Only files inside the renderer folder are served
// (policy/app-url.ts resolveAppFile decides which).
import { net, protocol } from 'electron';
import { join, normalize, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { UI_CSP } from '../core/ipc/http-transport';
import { APP_SCHEME, isAppUrl, resolveAppFile } from './policy/app-url';

export { APP_HOST, APP_ORIGIN, APP_SCHEME } from './policy/app-url';

/** Must run before the app is ready. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    // stream: <video>/<audio> of the author's uploads play from app:// (media/ui-routes).
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, stream: true } },
  ]);
}

export function handleAppProtocol(rendererDir: string, media?: (request: Request) => Promise<Response | null>): void {
  protocol.handle(APP_SCHEME, async (request) => {
    // Uploads and the remote media proxy (media/ui-routes.ts), answered by the core.
    const answer = media === undefined || !isAppUrl(request.url) ? null : await media(request);
    if (answer !== null) return answer;
    const file = resolveAppFile(rendererDir, request.url, { join, normalize, sep });
    if (!file) return new Response('Not found', { status: 404 });
    const response = await net.fetch(pathToFileURL(file).href);
    const headers = new Headers(response.headers);
    headers.set('Content-Security-Policy', UI_CSP);
    headers.set('X-Content-Type-Options', 'nosniff');
    headers.set('Referrer-Policy', 'no-referrer');
    return new Response(response.body, { status: response.status, headers });
  });
}
