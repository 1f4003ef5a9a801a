// Where the page loads an attachment from: the author's own uploads from the data folder
// (whatever the public base URL, reachable or not), remote images through the media proxy.
// Remote video and audio are not proxied (no range requests, large): they stay links the
// author opens outside Tern.
import type { AttachmentView } from '../ipc/author-contract';
import { localMediaPath, localThumbnailPath, proxyPath } from './paths';

type Kind = NonNullable<AttachmentView['kind']>;

function kindOf(mediaType: string | null, apType: string | null): Kind {
  const family = mediaType?.split('/')[0];
  if (family === 'image' || family === 'video' || family === 'audio') return family;
  if (apType === 'Image') return 'image';
  if (apType === 'Video') return 'video';
  if (apType === 'Audio') return 'audio';
  return 'file';
}

/** `base` is the author's base URL for their own posts (null for received ones). */
export function withSources(view: AttachmentView, apType: string | null, ownBase: string | null): AttachmentView {
  const kind = kindOf(view.mediaType, apType);
  if (ownBase !== null && view.url.startsWith(`${ownBase}/media/`)) {
    const hash = /^\/media\/([0-9a-f]{64})\//.exec(view.url.slice(ownBase.length))?.[1];
    if (hash) return { ...view, kind, src: localMediaPath(hash), thumbSrc: kind === 'image' ? localThumbnailPath(hash) : null };
  }
  const src = kind === 'image' ? proxyPath(view.url) : null;
  return { ...view, kind, src, thumbSrc: src };
}
