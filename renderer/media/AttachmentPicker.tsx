// Compose's media: a button to pick files, then for each one its preview, upload progress,
// alt text (asked for: an image cannot be posted without a description unless the author
// ticks that it needs none) and a Remove button.
import { useId, useRef } from 'react';
import { strings } from '../strings';
import { MAX_FILES, needsAlt, type PendingAttachment, type useAttachments } from './useAttachments';
import '../styles/media.css';

const t = strings.media;
const ACCEPT = 'image/jpeg,image/png,image/webp,image/gif,image/avif,video/mp4,video/webm,video/ogg,video/quicktime,audio/mpeg,audio/ogg,audio/wav,audio/flac,audio/mp4,audio/webm';

export function AttachmentPicker({ media }: { media: ReturnType<typeof useAttachments> }) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const full = media.items.length >= MAX_FILES;
  return (
    <div className="compose-media">
      {media.items.length > 0 && (
        <ul className="compose-media__list">
          {media.items.map((a) => (
            <Item key={a.key} id={`${id}-${a.key}`} item={a} media={media} />
          ))}
        </ul>
      )}
      <input
        ref={input}
        type="file"
        multiple
        accept={ACCEPT}
        className="visually-hidden"
        aria-label={t.add}
        data-testid="compose-file"
        tabIndex={-1}
        onChange={(e) => {
          if (e.target.files) media.add(e.target.files);
          e.target.value = '';
        }}
      />
      <div className="compose-media__actions">
        <button type="button" className="button button--small" title={full ? t.tooMany(MAX_FILES) : t.accept} disabled={full} onClick={() => input.current?.click()}>
          {t.add}
        </button>
        {media.items.length > 0 && (
          <label className="compose-media__noalt">
            <input type="checkbox" checked={media.sensitive} onChange={(e) => media.setSensitive(e.target.checked)} /> {t.markSensitive}
          </label>
        )}
      </div>
    </div>
  );
}

function Item({ id, item: a, media }: { id: string; item: PendingAttachment; media: ReturnType<typeof useAttachments> }) {
  const image = a.type.startsWith('image/');
  return (
    <li className="compose-media__item" data-testid="compose-attachment" data-state={a.state}>
      <div className="compose-media__preview">
        {a.preview && image ? <img src={a.preview} alt="" /> : a.preview && a.type.startsWith('video/') ? <video src={a.preview} muted preload="metadata" /> : <span>{a.type}</span>}
      </div>
      <div className="compose-media__body">
        <p className="compose-media__name">
          {a.name}
          {a.state === 'ready' && <span className="compose-media__done"> · {t.uploaded}</span>}
        </p>
        {a.state === 'uploading' && <progress max={1} value={a.progress} aria-label={t.uploading(a.name)} />}
        {a.state === 'failed' && (
          <p className="field__error" role="alert">
            {a.error}
          </p>
        )}
        {a.state !== 'failed' && (
          <>
            <label className="compose-media__label" htmlFor={`${id}-alt`}>
              {t.altLabel}
            </label>
            <textarea
              id={`${id}-alt`}
              className="field__input field__input--area compose-media__alt"
              rows={2}
              maxLength={1500}
              placeholder={t.altPlaceholder}
              value={a.alt}
              disabled={a.noAlt}
              aria-invalid={needsAlt(a) && a.state === 'ready'}
              onChange={(e) => media.update(a.key, { alt: e.target.value })}
            />
            {image && (
              <label className="compose-media__noalt">
                <input type="checkbox" checked={a.noAlt} onChange={(e) => media.update(a.key, { noAlt: e.target.checked })} /> {t.noAlt}
              </label>
            )}
          </>
        )}
      </div>
      <button type="button" className="button button--small" aria-label={t.remove(a.name)} onClick={() => media.remove(a.key)}>
        {t.removeShort}
      </button>
    </li>
  );
}
