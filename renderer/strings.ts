// Every sentence and label the user sees, in one place so Tern can be translated later, plus
// the Intl helpers that format numbers, times and plurals for the user's locale. Components
// never hold user-visible text of their own.
import type { CountedTable } from '../electron/ipc/contract';

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
    overview: 'Overview',
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

  errors: {
    forbidden: 'This page needs the link Tern printed when it started (with its token).',
    unavailable: 'Tern is not answering. Is it still running?',
    badAnswer: 'Tern sent an answer this window does not understand. Restarting Tern may help.',
    internal: 'Something went wrong inside Tern. Restarting Tern may help.',
  },
} as const;
