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

/**
 * Turns the tag blocks of a FLAC file into padding, in place. Returns how many were turned. A
 * chain it cannot follow (a block running past the end of the file) stops the walk there,
 * leaving the rest as it is, as blankMp4Metadata does.
 */
export async function blankFlacMetadata(file: RandomAccess): Promise<number> {
  if ((await file.read(0, 4)).toString('latin1') !== 'fLaC') return 0;
  let blanked = 0;
  // Each block is a 4-byte header (last-block flag, 7-bit type, 24-bit length) and its body; the
  // walk moves forward by at least 4 bytes a block, and ends at the block flagged last.
  for (let at = 4; at + 4 <= file.size; ) {
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
