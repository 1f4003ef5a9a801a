// A link preview under a post: the page's picture, title, description and site, read by the
// core from the page's head (previews/opengraph.ts) and stored with the post (og_meta), and the
// host the link leads to, always, whatever the page calls itself. The whole card is one link to
// the page, opened outside Tern. The picture is loaded only through Tern's media proxy (the page
// contacts no other server); any other src is left out.
import { useEffect, useState } from 'react';
import type { LinkPreviewView, PostView } from '../../electron/core/ipc/author-contract';
import { call } from '../api';
import { externalHref, previewSource } from './links';

/** The author's own post just written: its previews are fetched in the background and may come
 * after the list was read. It is asked for again (by its id, from Tern's own rows: no network)
 * at these moments after it is shown, while it is this new (a slow page takes up to 8 s to
 * fetch, and its head a few more to read). */
const LATE_TRIES_MS = [1_500, 5_000, 15_000];
const LATE_WINDOW_MS = 60_000;

/** The post's previews; for the author's post of the last minute, those that arrive after it was read. */
export function usePreviews(post: PostView): LinkPreviewView[] | undefined {
  // Kept with the version of the post they belong to: another post, or an edit, shows none of them.
  const [late, setLate] = useState<{ apId: string; updated: string | null; previews: LinkPreviewView[] } | null>(null);
  const waiting =
    post.mine.own &&
    !post.deleted &&
    post.previews === undefined &&
    post.attachments.length === 0 &&
    Date.now() - Date.parse(post.published) < LATE_WINDOW_MS &&
    /<a\s[^>]*href="https?:/i.test(post.contentHtml);
  const { apId, updated } = post;
  useEffect(() => {
    if (!waiting) return;
    let live = true;
    const timers = LATE_TRIES_MS.map((ms) =>
      setTimeout(() => {
        call('lookup.resolve', { query: apId }).then(
          (found) => {
            if (live && found.kind === 'post' && found.post.previews && found.post.updated === updated) setLate({ apId, updated, previews: found.post.previews });
          },
          () => undefined,
        );
      }, ms),
    );
    return () => {
      live = false;
      timers.forEach(clearTimeout);
    };
  }, [waiting, apId, updated]);
  return post.previews ?? (late !== null && late.apId === apId && late.updated === updated ? late.previews : undefined);
}

export function LinkPreview({ preview }: { preview: LinkPreviewView }) {
  const href = externalHref(preview.url);
  if (href === undefined) return null;
  const image = preview.imageSrc?.startsWith('/media/proxy/') ? preview.imageSrc : null;
  const source = previewSource(href, preview.siteName);
  return (
    <a className="post__preview" href={href} target="_blank" rel="noopener noreferrer nofollow">
      {image && <img className="post__preview-image" src={image} alt="" loading="lazy" decoding="async" />}
      <span className="post__preview-text">
        <span className="post__preview-site">
          {source.site !== null && (
            <>
              <bdi>{source.site}</bdi>
              {' · '}
            </>
          )}
          <span className="post__preview-host">{source.host}</span>
        </span>
        <span className="post__preview-title">{preview.title}</span>
        {preview.description && <span className="post__preview-description">{preview.description}</span>}
      </span>
    </a>
  );
}
