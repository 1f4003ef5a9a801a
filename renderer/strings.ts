// Every sentence and label the user sees, in one place so Tern can be translated later, plus
// the Intl helpers that format numbers, times and plurals for the user's locale. Components
// never hold user-visible text of their own.
// It imports nothing from the renderer (every screen imports it), only the IPC contract's types.
import type { DeliveryRowState, PostView, WaitingView } from '../electron/core/ipc/author-contract';
import type { CountedTable, Output } from '../electron/core/ipc/contract';

type Visibility = PostView['visibility'];
type NotificationKind = NonNullable<Output<'notifications.list'>['items'][number]['type']>;

/** The language the strings below are written in (for <html lang>). */
export const STRINGS_LANG = 'en';

// Numbers carry no words, so they follow the user's own locale (`undefined`: the one Chromium
// or Electron runs in). Dates, relative times and plurals do carry words, so they follow the
// language of these strings, in the user's regional variant of it when they list one (en-GB).
const NUMBER_LOCALE: string | undefined = undefined;
const WORDS_LOCALE = wordsLocale();

function wordsLocale(): string {
  const preferred = typeof navigator === 'undefined' ? [] : (navigator.languages ?? []);
  for (const tag of preferred) {
    try {
      if (new Intl.Locale(tag).language === STRINGS_LANG) return tag;
    } catch {
      // Not a valid language tag; skip it.
    }
  }
  return STRINGS_LANG;
}

const numberFormat = new Intl.NumberFormat(NUMBER_LOCALE);
const dateTimeFormat = new Intl.DateTimeFormat(WORDS_LOCALE, { dateStyle: 'full', timeStyle: 'long' });
const relativeFormat = new Intl.RelativeTimeFormat(WORDS_LOCALE, { numeric: 'auto' });
const pluralRules = new Intl.PluralRules(WORDS_LOCALE);

export function formatNumber(n: number): string {
  return numberFormat.format(n);
}

const rangeFormat = new Intl.DateTimeFormat(WORDS_LOCALE, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: 'numeric', minute: '2-digit' });

/** When something takes place: a start, or a start and an end (one date when both fall on it). */
export function formatTimeRange(start: Date, end: Date | null): string {
  return end ? rangeFormat.formatRange(start, end) : rangeFormat.format(start);
}

/** An absolute date and time, for tooltips and screen readers. */
export function formatDateTime(date: Date): string {
  return dateTimeFormat.format(date);
}

const RELATIVE_STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 7],
  ['week', 4.34524],
  ['month', 12],
  ['year', Number.POSITIVE_INFINITY],
];

/** "just now", "3 minutes ago", "yesterday"; seconds are rounded away so it does not tick. */
export function formatRelative(date: Date, now: Date): string {
  let value = (date.getTime() - now.getTime()) / 1000;
  if (Math.abs(value) < 45) return strings.justNow;
  for (const [unit, size] of RELATIVE_STEPS) {
    if (Math.abs(value) < size) return relativeFormat.format(Math.round(value), unit);
    value /= size;
  }
  return relativeFormat.format(Math.round(value), 'year');
}

/** Picks the form of a word for a count: plural(2, { one: 'record', other: 'records' }). */
export function plural(n: number, forms: { one: string; other: string } & Partial<Record<Intl.LDMLPluralRule, string>>): string {
  return forms[pluralRules.select(n)] ?? forms.other;
}

