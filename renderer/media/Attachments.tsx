// A post's media: images from Tern's own origin (the author's uploads, or remote images through
// the core's media proxy — never the remote server itself), with their alt text as the img alt
// and, on demand, visible under the image (the ALT button). Sensitive media are covered by
// their blurhash until clicked. Remote video and audio are not loaded: a link opens them
// outside Tern.
import { useEffect, useRef, useState } from 'react';
import { decode } from 'blurhash';
import type { AttachmentView } from '../../electron/core/ipc/author-contract';
import { strings } from '../strings';
import { useKeptFlag } from '../posts/kept-state';
import '../styles/media.css';

const t = strings.media;

/** `keptAs`: the key its revealing is kept under for the session (posts/kept-state.ts), so a
 * post drawn again shows its media as the author left them. */
export function Attachments({ attachments, sensitive, keptAs }: { attachments: AttachmentView[]; sensitive: boolean; keptAs: string }) {
  const [clicked, setClicked] = useKeptFlag(keptAs);
  const revealed = !sensitive || clicked;
  return (
    <div className={`media-grid media-grid--${Math.min(attachments.length, 4)}`} data-testid="post-media">
      {attachments.map((a, i) => (
        <Attachment key={`${a.url}-${i}`} attachment={a} covered={!revealed} onReveal={() => setClicked(true)} />
      ))}
    </div>
  );
}

function Attachment({ attachment: a, covered, onReveal }: { attachment: AttachmentView; covered: boolean; onReveal: () => void }) {
  const [showAlt, setShowAlt] = useState(false);
  const [broken, setBroken] = useState(false);
  const kind = a.kind ?? 'file';
  let body;
  if (kind === 'image' && a.src && !broken) {
    body = (
      <img
        className="media__image"
        src={a.thumbSrc ?? a.src}
        alt={a.name ?? ''}
        width={a.width ?? undefined}
        height={a.height ?? undefined}
        loading="lazy"
        decoding="async"
        onError={() => setBroken(true)}
      />
    );
  } else if (kind === 'video' && a.src) {
    body = <video className="media__video" src={a.src} controls preload="metadata" aria-label={a.name ?? undefined} />;
  } else if (kind === 'audio' && a.src) {
    body = <audio className="media__audio" src={a.src} controls preload="metadata" aria-label={a.name ?? undefined} />;
  } else {
    body = (
      <p className="media__missing">
        {broken ? `${t.unavailable} ` : null}
        {a.name ? `${a.name} ` : null}
        <a href={a.url} target="_blank" rel="noopener noreferrer nofollow">
          {t.openFile(t.kinds[kind])}
        </a>
      </p>
    );
  }
  return (
    <figure className="media">
      <div className="media__frame">
        {body}
        {covered && (
          <button type="button" className="media__cover" onClick={onReveal}>
            {a.blurhash && <BlurhashCanvas hash={a.blurhash} />}
            <span className="media__cover-label">{t.sensitive}</span>
          </button>
        )}
        {a.name && !covered && (
          <button
            type="button"
            className="alt-badge media__alt-badge"
            aria-expanded={showAlt}
            aria-label={showAlt ? t.hideAlt : t.showAlt}
            title={showAlt ? t.hideAlt : t.showAlt}
            onClick={() => setShowAlt((s) => !s)}
          >
            {t.altBadge}
          </button>
        )}
      </div>
      {a.name && showAlt && !covered && <figcaption className="media__alt">{a.name}</figcaption>}
    </figure>
  );
}

function BlurhashCanvas({ hash }: { hash: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const context = canvas.current?.getContext('2d');
    if (!context) return;
    try {
      const pixels = decode(hash, 32, 32);
      const image = context.createImageData(32, 32);
      image.data.set(pixels);
      context.putImageData(image, 0, 0);
    } catch {
      // Not a valid blurhash: the plain cover stays.
    }
  }, [hash]);
  return <canvas ref={canvas} className="media__blurhash" width={32} height={32} aria-hidden="true" />;
}
