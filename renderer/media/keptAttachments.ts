// The files of the draft in Compose, kept in localStorage beside its text (compose/draft.ts), so
// the attachments and the alt text written for them survive a reload or a restart like the words
// do. Only uploaded files are kept — Tern holds their bytes; the preview after a restart is Tern's
// own copy. (Tern deletes uploads no post used after two days; posting then says so.)
import type { UploadView } from '../../electron/core/ipc/media-contract';

const KEY = 'tern.compose.media.v1';

export interface KeptAttachment {
  key: string;
  name: string;
  type: string;
  upload: UploadView;
  alt: string;
  noAlt: boolean;
}

export interface KeptMedia {
  items: KeptAttachment[];
  sensitive: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** Tern's own paths only: a kept value is never a way to make the page load something else. */
const isOwnPath = (v: unknown): v is string => typeof v === 'string' && v.startsWith('/') && !v.startsWith('//');

function readUpload(v: unknown): UploadView | null {
  if (!isObject(v) || typeof v.id !== 'number' || !Number.isInteger(v.id) || v.id <= 0 || !isOwnPath(v.src)) return null;
  if (typeof v.contentType !== 'string' || typeof v.contentHash !== 'string') return null;
  return {
    id: v.id,
    contentType: v.contentType,
    contentHash: v.contentHash,
    width: typeof v.width === 'number' ? v.width : null,
    height: typeof v.height === 'number' ? v.height : null,
    blurhash: typeof v.blurhash === 'string' ? v.blurhash : null,
    hasThumbnail: v.hasThumbnail === true,
    src: v.src,
    thumbSrc: isOwnPath(v.thumbSrc) ? v.thumbSrc : null,
  };
}

function readItem(v: unknown): KeptAttachment | null {
  if (!isObject(v) || typeof v.key !== 'string' || typeof v.name !== 'string' || typeof v.type !== 'string') return null;
  const upload = readUpload(v.upload);
  if (!upload) return null;
  return { key: v.key, name: v.name, type: v.type, upload, alt: typeof v.alt === 'string' ? v.alt : '', noAlt: v.noAlt === true };
}

/** The kept files; anything unreadable or out of shape is left out. */
export function readKeptMedia(max: number): KeptMedia {
  try {
    const raw = localStorage.getItem(KEY);
    const value: unknown = raw ? JSON.parse(raw) : null;
    if (!isObject(value) || !Array.isArray(value.items)) return { items: [], sensitive: false };
    const items = value.items.map(readItem).filter((i): i is KeptAttachment => i !== null).slice(0, max);
    return { items, sensitive: items.length > 0 && value.sensitive === true };
  } catch {
    return { items: [], sensitive: false };
  }
}

export function writeKeptMedia(media: KeptMedia): void {
  try {
    if (media.items.length === 0) localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, JSON.stringify(media));
  } catch {
    // Storage full or disabled: the files stay attached in this window.
  }
}
