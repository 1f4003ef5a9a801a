// How the consent card names the app asking to sign in.
import { describe, expect, it } from 'vitest';
import { clientIdentity } from './client-identity';

describe('the consent card’s app', () => {
  // A page anywhere could call itself Quill: the card showed "Quill" and quill.p3k.io, never
  // the address the request really came from.
  it('an app identified by its address is shown by that address’s host, whatever name it gives itself', () => {
    expect(clientIdentity({ clientId: 'https://evil.example/app', name: 'Quill', url: null, registered: false })).toEqual({
      title: 'Quill (evil.example)',
      host: 'evil.example',
      address: 'https://evil.example/app',
      claimed: false,
    });
    expect(clientIdentity({ clientId: 'https://quill.p3k.io/', name: 'quill.p3k.io', url: null, registered: false }).title).toBe('quill.p3k.io');
  });

  it('a registered app’s home page is marked as its own claim', () => {
    expect(clientIdentity({ clientId: 'tern-app-x', name: 'Ivory', url: 'https://tapbots.com/ivory/', registered: true })).toEqual({ title: 'Ivory', host: null, address: 'https://tapbots.com/ivory/', claimed: true });
    expect(clientIdentity({ clientId: 'tern-app-x', name: 'Ivory', url: null, registered: true })).toMatchObject({ address: 'tern-app-x', claimed: false });
  });
});
