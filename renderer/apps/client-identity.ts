// Who is asking, as the consent card says it: an app identified by its address (IndieAuth
// client_id) is shown by that address's host first — the one thing about it nobody else can
// claim; its name is its own say. A registered app's home page is what it registered, unchecked.
import type { PendingAuthorization } from '../../electron/core/ipc/apps-contract';

export interface ClientIdentity {
  /** The heading's name: the app's own name, with the client_id's host when they differ. */
  title: string;
  /** The client_id's host (URL clients); null for a registered app. */
  host: string | null;
  /** The address shown after the host: the client_id, or a registered app's home page. */
  address: string;
  /** The address is only what the app said of itself (a registered app's home page). */
  claimed: boolean;
}

export function clientIdentity(client: Pick<PendingAuthorization['client'], 'clientId' | 'name' | 'url' | 'registered'>): ClientIdentity {
  if (client.registered) return { title: client.name, host: null, address: client.url ?? client.clientId, claimed: client.url !== null };
  let host: string;
  try {
    host = new URL(client.clientId).host;
  } catch {
    return { title: client.name, host: null, address: client.clientId, claimed: false };
  }
  return { title: client.name === host ? host : `${client.name} (${host})`, host, address: client.clientId, claimed: false };
}
