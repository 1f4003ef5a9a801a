// What the inbox processor does with one queued incoming_activity row, wherever it runs (the
// inbox worker, or the main thread in tests): webmentions are queued in the same table
// (webmention_source), with the same loop and retries; everything else is an activity.
import type { IncomingActivity } from '../../../db/schema';
import { isQueuedWebmention, processIncomingWebmention } from '../webmention/verify';
import { processIncomingActivity, type ProcessDeps, type ProcessOutcome } from './process/index';

export function processQueuedRow(deps: ProcessDeps, row: IncomingActivity): Promise<ProcessOutcome> {
  return isQueuedWebmention(row) ? processIncomingWebmention(deps, row) : processIncomingActivity(deps, row);
}
