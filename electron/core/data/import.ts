// Importing the people to follow from a CSV: Mastodon's following_accounts.csv (the first
// column of each row after the header) or a bare list of handles and URLs, one per line. Each
// Follow goes through the author's follow action, so it is queued and sent by the delivery
// loop like any other; one that fails never stops the rest.
import type { Db } from '../../../db/client';
import type { AuthorService } from '../federation/actions';
import { BadInputError, ConflictError } from '../errors';
import { findActor } from '../federation/actors';
import { findActorByHandle, parseHandle } from '../federation/lookup';
import { followStateOf } from '../federation/actions/social';

export const MAX_IMPORT_BYTES = 1024 * 1024;
export const MAX_IMPORT_LINES = 5000;

export interface ImportFailure {
  /** 1-based line of the CSV. */
  line: number;
  text: string;
  reason: string;
}

export interface ParsedFollowing {
  /** Handles (`user@host`) and URLs to follow, in order, without duplicates. */
  entries: { line: number; target: string }[];
  refused: ImportFailure[];
}

export interface ImportResult {
  followed: number;
  skipped: number;
  failed: ImportFailure[];
}

/** The first field of a CSV row (RFC 4180 quoting), trimmed. */
function firstField(row: string): string {
  const text = row.trim();
  if (!text.startsWith('"')) return (text.split(',')[0] ?? '').trim();
  let out = '';
  for (let i = 1; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      if (text[i + 1] === '"') {
        out += '"';
        i++;
      } else break;
    } else out += c;
  }
  return out.trim();
}

export function parseFollowingCsv(text: string): ParsedFollowing {
  if (Buffer.byteLength(text, 'utf8') > MAX_IMPORT_BYTES) throw new BadInputError('The list is larger than 1 MiB; split it into smaller files.');
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  if (lines.length > MAX_IMPORT_LINES) throw new BadInputError(`The list has more than ${MAX_IMPORT_LINES.toLocaleString('en')} lines; split it into smaller files.`);
  const entries: ParsedFollowing['entries'] = [];
  const refused: ImportFailure[] = [];
  const seen = new Set<string>();
  lines.forEach((raw, index) => {
    const line = index + 1;
    const field = firstField(raw);
    if (field === '') return;
    if (index === 0 && /^account address$/i.test(field)) return;
    let target: string;
    let key: string;
    const handle = parseHandle(field);
    if (handle) {
      target = `${handle.user}@${handle.host}`;
      key = target.toLowerCase();
    } else if (/^https?:\/\//i.test(field) && URL.canParse(field)) {
      target = new URL(field).href;
      key = target;
    } else {
      refused.push({ line, text: field, reason: 'Not an account address (user@host) or an http(s) URL.' });
      return;
    }
    if (seen.has(key)) return;
    seen.add(key);
    entries.push({ line, target });
  });
  return { entries, refused };
}

/** Whether we already follow, or asked to follow, the account (as far as the cache knows). */
/** What importing follows needs: the database and the author's follow action. */
export interface ImportDeps {
  db: Db;
  services: { author: Pick<AuthorService, 'follow'> };
}

function alreadyFollowing(core: ImportDeps, target: string): boolean {
  const known = parseHandle(target) ? findActorByHandle(core.db, target) : findActor(core.db, target);
  return known !== undefined && followStateOf(core.db, known) !== 'none';
}

/** Follows everyone on the list, one after another; refused lines are reported as failures. */
export async function importFollowing(core: ImportDeps, text: string): Promise<ImportResult> {
  const { entries, refused } = parseFollowingCsv(text);
  const result: ImportResult = { followed: 0, skipped: 0, failed: [...refused] };
  for (const { line, target } of entries) {
    if (alreadyFollowing(core, target)) {
      result.skipped++;
      continue;
    }
    try {
      await core.services.author.follow(target);
      result.followed++;
    } catch (error) {
      if (error instanceof ConflictError) result.skipped++;
      else result.failed.push({ line, text: target, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  result.failed.sort((a, b) => a.line - b.line);
  return result;
}
