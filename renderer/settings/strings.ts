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
    leftBehind: (rows: readonly { table: string; value: string; rows: number }[]) =>
      `Left behind, as Tern has no such kind: ${rows.map((r) => `${n(r.rows, 'row', 'rows')} of ${r.table} (${r.value})`).join(', ')}.`,
    confirmButton: 'Move in and reopen',
    moving: 'Moving in…',
    moved: (handle: string, aside: string | null) => `You are ${handle} on Tern now.${aside ? ` What Tern held before is in ${aside}.` : ''}`,
  },
  tunnel: {
    title: 'Tunnel',
    lede: 'Other servers reach Tern’s listener through a tunnel: a program that gives it a public https address. Tern can run yours and read the address it prints. Examples:',
    examples: (port: number) => [
      { name: 'Cloudflare', command: `cloudflared tunnel --url http://127.0.0.1:${port}` },
      { name: 'ngrok', command: `ngrok http ${port} --log stdout` },
      { name: 'Tailscale Funnel', command: `tailscale funnel ${port}` },
    ],
    stableNote:
      'Your base URL is your identity. A quick tunnel gets a new address every time it starts; for an address that stays, use a named Cloudflare tunnel, an ngrok static domain, or Tailscale Funnel’s machine name.',
    command: 'Tunnel command',
    commandHint: 'Run as typed, without a shell: quote arguments with spaces.',
    behindProxy: 'The listener is behind this tunnel',
    behindProxyHint:
      'Tern then takes each server’s address from the X-Forwarded-For header the tunnel adds, for the listener’s log. Signatures are always checked against your base URL; other forwarded headers are never trusted.',
    startWithTern: 'Start the tunnel with Tern',
    startWithTernHint: 'Tern stops it when it quits.',
    start: 'Start tunnel',
    restart: 'Restart tunnel',
    starting: 'Starting…',
    stop: 'Stop tunnel',
    listenerOff: 'The listener is off: turn it on above, or the tunnel has nothing to forward to.',
    state: {
      stopped: 'Not running',
      starting: 'Starting, waiting for its public address…',
      running: (url: string) => `Running at ${url}`,
      exited: 'Ended',
      failed: 'Failed',
    },
    output: 'What it printed',
    useAsBaseUrl: (url: string) => `Use ${url} as base URL`,
    isBaseUrl: 'This is your base URL.',
    baseUrlSet: (url: string) => `Your base URL is now ${url}.`,
  },
  profileImages: {
    avatar: 'Picture',
    header: 'Header image',
    avatarHint: 'Shown beside your name everywhere. A square image works best.',
    headerHint: 'Shown across the top of your profile. About 3:1 works best.',
    choose: 'Choose…',
    replace: 'Replace…',
    remove: 'Remove',
    none: 'None',
    uploading: 'Uploading…',
    saved: 'Saved.',
    notImage: (name: string) => `“${name}” is not an image Tern can use: choose a JPEG, PNG, WebP, GIF or AVIF file.`,
    tooLarge: (name: string, maxMb: number) => `“${name}” is too large: a picture can be at most ${maxMb} MB.`,
  },
} as const;