export const strings = {
  appName: 'Tern',
  skipToContent: 'Skip to content',

  places: {
    label: 'Places',
    stream: 'Stream',
    notifications: 'Notifications',
    compose: 'Compose',
    profile: 'Profile',
    people: 'People',
    deliveries: 'Deliveries',
    webmentions: 'Webmentions',
    settings: 'Settings',
    overview: 'Overview',
    apps: 'Apps',
    polls: 'Polls',
    search: 'Search',
    unread: (n: number) => `${formatNumber(n)} unread`,
    waiting: (n: number) => `${formatNumber(n)} waiting for your approval`,
  },

  statusLine: {
    label: 'Status',
    connecting: 'Connecting to Tern…',
    unreachable: 'Not connected',
    mode: { desktop: 'Desktop', headless: 'Headless (in the browser)' },
    dataFolder: 'Data folder',
    schema: 'Schema',
    schemaNone: 'none',
    version: (version: string) => `Tern ${version}`,
  },

  loading: 'Loading…',
  justNow: 'just now',
  refresh: 'Refresh',
  refreshing: 'Refreshing…',
  retry: 'Try again',
  close: 'Close',
  back: 'Back',
  loadMore: 'Load more',
  loadingMore: 'Loading more…',
  save: 'Save',
  saving: 'Saving…',
  saved: 'Saved',
  cancel: 'Cancel',

  overview: {
    title: 'Overview',
    lede: 'How Tern and its database are doing on this computer.',
    loadFailed: 'The overview could not be loaded.',
    refreshFailed: 'What you see is from before you refreshed.',
    upToDate: (revision: string) => `Database is up to date (revision ${revision})`,
    upToDateDetail: 'This is the newest revision this version of Tern knows.',
    needsUpgrade: 'The database needs an upgrade',
    needsUpgradeDetail: (revision: string, head: string) =>
      `It is at revision ${revision}; this version of Tern expects ${head}.`,
    noSchema: 'The database has no schema yet',
    noSchemaDetail: (head: string) => `This version of Tern expects revision ${head}.`,
    recordsHeading: 'Records',
    recordsSummary: (records: number, rows: number) =>
      `${formatNumber(records)} ${plural(records, { one: 'record', other: 'records' })}, ` +
      `${formatNumber(rows)} ${plural(rows, { one: 'row', other: 'rows' })} in all`,
    recordColumn: 'Record',
    tableColumn: 'Table',
    rowsColumn: 'Rows',
    storageHeading: 'Storage',
    dataFolder: 'Data folder',
    databaseFile: 'Database',
    startedAt: 'Started',
    version: 'Version',
  },

  /** What each of the spec's records holds, in words; the table name is shown beside it. */
  records: {
    actor: 'Actors',
    inbox: 'Inbox objects',
    incoming_activity: 'Incoming activities',
    indieauth_authorization_request: 'IndieAuth requests',
    outbox: 'Outbox objects',
    upload: 'Uploads',
    follower: 'Followers',
    following: 'Following',
    indieauth_access_token: 'IndieAuth access tokens',
    outbox_object_attachment: 'Outbox attachments',
    outgoing_activity: 'Outgoing activities',
    poll_answer: 'Poll answers',
    tagged_outbox_object: 'Tagged outbox objects',
    webmention: 'Webmentions',
    notifications: 'Notifications',
    oauth_client: 'OAuth clients',
  } satisfies Record<CountedTable, string>,

  lists: {
    refreshFailed: 'What you see is from before; it could not be refreshed.',
    moreFailed: 'The next page could not be loaded.',
    end: 'That is everything.',
  },

  setup: {
    title: 'Welcome to Tern',
    lede: 'Tern is your home on the fediverse, kept on this computer. Before you start, tell it who you are.',
    baseUrl: 'Base URL',
    baseUrlPlaceholder: 'https://tern.example.com',
    baseUrlHint:
      'The public address where others will reach you. It is your identity on the fediverse: your handle and every link to your posts are made from it, so pick one you can keep.',
    username: 'User name',
    usernamePlaceholder: 'ana',
    usernameHint: 'Letters, digits and _ (up to 30).',
    youWillBe: (handle: string) => `You will be ${handle}`,
    youWillBeUnknown: 'Your handle will appear here as you type.',
    tunnelTitle: 'How others reach you',
    tunnelText:
      'Tern listens on this computer only. A tunnel you choose — Cloudflare Tunnel, Tailscale Funnel, ngrok or your own reverse proxy — forwards the base URL to Tern’s listener, which you turn on in Settings. Until then you can read and write; posts wait and are delivered when you are online.',
    submit: 'Start using Tern',
    saving: 'Saving…',
    later: 'You can change both later in Settings.',
    loadFailed: 'Tern’s settings could not be loaded.',
  },

  shortcuts: {
    title: 'Keyboard shortcuts',
    keys: {
      j: 'Next post',
      k: 'Previous post',
      o: 'Open the post and its thread',
      r: 'Reply to the post',
      l: 'Like or unlike the post',
      b: 'Boost or unboost the post',
      q: 'Quote the post',
      n: 'Write a new post',
      '/': 'Search',
      '?': 'Show this list',
    } satisfies Record<string, string>, // one per keyboard.ts SHORTCUT_KEYS (ShortcutsDialog looks each up)
  },

  settings: {
    title: 'Settings',
    lede: 'Who you are on the fediverse, and how Tern reaches it.',
    profileTitle: 'Profile',
    profileLede: 'What others see on your profile. Changes are sent to your followers.',
    displayName: 'Display name',
    summary: 'About you',
    summaryHint: 'Markdown. Shown on your profile.',
    manualApproval: 'Approve followers by hand',
    manualApprovalHint: 'New followers wait in People and Notifications until you accept them.',
    aliasesTitle: 'Also known as',
    aliasesLede:
      'Moving here from another account? List it, so that account can move its followers to you. Tern finds each account and publishes it in your profile; then start the move from the old account.',
    aliases: 'Your old accounts',
    aliasesHint: 'One per line: @user@server or the account’s address.',
    aliasesPlaceholder: '@you@old.example',
    aliasesNone: 'No old accounts listed.',
    aliasesPublished: 'Published in your profile:',
    identityTitle: 'Identity',
    identityWarningTitle: 'Your base URL is who you are',
    identityWarning:
      'Once people follow you, changing the base URL makes you someone new: their follows stay with the old address, and links to your posts break.',
    baseUrl: 'Base URL',
    baseUrlHint: 'The public address your tunnel forwards to Tern’s listener.',
    username: 'User name',
    handleIs: (handle: string) => `You are ${handle}.`,
    handleWillBe: 'Save to use the new address.',
    changeAnyway: 'Change it anyway',
    listenerTitle: 'Listener',
    listenerLede: 'Other servers deliver posts, follows and likes to the listener. It is reached from the internet only through your tunnel.',
    listenerEnabled: 'Listen for other servers',
    listenerEnabledHint: (baseUrl: string) => (baseUrl ? `Point your tunnel for ${baseUrl} at this port.` : 'Point your tunnel at this port.'),
    port: 'Port',
    portHint: (host: string) => `Tern listens on ${host} only.`,
    listening: (url: string) => `Listening at ${url}`,
    notListening: 'Not listening',
    offlineTitle: 'Working offline',
    workOfflineHint: 'Nothing is sent or fetched; what you write waits and is delivered when you turn this off.',
    osNotificationsTitle: 'Desktop notifications',
    osNotificationsLede: 'Which notifications also pop up on your desktop. Many at once are grouped into one.',
    osNotificationTypes: {
      NEW_FOLLOWER: 'New followers',
      UNFOLLOW: 'Unfollows',
      FOLLOW_REQUEST_ACCEPTED: 'Follow requests accepted',
      FOLLOW_REQUEST_REJECTED: 'Follow requests rejected',
      LIKE: 'Likes',
      UNDO_LIKE: 'Likes taken back',
      ANNOUNCE: 'Boosts',
      UNDO_ANNOUNCE: 'Boosts taken back',
      MENTION: 'Mentions and replies',
      NEW_WEBMENTION: 'Webmentions',
      UPDATED_WEBMENTION: 'Webmentions updated',
      DELETED_WEBMENTION: 'Webmentions removed',
    },
    aboutTitle: 'For reference',
    fingerprint: 'Key fingerprint',
    actorId: 'Actor',
    dataFolder: 'Data folder',
    notSet: 'not set',
    backupsTitle: 'Backups',
    backupsLede: 'One file holding your posts, people, keys, settings and uploads. Tern makes one every day and keeps the last seven.',
    backUpNow: 'Back up now',
    backingUp: 'Backing up…',
    backedUp: (path: string) => `Saved to ${path}`,
    noBackups: 'No backups yet.',
    backupsIn: (dir: string) => `In ${dir}`,
    backupSize: (bytes: number) =>
      bytes < 1024 * 1024 ? `${formatNumber(Math.max(1, Math.round(bytes / 1024)))} KB` : `${formatNumber(Math.round(bytes / 1024 / 102.4) / 10)} MB`,
    exportTitle: 'Export and import',
    exportLede: 'Your posts as an ActivityPub archive (the shape Mastodon’s account archive uses), and the people you follow and who follow you as CSV files other servers import.',
    exportArchive: 'Export archive',
    exportFollowing: 'Export following (CSV)',
    exportFollowers: 'Export followers (CSV)',
    exporting: 'Exporting…',
    exported: (path: string) => `Saved to ${path}`,
    importLabel: 'Accounts to follow',
    importHint: 'Paste a following CSV from Mastodon, or one handle (user@host) or profile URL per line. Up to 5,000 lines.',
    importFollows: 'Import follows',
    importing: 'Importing…',
    imported: (followed: number, skipped: number, failed: number) =>
      `Asked to follow ${formatNumber(followed)}, skipped ${formatNumber(skipped)} already followed, ${formatNumber(failed)} failed.`,
    importFailure: (line: number, text: string, reason: string) => `Line ${formatNumber(line)} (${text}): ${reason}`,
  },

  connectivity: {
    online: 'Online',
    offline: 'Offline',
    workingOffline: 'Working offline',
    workOffline: 'Work offline',
    /** What waits to be sent, said as what the author did: posts, and other actions (likes,
     * boosts, follows…), each once however many servers it goes to. */
    waiting: (w: WaitingView) => {
      if (w.deliveries === 0) return 'Nothing waiting to send';
      const posts = w.posts > 0 ? `${formatNumber(w.posts)} ${plural(w.posts, { one: 'post', other: 'posts' })}` : null;
      const other = w.other > 0 ? `${formatNumber(w.other)} ${w.posts > 0 ? 'other ' : ''}${plural(w.other, { one: 'action', other: 'actions' })}` : null;
      return `${[posts, other].filter((x) => x !== null).join(' and ')} waiting to send`;
    },
    /** The same, as deliveries (one per server): the status line's tooltip. */
    waitingDeliveries: (n: number) => `${formatNumber(n)} ${plural(n, { one: 'delivery', other: 'deliveries' })} to servers not sent yet`,
    listenerOn: (url: string) => `Listener on ${url}`,
    listenerOff: 'Listener off',
    checked: 'Checked',
  },

  notifications: {
    title: 'Notifications',
    lede: 'Who followed, liked, boosted or mentioned you.',
    markAllRead: 'Mark all as read',
    loadFailed: 'Your notifications could not be loaded.',
    emptyTitle: 'Nothing yet',
    emptyText: (handle: string) =>
      handle ? `When someone follows ${handle} or answers one of your posts, you will see it here.` : 'When someone follows you or answers one of your posts, you will see it here.',
    unread: 'Unread',
    deleted: 'This has been deleted.',
    /** A followed account moved (a notification with no type on a Move). */
    moved: (from: string, to: string) => `${from} moved to ${to}; you now follow ${to}`,
    /** Someone quoted one of the author's posts, approved by Tern (a notification with no type on a QuoteRequest). */
    quoted: (who: string) => `${who} quoted your post`,
    /** Taking back Tern's approval of one quote (quotes.revoke). */
    revokeQuote: 'Revoke approval',
    revokeQuoteLabel: (who: string) => `Revoke your approval of ${who}’s quote`,
    revokeQuoteQuestion: (who: string) => `Revoke your approval of ${who}’s quote? Their post will no longer show yours.`,
    revokeQuoteConfirm: 'Revoke',
    quoteRevoked: 'You revoked your approval of this quote.',
    /** Letting a revoked quote be approved again when its author asks anew (quotes.allowAgain). */
    allowQuoteAgain: 'Allow again',
    allowQuoteAgainLabel: (who: string) => `Allow ${who}’s quote again`,
    quoteAllowedAgain: 'You revoked your approval of this quote, then allowed it again: if they ask again, Tern will approve it.',
    /** Under a received post that quotes the author's, in a thread. */
    quoteApprovedByYou: 'You approved this quote.',
    /** The answer to one of the author's own quotes (a notification with no type on an Accept or Reject). */
    quoteAnswered: (who: string, approved: boolean) => (approved ? `${who} approved your quote of their post` : `${who} did not approve your quote of their post`),
    /** They took back their approval of the author's quote (a notification with no type on the Delete of the authorization). */
    quoteApprovalRemoved: (who: string) => `${who} removed their approval of your quote of their post`,
    /** A server forwarded a report (a notification with no type on a Flag). */
    report: (server: string, posts: number, comment: string | null) => {
      const about = posts === 0 ? 'you' : plural(posts, { one: 'your post', other: 'your posts' });
      return `${server} forwarded a report about ${about}${comment ? `: ${comment}` : ''}`;
    },
    reportedPost: (excerpt: string | null) => (excerpt ? `Reported post: “${excerpt}”` : 'Reported post'),
    /** "Ana", "Ana and Ben", "Ana and 4 others". */
    actors: (names: string[]) => {
      const [first = 'Someone', second] = names;
      if (names.length <= 1) return first;
      if (names.length === 2) return `${first} and ${second}`;
      const others = names.length - 1;
      return `${first} and ${formatNumber(others)} ${plural(others, { one: 'other', other: 'others' })}`;
    },
    /** An emoji reaction (Pleroma, Akkoma, Misskey…), as their own apps word it; `emoji` is
     * where the view puts it. */
    reacted: (who: string, emoji: string) => `${who} reacted with ${emoji} to your post`,
    /** Reactions taken back; `people` is how many `who` names. */
    unreacted: (who: string, emoji: string, people: number) =>
      plural(people, { one: `${who} took back a ${emoji} reaction to your post`, other: `${who} took back their ${emoji} reactions to your post` }),
    sentence: (kind: NotificationKind | null, who: string): string => {
      switch (kind) {
        case 'NEW_FOLLOWER':
          return `${who} followed you`;
        case 'UNFOLLOW':
          return `${who} unfollowed you`;
        case 'FOLLOW_REQUEST_ACCEPTED':
          return `${who} accepted your follow request`;
        case 'FOLLOW_REQUEST_REJECTED':
          return `${who} declined your follow request`;
        case 'LIKE':
          return `${who} liked your post`;
        case 'UNDO_LIKE':
          return `${who} took back a like of your post`;
        case 'ANNOUNCE':
          return `${who} boosted your post`;
        case 'UNDO_ANNOUNCE':
          return `${who} took back a boost of your post`;
        case 'MENTION':
          return `${who} mentioned you`;
        case 'NEW_WEBMENTION':
          return 'A page mentioned your post';
        case 'UPDATED_WEBMENTION':
          return 'A page that mentions your post changed';
        case 'DELETED_WEBMENTION':
          return 'A page no longer mentions your post';
        default:
          return `${who} did something`;
      }
    },
  },

  followRequests: {
    title: 'Follow requests',
    count: (n: number) => `${formatNumber(n)} waiting`,
    empty: 'No one is waiting for an answer.',
    loadFailed: 'Follow requests could not be loaded.',
    asked: 'Asked',
    accept: 'Accept',
    reject: 'Reject',
    acceptLabel: (name: string) => `Accept ${name}`,
    rejectLabel: (name: string) => `Reject ${name}`,
  },

  thread: {
    title: 'Thread',
    loadFailed: 'This thread could not be loaded.',
    missingParent: 'The post this answers could not be fetched.',
    openParent: 'Open it on its server',
    replies: (n: number) => `${formatNumber(n)} ${plural(n, { one: 'reply', other: 'replies' })}`,
    noReplies: 'No replies yet.',
  },

  visibility: {
    label: 'Who can see it',
    PUBLIC: 'Public',
    UNLISTED: 'Unlisted',
    FOLLOWERS_ONLY: 'Followers only',
    DIRECT: 'Direct',
    hints: {
      PUBLIC: 'Anyone, and it appears in public timelines.',
      UNLISTED: 'Anyone with the link; kept out of public timelines.',
      FOLLOWERS_ONLY: 'Only your followers.',
      DIRECT: 'Only the people you mention.',
    },
  } satisfies Record<Visibility, string> & { label: string; hints: Record<Visibility, string> },

  post: {
    boostedBy: (name: string) => `${name} boosted`,
    openAuthor: (name: string) => `See ${name}’s profile`,
    pinned: 'Pinned',
    openThread: 'Open the thread',
    edited: 'edited',
    replyingTo: 'In reply to a post',
    sensitive: 'Sensitive content',
    showMore: 'Show more',
    showLess: 'Show less',
    deleted: 'This post has been deleted.',
    actions: 'Actions',
    reply: 'Reply',
    boost: 'Boost',
    quote: 'Quote',
    quoteNotAllowed: 'Only public and unlisted posts can be quoted',
    like: 'Like',
    bookmark: 'Bookmark',
    boosts: (n: number) => `${formatNumber(n)} ${plural(n, { one: 'boost', other: 'boosts' })}`,
    likes: (n: number) => `${formatNumber(n)} ${plural(n, { one: 'like', other: 'likes' })}`,
    more: 'More',
    pin: 'Pin to your profile',
    unpin: 'Unpin from your profile',
    edit: 'Edit',
    delete: 'Delete',
    deleteQuestion: 'Delete this post everywhere?',
    openOriginal: 'Open the original page',
    original: (host: string) => `Open on ${host}`,
    cardHost: (host: string, type: string) => `${type} on ${host}`,
    quoted: (name: string) => `Quoted post by ${name}`,
    quoteLoading: 'Loading the quoted post…',
    quoteUnavailable: (host: string) => `Quoted post on ${host} (no longer there)`,
    quoteFailed: (host: string) => `The quoted post on ${host} could not be loaded.`,
    quoteAsk: (host: string) => `Show the quoted post (from ${host})`,
    quoteMedia: (n: number) => (n === 1 ? '1 attachment' : `${n} attachments`),
    quoteWarning: (warning: string) => `Content warning: ${warning}`,
    quotesAnother: 'It quotes another post',
    /** The author's own quote of someone's post, by where its approval stands (`who`: whom it was
     * asked of, a name slot; null when Tern does not know them any more). */
    quoteApproved: (who: string | null) => `${who ?? 'The quoted post’s author'} approved this quote.`,
    quotePending: (who: string | null) => `Waiting for ${who ?? 'the quoted post’s author'} to approve this quote.`,
    quoteUnanswered: (who: string | null) => `No answer from ${who ?? 'the quoted post’s author'} about this quote (a day went by, or their server refused the request); their server may not ask about quotes.`,
    quoteRejected: (who: string | null) => `${who ?? 'The quoted post’s author'} did not approve this quote: it is shown without their post.`,
    /** They approved it, then took the approval back (deleted the QuoteAuthorization). */
    quoteRevokedByThem: (who: string | null) => `${who ?? 'The quoted post’s author'} removed their approval of this quote: it is shown without their post.`,
    askAgain: 'Ask again',
    askAgainLabel: 'Ask again for approval of this quote',
    eventWhen: 'When:',
    eventWhere: 'Where:',
    eventOnline: 'Online',
    pending: 'waiting to be sent',
    flagVerb: {
      liked: (on: boolean) => (on ? 'like' : 'unlike'),
      boosted: (on: boolean) => (on ? 'boost' : 'unboost'),
      bookmarked: (on: boolean) => (on ? 'bookmark' : 'remove the bookmark'),
      pinned: (on: boolean) => (on ? 'pin' : 'unpin'),
    } satisfies Record<string, (on: boolean) => string>, // one per posts/actions.ts Flag (Post.tsx looks each up)
    failed: (what: string, why: string) => `Could not ${what}: ${why}`,
    /** Recorded here, but a server it was for was given up on. */
    notDelivered: (what: string, servers: number, why: string | null) =>
      `Your ${what} was not delivered${servers > 1 ? ` to ${formatNumber(servers)} servers` : ''}.${why ? ` ${why}` : ''}`,
  },

  delivery: {
    queued: (total: number) =>
      total > 0
        ? `Queued for ${formatNumber(total)} ${plural(total, { one: 'server', other: 'servers' })} — will be sent when you’re online`
        : 'Queued — will be sent when you’re online',
    sending: (sent: number, total: number) => `Sending — delivered to ${formatNumber(sent)} of ${formatNumber(total)} ${plural(total, { one: 'server', other: 'servers' })}`,
    sent: (sent: number, total: number) => `Delivered to ${formatNumber(sent)} of ${formatNumber(total)} ${plural(total, { one: 'server', other: 'servers' })}`,
    failed: (sent: number, total: number, why: string | null) =>
      `Failed — delivered to ${formatNumber(sent)} of ${formatNumber(total)} ${plural(total, { one: 'server', other: 'servers' })}${why ? `. ${why}` : ''}`,
    local: 'Kept here — no one to deliver it to yet',
    noServers: 'No deliveries recorded for this post.',
    /** Under "Sending" when a try failed: why, and when Tern tries again ("in 5 minutes"). */
    willRetry: (why: string, when: string | null) => `${why} Tern will try again ${when ?? 'shortly'}.`,
    /** Under "Queued" (offline) when a try had failed before. */
    lastFailure: (why: string) => `Last try: ${why}`,
  },

  deliveries: {
    title: 'Deliveries',
    lede: 'What Tern is sending to other servers, and what they answered.',
    state: {
      queued: 'Queued',
      resolving: 'Finding the inbox',
      sending: 'Sending',
      retrying: 'Will retry',
      sent: 'Delivered',
      failed: 'Failed',
    } satisfies Record<DeliveryRowState, string>,
    tries: (n: number) => `${formatNumber(n)} ${plural(n, { one: 'try', other: 'tries' })}`,
    lastStatus: (code: number) => `last answer HTTP ${code}`,
    /** When a request of the row last left Tern (a try refused or stopped before it left is
     * counted in tries, but sent nothing). */
    lastTry: 'last request sent',
    nextTry: 'next try',
    gaveUp: 'Tern gave up.',
    willRetry: 'Tern will try again.',
    retryNow: 'Retry now',
    retryAll: 'Retry all now',
    retryOne: (host: string) => `Retry ${host} now`,
    retried: (n: number) => (n === 0 ? 'Nothing needed a retry.' : `${formatNumber(n)} ${plural(n, { one: 'delivery', other: 'deliveries' })} will be tried again now.`),
    loadFailed: 'The delivery queue could not be loaded.',
    emptyTitle: 'Nothing to deliver',
    emptyText: 'When you post, follow or like, what Tern sends to other servers appears here with its progress.',
    emptyFiltered: 'Nothing here with this state.',
    filter: 'Show',
    filters: { all: 'All', pending: 'Waiting', failed: 'Failed', sent: 'Delivered' },
    online: 'Online',
    offline: 'Offline',
    offlineBecause: 'This computer has no network. Posts wait and go out when it is back.',
    workingOffline: 'Nothing is sent until you turn Work offline off; what you write waits here.',
    onlineText: 'Tern sends as soon as something is queued.',
    listenerLocal: (url: string) => `(on this computer at ${url})`,
    listenerSettings: 'Listener settings',
  },

  stream: {
    title: 'Stream',
    lede: 'Posts from the people you follow, and your own.',
    loadFailed: 'The stream could not be loaded.',
    emptyTitle: 'Your stream is quiet',
    emptyText: 'Follow someone to see their posts here — look them up by their handle, such as @ana@example.social.',
    findPeople: 'Find people to follow',
    writeFirst: 'Write a post',
    fresh: (n: number) => `Show ${formatNumber(n)} new ${plural(n, { one: 'post', other: 'posts' })}`,
  },

  profile: {
    title: 'Profile',
    postsLabel: 'Your posts',
    noSummary: 'No description yet.',
    addSummary: 'Add one in Settings',
    write: 'New post',
    loadFailed: 'Your posts could not be loaded.',
    emptyTitle: 'You have not posted yet',
    emptyText: 'What you write appears here first, with how far it has travelled. It works offline too.',
    writeFirst: 'Write your first post',
  },

  compose: {
    title: 'New post',
    replyTitle: 'Reply',
    lede: 'Write in Markdown. It is saved as you type, and works offline.',
    textLabel: 'Your post',
    placeholder: 'What’s on your mind?',
    contentWarning: 'Content warning',
    contentWarningPlaceholder: 'Content warning: say what the post is about',
    contentWarningOptional: 'Content warning (optional)',
    contentWarningShort: 'CW',
    character: 'character',
    characters: 'characters',
    send: 'Post',
    sendReply: 'Post reply',
    posting: 'Posting…',
    discard: 'Discard draft',
    draftKept: 'Draft kept',
    preview: 'Preview',
    previewEmpty: 'Your post will look like this.',
    markdownHint: '**bold**, _italic_, [link](https://…), lists, `code`',
    mentionsLabel: 'People to mention',
    posted: 'Posted — on its way to your followers',
    postedLocal: 'Posted — it is on your profile; no one follows you yet to send it to',
    savedOffline: 'Saved — will be delivered when you’re online',
    seeInProfile: 'See it in your profile',
    replyingTo: 'Replying to a post',
    replyingToName: (name: string) => `Replying to ${name}`,
    cancelReply: 'Don’t reply',
    replyMissing: 'The post could not be loaded; your reply will still be sent to it.',
    quoteTitle: 'Quote',
    sendQuote: 'Post quote',
    quoting: 'Quoting a post',
    quotingName: (name: string) => `Quoting ${name}`,
    cancelQuote: 'Don’t quote',
    quoteMissing: 'The post could not be loaded; Tern will look it up again when you post.',
    editTitle: 'Edit post',
    editLede: 'Everyone who received the post gets the new version.',
    editLoadFailed: 'The post could not be loaded for editing.',
    saveEdit: 'Save changes',
  },

  people: {
    title: 'People',
    lede: 'Who follows you, whom you follow, and finding someone new.',
    lookupTitle: 'Find someone',
    movedTo: (url: string) => `Moved to ${url}`,
    lookupLabel: 'Handle or URL',
    lookupPlaceholder: '@ana@example.social or https://…',
    lookUp: 'Look up',
    lookingUp: 'Looking up…',
    follow: 'Follow',
    unfollow: 'Unfollow',
    cancelRequest: 'Cancel request',
    remove: 'Remove',
    followsYou: 'Follows you',
    requestedNote: 'They approve followers by hand; you will follow them once they accept.',
    listsLabel: 'Lists of people',
    loadFailed: 'The lists of people could not be loaded.',
    tabs: { followers: 'Followers', following: 'Following', pending: 'Pending', requests: 'Requests' },
    since: { followers: 'Follows you since', following: 'Followed since', pending: 'Asked' },
    confirm: { followers: 'Remove follower', following: 'Unfollow', pending: 'Cancel request' },
    empty: {
      followers: {
        title: 'No one follows you yet',
        text: (handle: string) => `Share ${handle || 'your handle'} — anyone on the fediverse can follow you by it.`,
      },
      following: {
        title: 'You follow no one yet',
        text: (_handle: string) => 'Look someone up above by their handle or a link to their profile, and follow them.',
      },
      pending: {
        title: 'No follow waiting for an answer',
        text: (_handle: string) => 'When you follow someone who approves followers by hand, it waits here until they answer.',
      },
    },
  },

  search: {
    title: 'Search',
    lede: 'Your posts, everything you received or looked up, people and webmentions — on this computer, offline too.',
    label: 'Search posts, people and webmentions',
    placeholder: 'Words, "a phrase", from:@ana@example.social, has:media…',
    submit: 'Search',
    searching: 'Searching…',
    sortLabel: 'Order',
    sort: { relevance: 'Best match', date: 'Newest first' },
    kindsLabel: 'What to search',
    kinds: { all: 'Everything', posts: 'Posts', people: 'People', webmentions: 'Webmentions' },
    help: 'How to search',
    helpRows: [
      ['heron canal', 'posts with both words'],
      ['"grey heron"', 'the exact phrase'],
      ['-gull', 'leave out posts with a word'],
      ['from:@ana@example.social', 'posts by someone (from:me: yours)'],
      ['has:media  has:poll', 'posts with pictures or media, or a poll'],
      ['is:reply  is:mine', 'replies; your own posts'],
      ['before:2024-05-01  after:2024-04-01', 'posts by date (during: one day)'],
      ['visibility:public', 'public, unlisted, followers or direct'],
      ['kingf*', 'words starting with…'],
    ] as [string, string][],
    idleTitle: 'Search everything Tern keeps',
    idleText: 'Type a few words, or use the operators under “How to search”. Press / anywhere to come here.',
    indexing: (percent: number) => `Still indexing: ${formatNumber(percent)}%. Older posts may be missing from the results until it is done.`,
    people: 'People',
    posts: 'Posts',
    webmentions: 'Webmentions',
    openPerson: 'Look up',
    openThread: 'Open the thread',
    onPost: 'On your post',
    someone: 'Someone',
    nothingTitle: (q: string) => `Nothing found for “${q}”`,
    nothingText: 'Try fewer or other words, or remove an operator. Tern searches only what it holds on this computer.',
    failed: 'The search could not be run.',
    badQuery: 'Tern did not understand this search.',
  },

  webmentions: {
    title: 'Webmentions',
    lede: 'Web pages that mention your posts, and the pages your posts mention.',
    tabsLabel: 'Received or sent',
    tabs: { received: 'Received', sent: 'Sent' },
    kind: { reply: 'Reply', like: 'Like', repost: 'Repost', bookmark: 'Bookmark', mention: 'Mention' },
    state: { new: 'New', updated: 'Updated', deleted: 'Removed by its author' },
    sentState: {
      queued: 'Queued',
      discovering: 'Finding the endpoint',
      sending: 'Sending',
      retrying: 'Will retry',
      sent: 'Sent',
      failed: 'Failed',
    },
    someone: 'Someone',
    onPost: 'On your post',
    deletedPost: 'Your deleted post',
    count: (n: number) => `${formatNumber(n)} ${plural(n, { one: 'webmention', other: 'webmentions' })}`,
    openSource: 'Open the page',
    showMore: (n: number) => `Show more (${formatNumber(n)} not shown)`,
    moreFailed: 'More webmentions could not be loaded.',
    to: 'To',
    from: 'From your post',
    endpoint: 'endpoint',
    tries: (n: number) => `${formatNumber(n)} ${plural(n, { one: 'try', other: 'tries' })}`,
    lastStatus: (code: number) => `last answer HTTP ${code}`,
    loadFailed: 'The webmentions could not be loaded.',
    emptyReceived: 'No webmentions yet',
    emptyReceivedText: 'When a blog or site links to one of your public posts and tells Tern (a webmention), it appears here.',
    emptySent: 'No webmentions sent yet',
    emptySentText: 'When a public post links to a web page that accepts webmentions, Tern tells that page, and the result appears here.',
  },

  apps: {
    title: 'Apps',
    lede: 'Apps that sign in as you (IndieAuth, Mastodon apps) and post for you (Micropub, the Mastodon API). Nothing gets access until you approve it here.',
    pendingTitle: 'Waiting for your approval',
    pendingEmpty: 'No app is asking to sign in. When one does, it waits here — the page it opened says “Open Tern to approve”.',
    asks: (name: string) => `${name} wants to sign in as you`,
    registered: 'Registered with this Tern',
    identifiedBy: 'Identified by its address',
    claimed: '(as the app says; not checked)',
    sendsBackTo: 'Sends you back to',
    pairingCode: 'Code on its page',
    pairingHint: 'approve only if the sign-in page you opened shows this same code; a request you did not start is someone else’s.',
    signInOnly: 'It asks only to know who you are. It will not be able to post.',
    scopesLegend: 'Allow it to',
    scopes: {
      profile: 'See your name and profile address',
      create: 'Post, like and boost as you',
      update: 'Edit your posts',
      delete: 'Delete your posts',
      media: 'Upload images, video and audio for its posts',
      read: 'Read your timeline, notifications, posts and people',
      write: 'Post, edit, delete, like, boost and vote as you',
      follow: 'Follow and unfollow people, answer follow requests',
      push: 'Send you push notifications',
    } as Record<string, string>,
    expires: 'Expires',
    approve: 'Approve',
    deny: 'Deny',
    approved: (name: string) => `${name} is signed in. Its page will go back to it by itself.`,
    denied: (name: string) => `${name} was refused.`,
    refusedTitle: (n: number) => `${formatNumber(n)} ${plural(n, { one: 'sign-in was', other: 'sign-ins were' })} refused: too many are waiting`,
    refusedDetail:
      'Anyone can open your sign-in page, and each request waits here for ten minutes. If you do not recognise the requests below, decline them all — that frees their places at once — then start your own sign-in again.',
    declineAll: (n: number) => `Decline all waiting (${formatNumber(n)})`,
    declineHost: (host: string, n: number) => `Decline all ${formatNumber(n)} for ${host}`,
    declinedAll: (n: number) => `${formatNumber(n)} ${plural(n, { one: 'request was', other: 'requests were' })} declined.`,
    accessTitle: 'Apps with access',
    accessEmpty: 'No app can post for you.',
    granted: 'Allowed',
    validUntil: 'expires',
    untilRevoked: 'until you revoke it',
    revoke: 'Revoke',
    confirmRevoke: 'Revoke access',
    loadFailed: 'The apps could not be loaded.',
  },

  polls: {
    title: 'Polls',
    lede: 'Your polls, open ones first, with how they stand.',
    loadFailed: 'Your polls could not be loaded.',
    emptyTitle: 'No polls yet',
    emptyText: 'Ask your followers something: write a post in Compose and add a poll to it.',
    writeFirst: 'Write a poll',
    listLabel: 'Your polls',
    pollLabel: 'Poll',
    chooseOne: 'Choose one',
    chooseAny: 'Choose one or more',
    vote: 'Vote',
    voting: 'Voting…',
    voted: 'You voted',
    yourVote: '(your vote)',
    voteFailed: (message: string) => `Your vote was not sent. ${message}`,
    voters: (n: number) => `${formatNumber(n)} ${plural(n, { one: 'person', other: 'people' })}`,
    votes: (n: number) => `${formatNumber(n)} ${plural(n, { one: 'vote', other: 'votes' })}`,
    percent: (part: number, whole: number) => `${formatNumber(whole > 0 ? Math.round((part * 100) / whole) : 0)}%`,
    endsIn: (relative: string) => `ends ${relative}`,
    ended: 'Closed',
    endedAt: (relative: string) => `closed ${relative}`,
    hiddenUntilClosed: 'Results are shown when the poll closes.',
    hiddenForOthers: 'Others see the results when the poll closes.',
    pollEnded: 'Your poll has ended',
    votedPollEnded: (who: string) => `${who}’s poll you voted in has ended`,
    // The builder in Compose.
    add: 'Poll',
    addLabel: 'Add a poll',
    remove: 'Remove poll',
    option: (n: number) => `Option ${formatNumber(n)}`,
    addOption: 'Add an option',
    removeOption: (n: number) => `Remove option ${formatNumber(n)}`,
    multiple: 'Allow more than one choice',
    duration: 'Open for',
    durations: [
      { seconds: 300, label: '5 minutes' },
      { seconds: 1800, label: '30 minutes' },
      { seconds: 3600, label: '1 hour' },
      { seconds: 21600, label: '6 hours' },
      { seconds: 86400, label: '1 day' },
      { seconds: 259200, label: '3 days' },
      { seconds: 604800, label: '7 days' },
    ],
    hideTotals: 'Hide the results until the poll closes',
    needOptions: 'A poll needs at least two different options.',
  },

  media: {
    add: 'Add images or media',
    addShort: 'Media',
    accept: 'JPEG, PNG, WebP, GIF, AVIF; MP4, WebM, Ogg, MP3, WAV, FLAC',
    uploading: (name: string) => `Uploading ${name}`,
    uploaded: 'Uploaded',
    altLabel: 'Description (alt text)',
    altPlaceholder: 'Describe it for people who cannot see it',
    noAlt: 'It needs no description (decorative)',
    markSensitive: 'Sensitive: blur until clicked',
    remove: (name: string) => `Remove ${name}`,
    removeShort: 'Remove',
    tooMany: (max: number) => `A post can carry ${max} files.`,
    waitUploads: 'Wait for the files to finish uploading.',
    removeFailed: 'Remove the files that could not be uploaded.',
    describeImages: 'Describe each image (or mark it as needing no description).',
    altBadge: 'ALT',
    showAlt: 'Show the description',
    hideAlt: 'Hide the description',
    sensitive: 'Sensitive media — show',
    unavailable: 'The image could not be loaded.',
    openFile: (kind: string) => `Open the ${kind} (outside Tern)`,
    kinds: { image: 'image', video: 'video', audio: 'audio', file: 'file' },
  },

  errors: {
    forbidden: 'This page needs the link Tern printed when it started (with its token).',
    unavailable: 'Tern is not answering. Is it still running?',
    badAnswer: 'Tern sent an answer this window does not understand. Restarting Tern may help.',
    internal: 'Something went wrong inside Tern. Restarting Tern may help.',
  },
} as const;
