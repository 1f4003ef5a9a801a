// A FLAC upload without its tags (RFC 9639, §8): the VORBIS_COMMENT block (title, artist, and
// whatever a recorder writes: LOCATION, the device, the date), PICTURE blocks (cover art, a
// photo) and APPLICATION blocks (foreign metadata: flac --keep-foreign-metadata keeps a WAV's
// LIST/INFO and bext chunks there) become PADDING blocks of the same length, zero-filled: the
// block chain and every offset stay, and decoders skip padding as they skip any block they do
// not need. STREAMINFO, SEEKTABLE and CUESHEET stay; the frames are not touched.
import { zeroFill, type RandomAccess } from './container-metadata';

const PADDING = 1;
const APPLICATION = 2;
const VORBIS_COMMENT = 4;
const PICTURE = 6;
const BLANKED = new Set([APPLICATION, VORBIS_COMMENT, PICTURE]);
/** More metadata blocks than any encoder or tagger writes (a dozen or so). A file of more, say
 * 10 million empty 4-byte APPLICATION blocks in 40 MiB, costs seconds of walking for nothing:
 * it is taken for a chain the walk cannot follow, and the walk stops there, leaving the rest as
 * it is. */
const MAX_BLOCKS = 10_000;

/**
 * Turns the tag blocks of a FLAC file into padding, in place. Returns how many were turned. A
 * chain it cannot follow (a block running past the end of the file, or more than MAX_BLOCKS
 * blocks) stops the walk there, leaving the rest as it is, as blankMp4Metadata does.
 */
export async function blankFlacMetadata(file: RandomAccess): Promise<number> {
  if ((await file.read(0, 4)).toString('latin1') !== 'fLaC') return 0;
  let blanked = 0;
  // Each block is a 4-byte header (last-block flag, 7-bit type, 24-bit length) and its body; the
  // walk moves forward by at least 4 bytes a block, and ends at the block flagged last.
  for (let at = 4, walked = 0; at + 4 <= file.size; walked++) {
    if (walked === MAX_BLOCKS) return blanked;
    const header = await file.read(at, 4);
    const last = (header[0]! & 0x80) !== 0;
    const type = header[0]! & 0x7f;
    const end = at + 4 + header.readUIntBE(1, 3);
    if (type === 127 || end > file.size) return blanked; // 127 is forbidden: not a block header
    if (BLANKED.has(type)) {
      await file.write(at, Buffer.from([(last ? 0x80 : 0) | PADDING]));
      await zeroFill(file, at + 4, end);
      blanked++;
    }
    if (last) return blanked;
    at = end;
  }
  return blanked;
}
