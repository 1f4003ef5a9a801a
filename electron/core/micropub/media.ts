// Media in Micropub requests: the photo, video and audio values of a create, as Tern attaches
// them. A URL of one of the author's uploads (what the media endpoint answered in Location)
// becomes a real attachment (outbox_object_attachment, federated as Image or Document); a file
// part of a multipart create goes through the same upload pipeline first. A URL on another
// server stays a link in the text, as before the media endpoint: Tern does not fetch it — a
// post written offline would fail, a token would make the listener fetch any address on
// demand, and the file is the other site's to serve. Alt text comes from the JSON form
// {value, alt} or from mp-photo-alt (mp-video-alt, mp-audio-alt), one per value in order.
import { z } from 'zod';
import type { Db } from '../../../db/client';
import type { Upload } from '../../../db/schema';
import type { LocalActor } from '../federation/identity';
import type { AttachmentInput } from '../media/attachments';
import { MAX_ALT_LENGTH, MAX_ATTACHMENTS } from '../media/limits';
import { sniffImage } from '../media/sniff';
import { acceptedType, findUploadByHash, headOf, SNIFF_BYTES, type IncomingFile } from '../media/store';
import { UploadedFile } from '../media/uploaded-file';
import { MicropubError, type Properties } from './errors';

export const MEDIA_PROPERTIES = ['photo', 'video', 'audio'] as const;
export type MediaProperty = (typeof MEDIA_PROPERTIES)[number];
export const isMediaProperty = (name: string): name is MediaProperty => (MEDIA_PROPERTIES as readonly string[]).includes(name);

/** What the media endpoint and multipart creates store, and what a refused request gives back. */
export interface MicropubMedia {
  store(input: { file: IncomingFile; contentType: string }): Promise<{ upload: Upload; created: boolean }>;
  discard(ids: readonly number[]): void;
}

type Item =
  | { kind: 'upload'; upload: Upload; filename: string; alt: string | null }
  | { kind: 'file'; file: UploadedFile; property: MediaProperty; alt: string | null }
  | { kind: 'link'; url: string; alt: string | null };

export interface MediaPlan {
  items: Item[];
  /** Links to other servers' files, for the text. */
  links: { url: string; alt: string | null }[];
}

const FAMILY: Record<MediaProperty, string> = { photo: 'image', video: 'video', audio: 'audio' };

function family(property: MediaProperty, contentType: string, what: string): void {
  if (contentType.split('/')[0] !== FAMILY[property]) throw new MicropubError('invalid_request', `${property}: ${what} is not ${property === 'audio' ? 'audio' : `a ${property}`} (${contentType})`);
}

/** The upload a URL of the author's names (/media/<hash>/<filename>), or null for another server's URL. */
function ownUpload(db: Db, local: LocalActor, property: string, href: string): { upload: Upload; filename: string } | null {
  const prefix = `${local.baseUrl}/media/`;
  if (!href.startsWith(prefix)) return null;
  const match = /^([0-9a-f]{64})\/([^/?#]{1,400})$/.exec(href.slice(prefix.length));
  const row = match ? findUploadByHash(db, match[1]!) : undefined;
  if (!match || !row) throw new MicropubError('invalid_request', `${property}: ${href} is not a file uploaded to this Tern (upload it to the media endpoint first)`);
  let filename: string;
  try {
    filename = decodeURIComponent(match[2]!);
  } catch {
    throw new MicropubError('invalid_request', `${property}: ${href} is not a file uploaded to this Tern`);
  }
  return { upload: row, filename };
}

const httpUrl = z
  .string()
  .trim()
  .max(2048)
  .url()
  .refine((u) => /^https?:/i.test(u))
  .transform((u) => new URL(u).href);
const alt = z.string().max(MAX_ALT_LENGTH, `alt text can be at most ${MAX_ALT_LENGTH} characters`);
/** A value by URL: the URL, or mf2 JSON's {value, alt}. */
const urlValue = z.union([httpUrl.transform((url) => ({ url, alt: undefined })), z.object({ value: httpUrl, alt: alt.optional() }).transform((v) => ({ url: v.value, alt: v.alt }))]);

function altOf(props: Properties, property: MediaProperty, given: unknown, index: number): string | null {
  const parsed = alt.nullish().safeParse(given === undefined ? props[`mp-${property}-alt`]?.[index] : given);
  if (!parsed.success) throw new MicropubError('invalid_request', `${property}: ${parsed.error.issues[0]?.message ?? 'alt text must be a string'}`);
  return parsed.data?.trim() || null;
}

/** Reads the media properties; refuses anything wrong before a byte is stored. */
export function planMedia(db: Db, local: LocalActor, props: Properties): MediaPlan {
  const items: Item[] = [];
  for (const property of MEDIA_PROPERTIES) {
    (props[property] ?? []).forEach((value, index) => {
      // A file part of a multipart request, kept in the properties where the client put it.
      if (value instanceof UploadedFile) {
        items.push({ kind: 'file', file: value, property, alt: altOf(props, property, undefined, index) });
        return;
      }
      const parsed = urlValue.safeParse(value);
      if (!parsed.success) throw new MicropubError('invalid_request', `${property}: must be an http(s) URL, {value, alt} or a file`);
      const { url: href } = parsed.data;
      const alt = altOf(props, property, parsed.data.alt, index);
      const own = ownUpload(db, local, property, href);
      if (own) {
        family(property, own.upload.contentType, href);
        items.push({ kind: 'upload', ...own, alt });
      } else items.push({ kind: 'link', url: href, alt });
    });
  }
  if (items.filter((i) => i.kind !== 'link').length > MAX_ATTACHMENTS) throw new MicropubError('invalid_request', `a post can have at most ${MAX_ATTACHMENTS} files`);
  return { items, links: items.flatMap((i) => (i.kind === 'link' ? [{ url: i.url, alt: i.alt }] : [])) };
}

/** The type a file part is stored as: the one it declares, or what its first bytes say when it
 * declares none. */
export function declaredType(file: UploadedFile): string {
  const declared = file.type.split(';')[0]!.trim().toLowerCase();
  if (declared !== '' && declared !== 'application/octet-stream') return declared;
  return sniffImage(headOf(file.pieces, SNIFF_BYTES)) ?? (declared || 'application/octet-stream');
}

/**
 * Stores the plan's files and returns the attachments in the order given, with the ids of the
 * uploads this call created (for `discard` if the post is then refused). A file that fails
 * removes the ones stored before it.
 */
export async function storePlan(db: Db, media: MicropubMedia | null, plan: MediaPlan): Promise<{ attachments: AttachmentInput[]; created: number[] }> {
  const attachments: AttachmentInput[] = [];
  const created: number[] = [];
  try {
    for (const item of plan.items) {
      if (item.kind === 'link') continue;
      if (item.kind === 'upload') {
        attachments.push({ uploadId: item.upload.id, alt: item.alt, filename: item.filename });
        continue;
      }
      if (media === null) throw new MicropubError('invalid_request', 'this Tern cannot store files right now');
      const type = declaredType(item.file);
      family(item.property, acceptedType(type), `the file ${JSON.stringify(item.file.name)}`);
      const stored = await media.store({ file: item.file.pieces, contentType: type });
      if (stored.created) created.push(stored.upload.id);
      attachments.push({ uploadId: stored.upload.id, alt: item.alt, filename: item.file.name || null });
    }
  } catch (error) {
    media?.discard(created);
    throw error;
  }
  return { attachments, created };
}
