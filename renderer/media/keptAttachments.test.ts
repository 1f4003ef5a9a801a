// The kept files of the draft: written as they are, read back whatever the storage holds.
import { describe, expect, it } from 'vitest';
import { memoryLocalStorage } from '../test-support';
import { readKeptMedia, writeKeptMedia, type KeptAttachment } from './keptAttachments';

const upload = { id: 7, contentType: 'image/jpeg', contentHash: 'ab', width: 10, height: 10, blurhash: null, hasThumbnail: true, src: '/media/ab/x.jpg', thumbSrc: '/media/ab/thumb' };
const item: KeptAttachment = { key: 'k1', name: 'x.jpg', type: 'image/jpeg', upload, alt: 'A heron', noAlt: false };

memoryLocalStorage();

describe('kept attachments', () => {
  it('reads back what was written, and nothing once the draft has no files', () => {
    writeKeptMedia({ items: [item], sensitive: true });
    expect(readKeptMedia(4)).toEqual({ items: [item], sensitive: true });
    writeKeptMedia({ items: [], sensitive: true });
    expect(readKeptMedia(4)).toEqual({ items: [], sensitive: false });
  });

  it('leaves out what is out of shape, and any path that is not Tern’s own', () => {
    localStorage.setItem(
      'tern.compose.media.v1',
      JSON.stringify({
        items: [item, { ...item, key: 'k2', upload: { ...upload, src: 'https://tracker.example/p.png' } }, { ...item, key: 'k3', upload: { ...upload, src: '//evil.example/x' } }, { key: 'k4' }, 'nonsense'],
        sensitive: 'yes',
      }),
    );
    expect(readKeptMedia(4)).toEqual({ items: [item], sensitive: false });
    localStorage.setItem('tern.compose.media.v1', '{not json');
    expect(readKeptMedia(4)).toEqual({ items: [], sensitive: false });
  });

  it('keeps no more than a post can carry', () => {
    writeKeptMedia({ items: [1, 2, 3, 4, 5].map((n) => ({ ...item, key: `k${n}` })), sensitive: false });
    expect(readKeptMedia(4).items).toHaveLength(4);
  });
});
