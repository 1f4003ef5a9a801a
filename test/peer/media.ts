// Media as a test peer sees them: the attachments of a received post parsed by Fedify's own
// vocabulary (Image/Document: mediaType, url, name, width, height), a GET of a media URL
// (unsigned as Mastodon fetches media, or signed by the peer's key), and building a post with
// an image attachment to send to Tern.
import { signRequest } from '@fedify/fedify';
import { Create, Document, Image, Link, Note, PUBLIC_COLLECTION, type Activity, type Object as APObject } from '@fedify/vocab';
import type { PeerState } from './state';

export interface ParsedAttachment {
  /** Fedify's class name: 'Image', 'Document', … */
  type: string;
  mediaType: string | null;
  url: string | null;
  /** The alt text. */
  name: string | null;
  width: number | null;
  height: number | null;
}

function urlOf(value: URL | Link | null): string | null {
  if (value instanceof URL) return value.href;
  return value?.href?.href ?? null;
}

export async function parseAttachments(object: APObject): Promise<ParsedAttachment[]> {
  const out: ParsedAttachment[] = [];
  for await (const item of object.getAttachments()) {
    if (!(item instanceof Document)) {
      out.push({ type: item.constructor.name, mediaType: null, url: null, name: null, width: null, height: null });
      continue;
    }
    out.push({
      type: item.constructor.name,
      mediaType: item.mediaType,
      url: urlOf(item.url),
      name: item.name?.toString() ?? null,
      width: item.width,
      height: item.height,
    });
  }
  return out;
}

/** The attachments of the object of a Create (or Update) this peer received. */
export async function receivedAttachments(state: PeerState, activityId: string): Promise<ParsedAttachment[]> {
  const activity = state.inbox.find((a: Activity) => a.id?.href === activityId);
  if (activity === undefined) throw new Error(`no received activity ${activityId}`);
  const object = await activity.getObject();
  if (object == null) throw new Error(`activity ${activityId} has no object`);
  return parseAttachments(object);
}

/** GETs a media URL as a remote server would: unsigned, or signed with the peer's RSA key. */
export async function fetchMedia(state: PeerState, keyId: string, url: string, signed: boolean): Promise<Response> {
  const request = new Request(url, { method: 'GET', headers: { accept: '*/*' } });
  if (!signed) return fetch(request);
  const rsa = state.keyPairs[0];
  if (rsa === undefined) throw new Error('the peer has no RSA key');
  return fetch(await signRequest(request, rsa.privateKey, new URL(keyId), { spec: 'rfc9421' }));
}

/** A public Create of a Note carrying one image (`url` served wherever the test likes). */
export function createWithImage(input: { id: URL; actor: URL; followers: URL; content: string; image: { url: string; mediaType: string; name: string; width: number; height: number } }): Create {
  const note = new Note({
    id: new URL(`${input.id.href}/note`),
    attribution: input.actor,
    content: input.content,
    to: PUBLIC_COLLECTION,
    cc: input.followers,
    attachments: [new Image({ url: new URL(input.image.url), mediaType: input.image.mediaType, name: input.image.name, width: input.image.width, height: input.image.height })],
  });
  return new Create({ id: input.id, actor: input.actor, object: note, to: PUBLIC_COLLECTION, cc: input.followers });
}
