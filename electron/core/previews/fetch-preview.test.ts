// What a failed fetch of a link preview says: refused for good, or another try later.
import { describe, expect, it } from 'vitest';
import { BlockedAddressError, RefusedHostError } from '../net/errors';
import { fetchLinkPreview } from './fetch-preview';

/** A client whose every fetch fails with `error`. */
const failing = (error: Error) => ({ fetch: () => Promise.reject(error) });

describe('a private address the guard refuses', () => {
  it('named by the link itself (an IP or a local-only name) gives no preview, for good', async () => {
    expect(await fetchLinkPreview(failing(new BlockedAddressError('http://192.168.1.1/admin', '192.168.1.1')), 'http://192.168.1.1/admin')).toMatchObject({ kind: 'none' });
    expect(await fetchLinkPreview(failing(new BlockedAddressError('http://[::1]:8080/', '::1')), 'http://[::1]:8080/')).toMatchObject({ kind: 'none' });
    expect(await fetchLinkPreview(failing(new RefusedHostError('http://printer.local/', 'printer.local')), 'http://printer.local/')).toMatchObject({ kind: 'none' });
  });

  it('reached through a redirect (a captive portal’s login page on 192.168.x.x or a local name) is a try that got no answer', async () => {
    const link = 'https://news.example/article';
    expect(await fetchLinkPreview(failing(new BlockedAddressError('http://192.168.7.1/login?from=news.example', '192.168.7.1')), link)).toMatchObject({ kind: 'retry' });
    expect(await fetchLinkPreview(failing(new RefusedHostError('http://wifi.local/login', 'wifi.local')), link)).toMatchObject({ kind: 'retry' });
  });

  it('that the link’s public name resolved to (a portal’s DNS answering every name) is a try that got no answer', async () => {
    const link = 'https://news.example/article';
    expect(await fetchLinkPreview(failing(new BlockedAddressError(link, '10.0.0.1')), link)).toMatchObject({ kind: 'retry' });
  });
});
