// The words of Settings' data parts (restoring a backup, moving in from microblog.pub, the
// tunnel), kept beside them; formatting comes from the app's strings.
import { formatNumber, plural } from '../strings';

const n = (count: number, one: string, other: string) => `${formatNumber(count)} ${plural(count, { one, other })}`;

export const dataStrings = {
  restore: {
    title: 'Restore a backup',
    lede: 'Tern puts the backup’s posts, people, keys, settings and uploads back and reopens on them. Your current data is moved aside into a before-restore folder, never deleted.',
    pick: 'Backup to restore',
    pickNone: 'Choose a backup…',
    path: 'Or a backup file elsewhere',
    pathHint: 'The full path of a tern-backup-….tar.gz file.',
    restore: 'Restore…',
    confirm: (what: string) => `Restore ${what}? What Tern holds now is replaced (and moved aside), and Tern reopens on the backup.`,
    confirmButton: 'Restore and reopen',
    restoring: 'Restoring…',
    nothingChosen: 'Choose a backup from the list or give the path of a backup file.',
    restored: (from: string, aside: string | null) => `Restored ${from}.${aside ? ` The data it replaced is in ${aside}.` : ''}`,
  },
  microblogPub: {
    title: 'Move from microblog.pub',
    lede: 'Bring your microblog.pub over: posts, followers, people you follow, notifications, webmentions and uploads, with your address and key, so followers keep following you. Stop microblog.pub first; its folder is only read.',
    folder: 'microblog.pub data folder',
    folderHint: 'The full path of its data/ folder, the one holding microblogpub.db, profile.toml and key.pem.',
    check: 'Check folder',
    checking: 'Reading…',
    previewTitle: (handle: string) => `You will be ${handle}`,
    previewFacts: (c: Record<string, number>, uploads: number) =>
      [
        n(c.outbox ?? 0, 'outbox entry', 'outbox entries'),
        n(c.inbox ?? 0, 'inbox entry', 'inbox entries'),
        n(c.follower ?? 0, 'follower', 'followers'),
        `${formatNumber(c.following ?? 0)} following`,
        n(c.notifications ?? 0, 'notification', 'notifications'),
        n(c.webmention ?? 0, 'webmention', 'webmentions'),
        n(uploads, 'upload', 'uploads'),
      ].join(' · '),
    revision: (revision: string, baseUrl: string) => `Database revision ${revision}. Your base URL becomes ${baseUrl}: keep pointing that address at Tern’s listener through your tunnel.`,
    replaces: (before: string, after: string) =>
      `Tern’s base URL changes from ${before} to ${after}. Nobody follows ${before} yet, so nothing is lost; the address is who you are from now on.`,
    confirmButton: 'Move in and reopen',
    moving: 'Moving in…',
    moved: (handle: string, aside: string | null) => `You are ${handle} on Tern now.${aside ? ` What Tern held before is in ${aside}.` : ''}`,
  },
} as const;
