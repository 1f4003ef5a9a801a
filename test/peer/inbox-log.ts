// What a test peer has received in its inboxes, and a way to wait for the next thing to arrive.
// Waiting is event-based: every recorded activity is offered to the pending waiters, so a test
// never sleeps and never polls.
import type { SignerReport } from './signer';

export interface ReceivedActivity {
  /** Position in arrival order, starting at 0; lets a test ask only for what came after a mark. */
  seq: number;
  /** Short ActivityStreams type name: 'Follow', 'Create', 'EmojiReact', ... */
  type: string;
  id: string | null;
  actorId: string | null;
  /** The id of the activity's object (an embedded object's id, or the IRI it points to). */
  objectId: string | null;
  /**
   * The activity as Fedify parsed it, written back as compacted JSON-LD. Fedify's compaction, not
   * the sender's: e.g. the Public collection reads 'as:Public' and one-element arrays are unwrapped.
   */
  json: Record<string, unknown>;
  /** The request body exactly as the sender posted it. */
  raw: unknown;
  /** Which inbox it came to: the actor's own or the shared one. */
  inbox: 'personal' | 'shared';
  /** How the activity was authenticated; Fedify rejects unauthenticated activities with 401. */
  signer: SignerReport;
  receivedAt: Date;
}

export type ReceivedPredicate = (activity: ReceivedActivity) => boolean;

interface Waiter {
  predicate: ReceivedPredicate;
  resolve: (activity: ReceivedActivity) => void;
}

export class InboxLog {
  readonly entries: ReceivedActivity[] = [];
  readonly #waiters = new Set<Waiter>();

  record(entry: Omit<ReceivedActivity, 'seq'>): ReceivedActivity {
    const full: ReceivedActivity = { ...entry, seq: this.entries.length };
    this.entries.push(full);
    for (const waiter of [...this.#waiters]) {
      if (safeTest(waiter.predicate, full)) {
        this.#waiters.delete(waiter);
        waiter.resolve(full);
      }
    }
    return full;
  }

  /**
   * Resolves with the first received activity (already received or arriving later) that
   * matches. Rejects after `timeoutMs` with a list of what did arrive, to make failures readable.
   */
  waitFor(predicate: ReceivedPredicate, timeoutMs = 10_000): Promise<ReceivedActivity> {
    const found = this.entries.find((entry) => safeTest(predicate, entry));
    if (found != null) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        predicate,
        resolve: (activity) => {
          clearTimeout(timer);
          resolve(activity);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        const seen = this.entries.map((e) => `${e.type} ${e.id ?? '(no id)'} from ${e.actorId ?? '?'}`);
        reject(new Error(`no matching activity within ${timeoutMs} ms; received: [${seen.join('; ')}]`));
      }, timeoutMs);
      this.#waiters.add(waiter);
    });
  }
}

function safeTest(predicate: ReceivedPredicate, entry: ReceivedActivity): boolean {
  try {
    return predicate(entry);
  } catch {
    return false; // a predicate poking at a field another activity lacks is simply no match
  }
}
