// The files attached in Compose: each one uploads as soon as it is picked (with progress), shows
// a preview made on this machine (a blob: URL — nothing leaves the app to show it), and carries
// its alt text. Images need a description unless the author says they need none. Uploaded files
// and their alt text are kept with the draft across restarts (keptAttachments.ts).
import { useCallback, useEffect, useRef, useState } from 'react';
import type { UploadView } from '../../electron/core/ipc/media-contract';
import { toApiError } from '../api';
import { strings } from '../strings';
import { readKeptMedia, writeKeptMedia, type KeptAttachment } from './keptAttachments';
import { uploadFile } from './upload';

export const MAX_FILES = 4;

export interface PendingAttachment {
  key: string;
  name: string;
  type: string;
  /** blob: URL for images, video and audio. */
  preview: string | null;
  progress: number;
  state: 'uploading' | 'ready' | 'failed';
  upload: UploadView | null;
  error: string | null;
  alt: string;
  /** The author said this image needs no description (decorative). */
  noAlt: boolean;
}

const isImage = (type: string) => type.startsWith('image/');
export const needsAlt = (a: PendingAttachment) => isImage(a.type) && !a.noAlt && a.alt.trim() === '';

/** A kept file as attached again: uploaded, its preview Tern's own copy. */
function restored(kept: KeptAttachment): PendingAttachment {
  const preview = isImage(kept.type) ? (kept.upload.thumbSrc ?? kept.upload.src) : null;
  return { ...kept, preview, progress: 1, state: 'ready', error: null };
}

const isBlob = (url: string | null): url is string => url !== null && url.startsWith('blob:');

export function useAttachments() {
  const [kept] = useState(() => readKeptMedia(MAX_FILES));
  const [items, setItems] = useState<PendingAttachment[]>(() => kept.items.map(restored));
  /** The author marked the media sensitive: shown blurred until clicked, everywhere. */
  const [sensitive, setSensitive] = useState(kept.sensitive);

  useEffect(() => {
    const uploaded = items.flatMap((a) => (a.upload ? [{ key: a.key, name: a.name, type: a.type, upload: a.upload, alt: a.alt, noAlt: a.noAlt }] : []));
    writeKeptMedia({ items: uploaded, sensitive });
  }, [items, sensitive]);
  const aborts = useRef(new Map<string, AbortController>());
  const update = useCallback((key: string, change: Partial<PendingAttachment>) => setItems((all) => all.map((a) => (a.key === key ? { ...a, ...change } : a))), []);

  useEffect(
    () => () => {
      for (const controller of aborts.current.values()) controller.abort();
    },
    [],
  );

  const add = useCallback(
    (files: FileList | File[]) => {
      const room = MAX_FILES - items.length;
      for (const file of [...files].slice(0, Math.max(0, room))) {
        const key = crypto.randomUUID();
        const type = file.type || 'application/octet-stream';
        const preview = /^(image|video|audio)\//.test(type) ? URL.createObjectURL(file) : null;
        const controller = new AbortController();
        aborts.current.set(key, controller);
        setItems((all) => [...all, { key, name: file.name, type, preview, progress: 0, state: 'uploading', upload: null, error: null, alt: '', noAlt: false }]);
        uploadFile(file, type, (progress) => update(key, { progress }), controller.signal).then(
          (upload) => update(key, { state: 'ready', upload, progress: 1 }),
          (error: unknown) => {
            if (!controller.signal.aborted) update(key, { state: 'failed', error: toApiError(error, 'media.uploadFinish').message });
          },
        );
      }
    },
    [items.length, update],
  );

  const remove = useCallback((key: string) => {
    aborts.current.get(key)?.abort();
    aborts.current.delete(key);
    setItems((all) => {
      const gone = all.find((a) => a.key === key);
      if (isBlob(gone?.preview ?? null)) URL.revokeObjectURL(gone!.preview!);
      return all.filter((a) => a.key !== key);
    });
  }, []);

  const clear = useCallback(() => {
    setItems((all) => {
      for (const a of all) if (isBlob(a.preview)) URL.revokeObjectURL(a.preview);
      return [];
    });
    aborts.current.clear();
    setSensitive(false);
  }, []);

  const uploading = items.some((a) => a.state === 'uploading');
  const failed = items.some((a) => a.state === 'failed');
  const missingAlt = items.some(needsAlt);
  /** Why the post cannot be sent yet, or null. */
  const blocker = uploading ? strings.media.waitUploads : failed ? strings.media.removeFailed : missingAlt ? strings.media.describeImages : null;
  const forPost = () => items.filter((a) => a.upload).map((a) => ({ uploadId: a.upload!.id, alt: a.noAlt ? null : a.alt.trim() || null, filename: a.name }));

  return { items, add, remove, clear, update, blocker, forPost, sensitive: sensitive && items.length > 0, setSensitive };
}
