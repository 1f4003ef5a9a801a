// The main-process side of the IPC contract: one handler per channel, each a thin adapter over
// a core service, and `dispatch`, which every transport (Electron's ipcMain, the headless HTTP
// transport) calls: it checks the input with the channel's zod schema and turns errors into
// typed results, so no transport can skip validation.
import { z } from 'zod';
import { BadInputError, ConflictError, NotFoundError, UnavailableError } from '../errors';
import { inputs, type Channel, type IpcError, type IpcResult, type Output, type ParsedInput } from './contract';
import { createSettingsService, type SettingsServiceCore } from '../settings-service';
import { followRequestPage } from '../federation/follow-requests';
import { createAuthorHandlers, type AuthorHandlersCore } from './author-handlers';
import { createPollHandlers, type PollHandlersCore } from './poll-handlers';
import { createBackup, listBackups, type BackupDeps } from '../data/backup';
import { exportArchive, exportFollowersCsv, exportFollowingCsv, saveCsvExport, type ExportDeps } from '../data/export';
import { importFollowing, type ImportDeps } from '../data/import';
import { listReceivedWebmentions, listSentWebmentions, listWebmentionsOfPost } from '../webmention/views';
import { restoreInPlace, type Reopen } from '../data/restore';
import { importMicroblogPub } from '../data/microblogpub-import';
import { splitCommandLine } from '../tunnel/command-line';
import type { TunnelRunner } from '../tunnel/runner';
import { storageProblem, storageSentence } from '../../../db/storage-errors';
import type { StatusService } from '../status';
import type { NotificationService } from '../notifications/service';
import type { IndieAuthService } from '../indieauth/service';
import type { MediaService } from '../media/service';
import type { DeliveryLoop } from '../delivery/loop';
import type { SearchService } from '../search/service';

export type Handlers = { [C in Channel]: (input: ParsedInput<C>) => Promise<Output<C>> | Output<C> };

// Declared beside restoreInPlace, which takes it; re-exported for the hosts that provide one.
export type { Reopen } from '../data/restore';

/** The core as the handlers see it: what each service they call takes, and the services. */
export type HandlersCore = BackupDeps &
  ExportDeps &
  ImportDeps &
  SettingsServiceCore &
  AuthorHandlersCore &
  PollHandlersCore &
  Parameters<typeof importMicroblogPub>[0] & {
    services: { status: StatusService; notifications: NotificationService; indieauth: IndieAuthService; media: MediaService; search: SearchService };
    loops: { delivery: Pick<DeliveryLoop, 'inFlight'> };
  };
export interface HandlerOptions {
  /** How this process reopens its core; without it, restoring and moving in are refused. */
  host?: { reopen: Reopen };
  /** The tunnel this process runs (headless, the Electron shell); without it, tunnels are refused. */
  tunnel?: TunnelRunner;
}

