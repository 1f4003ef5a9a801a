// The signal between the listener and the inbox processor: the listener says "a row was queued
// in incoming_activity" right after inserting it, and the processor loop wakes up instead of
// waiting for its next poll. A signal, not a queue: the table is the queue, so a missed or
// repeated signal costs nothing but a poll.

export interface QueuedActivity {
  /** incoming_activity.id */
  id: number;
  /** The activity's id, when it has one. */
  apId: string | null;
  /** The activity's first type, e.g. "Follow". */
  type: string;
  /** Who signed the request (the key owner; equals the activity's actor). */
  sentBy: string;
}

export type InboxQueuedListener = (queued: QueuedActivity) => void;

export interface InboxEvents {
  /** Subscribes to "an activity was queued"; returns the function that unsubscribes. */
  onQueued(listener: InboxQueuedListener): () => void;
  /** Tells every subscriber. A subscriber that throws is reported and never breaks the sender. */
  queued(queued: QueuedActivity): void;
}

export function createInboxEvents(onListenerError: (error: unknown) => void = (error) => console.error(error)): InboxEvents {
  const listeners = new Set<InboxQueuedListener>();
  return {
    onQueued(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    queued(queued) {
      for (const listener of [...listeners]) {
        try {
          listener(queued);
        } catch (error) {
          onListenerError(error);
        }
      }
    },
  };
}
