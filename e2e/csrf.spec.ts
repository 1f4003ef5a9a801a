// A web page in the author's browser cannot change anything through the headless transport,
// whether it is same-site (another port of 127.0.0.1) or cross-site (localhost): each way a page
// can send a POST without Tern's token tries to turn on "work offline", and the state is then
// read with the token.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from './fixtures';

async function pageServer(host: string): Promise<{ server: Server; origin: string }> {
  const server = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end('<!doctype html><title>another site</title>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, origin: `http://${host}:${(server.address() as AddressInfo).port}` };
}

/** The POSTs the page sends to Tern's API: fetch (no-cors and cors), beacons, a form. */
const ATTEMPTS = 6;

for (const host of ['127.0.0.1', 'localhost']) {
  test(`a page on ${host}:<another port> cannot call Tern's API, though the author has Tern open`, async ({ tern, page }) => {
    const other = await pageServer(host);
    try {
      await page.goto(tern.url);
      await expect(page.getByRole('navigation', { name: 'Places' })).toBeVisible();
      await page.goto(`${other.origin}/`);
      const target = `${tern.origin}/ipc/connectivity.setWorkOffline`;
      // Every request to Tern that the browser sent has had its answer (or failed) before the state is read.
      let done = 0;
      const count = (request: { url(): string }) => void (request.url() === target && done++);
      page.on('requestfinished', count);
      page.on('requestfailed', count);
      await page.evaluate(async (target) => {
        const body = JSON.stringify({ workOffline: true });
        const attempt = (send: () => Promise<unknown>) => send().catch(() => undefined);
        await attempt(() => fetch(target, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'Content-Type': 'text/plain' }, body }));
        await attempt(() => fetch(target, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'Content-Type': 'application/json' }, body }));
        await attempt(() => fetch(target, { method: 'POST', mode: 'cors', credentials: 'include', headers: { 'Content-Type': 'application/json' }, body }));
        navigator.sendBeacon(target, new Blob([body], { type: 'application/json' }));
        navigator.sendBeacon(target, body);
        // A form posted into a frame, its body shaped as JSON.
        const frame = document.createElement('iframe');
        frame.name = 'sink';
        document.body.append(frame);
        const form = document.createElement('form');
        form.method = 'POST';
        form.action = target;
        form.enctype = 'text/plain';
        form.target = 'sink';
        const input = document.createElement('input');
        input.name = '{"workOffline":true,"x":"';
        input.value = '"}';
        form.append(input);
        document.body.append(form);
        form.submit();
      }, target);
      // A cors POST with JSON is preflighted, and the preflight refused: the POST is never sent.
      await expect.poll(() => done).toBeGreaterThanOrEqual(ATTEMPTS - 1);
      const state = await fetch(`${tern.origin}/ipc/connectivity.get`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tern.token}`, 'content-type': 'application/json' },
        body: '{}',
      }).then((r) => r.json());
      expect(state.value.workOffline).toBe(false);
    } finally {
      other.server.close();
    }
  });
}