export function createHandlers(core: HandlersCore, options: HandlerOptions = {}): Handlers {
  const settings = createSettingsService(core);
  return {
    'app.status': () => core.services.status.get(),
    'settings.get': () => settings.get(),
    'settings.update': (change) => settings.update(change),
    'notifications.list': (page) => core.services.notifications.list(page),
    'notifications.unreadCount': () => ({ count: core.services.notifications.unreadCount() }),
    'notifications.markRead': ({ ids }) => ({ updated: core.services.notifications.markRead(ids) }),
    'notifications.markAllRead': async () => ({ updated: await core.services.notifications.markAllRead() }),
    'follow-requests.list': ({ cursor, limit }) => followRequestPage(core.db, { cursor: cursor ?? null, limit }),
    'backup.create': async () => {
      const { path, bytes } = await createBackup(core);
      return { path, bytes };
    },
    'backup.list': async () => ({ dir: core.paths.backups, backups: await listBackups(core.paths.backups) }),
    'export.archive': () => exportArchive(core),
    'export.followingCsv': async () => saveCsvExport(core, 'following', await exportFollowingCsv(core)),
    'export.followersCsv': async () => saveCsvExport(core, 'followers', await exportFollowersCsv(core)),
    'import.following': ({ csv }) => importFollowing(core, csv),
    'backup.restore': ({ backup }) => restoreInPlace(core, options.host?.reopen, backup),
    'import.microblogpub': ({ folder, confirm }) => importMicroblogPub(core, options.host?.reopen, folder, confirm),
    'tunnel.status': () => tunnelOf(options).status(),
    'tunnel.start': async ({ command }) => {
      const tunnel = tunnelOf(options);
      splitCommandLine(command); // a command that cannot be split is refused before it is saved
      core.settings.update({ tunnel: { ...core.settings.get().tunnel, command } });
      return tunnel.start(command);
    },
    'tunnel.stop': () => tunnelOf(options).stop(),
    ...createAuthorHandlers(core),
    'webmentions.received': (page) => listReceivedWebmentions(core.db, page),
    'webmentions.sent': (page) => listSentWebmentions(core.db, page, core.loops.delivery.inFlight()),
    'webmentions.ofPost': (page) => listWebmentionsOfPost(core.db, page),
    'apps.pending': () => core.services.indieauth.pending(),
    'apps.decide': ({ id, approve, scopes }) => core.services.indieauth.decide(id, { approve, scopes }),
    'apps.declineAll': ({ ids }) => core.services.indieauth.declineAll({ ids }),
    'apps.refusals': () => core.services.indieauth.refusals(),
    'apps.list': () => core.services.indieauth.apps(),
    'apps.revoke': ({ id }) => core.services.indieauth.revokeApp(id),
    ...createPollHandlers(core),
    'media.uploadBegin': (input) => core.services.media.begin(input),
    'media.uploadChunk': (input) => core.services.media.chunk(input),
    'media.uploadFinish': async (input) => core.services.media.view(await core.services.media.finish(input)),
    'media.uploadCancel': (input) => core.services.media.cancel(input),
    'search.query': (input) => core.services.search.query(input),
  };
}

function tunnelOf(options: HandlerOptions): TunnelRunner {
  if (!options.tunnel) throw new UnavailableError('This Tern does not run tunnels here; start your tunnel yourself and point it at the listener.');
  return options.tunnel;
}

export function isChannel(name: string): name is Channel {
  return Object.hasOwn(inputs, name);
}

/** Validates `rawInput` for `channel` and runs its handler. Never throws. */
export async function dispatch(
  handlers: Handlers,
  channel: string,
  rawInput: unknown,
  onInternalError: (error: unknown) => void = (error) => console.error(error),
): Promise<IpcResult<unknown>> {
  if (!isChannel(channel)) {
    return { ok: false, error: { code: 'unknown_channel', message: `There is no channel named “${channel}”.` } };
  }
  const parsed = (inputs[channel] as z.ZodType).safeParse(rawInput ?? {});
  if (!parsed.success) {
    return {
      ok: false,
      error: {
        code: 'bad_input',
        message: describeIssues(parsed.error.issues),
        issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
      },
    };
  }
  try {
    const handler = handlers[channel] as (input: unknown) => unknown;
    return { ok: true, value: await handler(parsed.data) };
  } catch (error) {
    return { ok: false, error: toIpcError(error, onInternalError) };
  }
}

/** A sentence for the first problem, e.g. "listener.port must be between 1 and 65535." */
function describeIssues(issues: z.core.$ZodIssue[]): string {
  const first = issues[0];
  if (first === undefined) return 'The request was not understood.';
  const field = first.path.join('.');
  if (first.code === 'unrecognized_keys') return `Unexpected field ${first.keys.join(', ')}.`;
  return field === '' ? `The request was not understood: ${first.message}.` : `${field} ${first.message}.`;
}

function toIpcError(error: unknown, onInternalError: (error: unknown) => void): IpcError {
  if (error instanceof BadInputError) return { code: 'bad_input', message: error.message };
  if (error instanceof NotFoundError) return { code: 'not_found', message: error.message };
  if (error instanceof ConflictError) return { code: 'conflict', message: error.message };
  if (error instanceof UnavailableError) return { code: 'unavailable', message: error.message };
  const storage = storageProblem(error);
  if (storage !== null) return { code: 'unavailable', message: storageSentence(storage) };
  onInternalError(error);
  return { code: 'internal', message: 'Something went wrong inside Tern. Nothing was changed.' };
}
