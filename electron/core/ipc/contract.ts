// The one typed interface shared by both ends of IPC: for each channel, the zod schema of its
// input (checked in the main process on every call) and the type of its output. The renderer
// imports only types from here; the Electron preload and the headless HTTP transport both
// expose exactly these channels.
import { z } from 'zod';
import { CHANNEL_NAMES, type ChannelName } from './channels';
import { settingsUpdateSchema } from '../settings';
import type { SettingsUpdateResult, SettingsView } from '../settings-service';
import type { NotificationPage } from '../notifications/service';
import type { FollowRequestPage } from '../federation/follow-requests';
import { authorInputs, type AuthorOutputs } from './author-contract';
import { webmentionInputs, type WebmentionOutputs } from './webmention-contract';
import { appsInputs, type AppsOutputs } from './apps-contract';
import { pollInputs, type PollOutputs } from './polls-contract';
import { mediaInputs, type MediaOutputs } from './media-contract';
import { searchInputs, type SearchOutputs } from './search-contract';
import type { BackupFile } from '../data/backup';
import type { ImportResult } from '../data/import';
import type { RestoreOutcome } from '../data/restore';
import type { MicroblogPubImport } from '../data/microblogpub-import';
import type { TunnelStatus } from '../tunnel/runner';

// Declared in db/ (the move from microblog.pub counts them too, without importing the contract).
export { COUNTED_TABLES, type CountedTable } from '../../../db/counted-tables';
import type { CountedTable } from '../../../db/counted-tables';

export interface AppStatus {
  /** The database's schema revision and the newest this build knows. */
  revision: string | null;
  head: string;
  /** Rows per record of the spec. */
  counts: Record<CountedTable, number>;
  dataDir: string;
  databasePath: string;
  /** How the app runs: inside Electron or headless (browser UI). */
  mode: 'desktop' | 'headless';
  version: string;
  /** When the core was opened (ISO-8601). */
  startedAt: string;
}

export const inputs = {
  'app.status': z.object({}).strict(),
  'settings.get': z.object({}).strict(),
  'settings.update': settingsUpdateSchema,
  'notifications.list': z
    .object({
      limit: z.number().int().min(1).max(200).default(50),
      /** At most 10,000 (the window pages by cursor): each row passed over is read, 62–104 ms at
       * 49,000 on a loaded machine. Mastodon's own limit for offsets. */
      offset: z.number().int().min(0).max(10_000).default(0),
      /** The previous page's nextCursor (then offset is not used). */
      cursor: z.string().max(300).nullish(),
    })
    .strict(),
  'notifications.unreadCount': z.object({}).strict(),
  'notifications.markRead': z.object({ ids: z.array(z.number().int().positive()).min(1).max(1000) }).strict(),
  'notifications.markAllRead': z.object({}).strict(),
  /** Newest first; `cursor`: the previous page's nextCursor. */
  'follow-requests.list': z
    .object({ cursor: z.string().regex(/^[1-9][0-9]{0,15}$/, 'must be a page cursor this list gave').nullish(), limit: z.number().int().min(1).max(200).default(50) })
    .strict(),
  'backup.create': z.object({}).strict(),
  'backup.list': z.object({}).strict(),
  'export.archive': z.object({}).strict(),
  'export.followingCsv': z.object({}).strict(),
  'export.followersCsv': z.object({}).strict(),
  'import.following': z
    .object({ csv: z.string().refine((s) => Buffer.byteLength(s, 'utf8') <= 1024 * 1024, 'must be at most 1 MiB') })
    .strict(),
  /** A backup's file name in the backups folder (as backup.list gives it), or an absolute path. */
  'backup.restore': z.object({ backup: z.string().trim().min(1, 'must name a backup').max(4096) }).strict(),
  /** microblog.pub's data/ folder (absolute); without confirm, only a preview. */
  'import.microblogpub': z.object({ folder: z.string().trim().min(1, 'must name a folder').max(4096), confirm: z.boolean().default(false) }).strict(),
  'tunnel.status': z.object({}).strict(),
  /** Saves the command in settings.tunnel and runs it (without a shell). */
  'tunnel.start': z.object({ command: z.string().trim().min(1, 'must name the program to run').max(2000, 'must be at most 2000 characters') }).strict(),
  'tunnel.stop': z.object({}).strict(),
  ...authorInputs,
  ...webmentionInputs,
  ...appsInputs,
  ...pollInputs,
  ...mediaInputs,
  ...searchInputs,
} as const satisfies Record<ChannelName, z.ZodType>;

export interface Outputs extends AuthorOutputs, WebmentionOutputs, AppsOutputs, PollOutputs, MediaOutputs, SearchOutputs {
  'app.status': AppStatus;
  'settings.get': SettingsView;
  'settings.update': SettingsUpdateResult;
  'notifications.list': NotificationPage;
  'notifications.unreadCount': { count: number };
  'notifications.markRead': { updated: number };
  'notifications.markAllRead': { updated: number };
  'follow-requests.list': FollowRequestPage;
  'backup.create': { path: string; bytes: number };
  'backup.list': { dir: string; backups: BackupFile[] };
  'export.archive': { path: string; bytes: number };
  'export.followingCsv': { path: string };
  'export.followersCsv': { path: string };
  'import.following': ImportResult;
  'backup.restore': RestoreOutcome;
  'import.microblogpub': MicroblogPubImport;
  'tunnel.status': TunnelStatus;
  'tunnel.start': TunnelStatus;
  'tunnel.stop': TunnelStatus;
}

export type Channel = ChannelName;
export const CHANNELS: readonly Channel[] = CHANNEL_NAMES;
// Every channel has an output type, and no schema exists without a channel name.
type _Exact = [keyof typeof inputs, keyof Outputs] extends [ChannelName, ChannelName]
  ? [ChannelName, ChannelName] extends [keyof typeof inputs, keyof Outputs]
    ? true
    : never
  : never;
export const _contractIsExact: _Exact = true;
export type Input<C extends Channel> = z.input<(typeof inputs)[C]>;
export type ParsedInput<C extends Channel> = z.output<(typeof inputs)[C]>;
export type Output<C extends Channel> = Outputs[C];

/** Why a call failed, in terms the renderer can act on. */
export type IpcErrorCode = 'bad_input' | 'unknown_channel' | 'not_found' | 'conflict' | 'unavailable' | 'forbidden' | 'internal';
export interface IpcError {
  code: IpcErrorCode;
  /** A sentence a person understands. */
  message: string;
  /** For bad_input: which fields were wrong. */
  issues?: { path: string; message: string }[];
}
export type IpcResult<T> = { ok: true; value: T } | { ok: false; error: IpcError };

/** What the preload exposes as `window.tern`: one method per channel. */
export type TernBridge = { [C in Channel]: (input: Input<C>) => Promise<IpcResult<Output<C>>> };

/** Path of a channel on the headless HTTP transport. */
export const httpPathOf = (channel: Channel) => `/ipc/${channel}`;
