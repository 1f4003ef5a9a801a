// A link preview under a post: the page's picture, title, description and site, read by the
// core from the page's head (previews/opengraph.ts) and stored with the post (og_meta). The
// whole card is one link to the page, opened outside Tern. The picture is loaded only through
// Tern's media proxy (the page contacts no other server); any other src is left out.
import type { LinkPreviewView } from '../../electron/core/ipc/author-contract';
import { externalHref } from './links';

const hostOf = (url: string) => {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return url;
  }
};

export function LinkPreview({ preview }: { preview: LinkPreviewView }) {
  const href = externalHref(preview.url);
  if (href === undefined) return null;
  const image = preview.imageSrc?.startsWith('/media/proxy/') ? preview.imageSrc : null;
  return (
    <a className="post__preview" href={href} target="_blank" rel="noopener noreferrer nofollow">
      {image && <img className="post__preview-image" src={image} alt="" loading="lazy" decoding="async" />}
      <span className="post__preview-text">
        <span className="post__preview-site">{preview.siteName ?? hostOf(href)}</span>
        <span className="post__preview-title">{preview.title}</span>
        {preview.description && <span className="post__preview-description">{preview.description}</span>}
      </span>
    </a>
  );
}
