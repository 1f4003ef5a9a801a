// A WAV upload without its metadata chunks. RIFF (Microsoft/IBM "Multimedia Programming
// Interface and Data Specifications 1.0") lets any reader skip a chunk it does not know; a
// recorder's metadata lives in such chunks: LIST/INFO (title, artist, software, date), bext (the
// Broadcast Wave's originator, date and time, EBU Tech 3285), iXML (the project, the scene, often
// the place), id3/ID3, cart, axml, _PMX (XMP), and more each year. So the few chunks that carry
// the sound are kept and every other one becomes a JUNK chunk of the same size, zero-filled:
// no offset moves and players skip JUNK as they already skipped the chunk.
import { zeroFill, type RandomAccess } from './container-metadata';

/** The sound (fmt, data, fact), cue points and loops (cue, smpl, inst), and padding. */
const KEPT = new Set(['fmt ', 'data', 'fact', 'cue ', 'smpl', 'inst', 'JUNK', 'junk', 'PAD ', 'pad ', 'FLLR']);
/** More chunks than any recorder writes (a few dozen at most). A file of more, say 5 million
 * empty 8-byte ones in 40 MiB, costs seconds of walking for nothing: it is taken for a structure
 * the walk cannot follow, and the walk stops there, leaving the rest as it is. */
const MAX_CHUNKS = 10_000;

/**
 * Turns the chunks of a WAV file other than KEPT into JUNK, in place. Returns how many were
 * turned. A chunk running past the end of the file stops the walk there, leaving the rest as it
 * is, as blankMp4Metadata does; so does a data chunk declaring size 0 or 0xFFFFFFFF, which an
 * unfinished or streamed recording leaves (players then read the samples to the end of the
 * file): what follows its header is sound, not chunks. So does a file of more than MAX_CHUNKS
 * chunks, at the one past it.
 */
export async function blankWavMetadata(file: RandomAccess): Promise<number> {
  const head = await file.read(0, 12);
  if (head.length < 12 || head.toString('latin1', 0, 4) !== 'RIFF' || head.toString('latin1', 8, 12) !== 'WAVE') return 0;
  let blanked = 0;
  // The walk goes to the end of the file, not of the RIFF size: some taggers append an id3 chunk
  // after it. Each chunk moves it forward by at least 8 bytes.
  for (let at = 12, walked = 0; at + 8 <= file.size; walked++) {
    if (walked === MAX_CHUNKS) return blanked;
    const header = await file.read(at, 8);
    const id = header.toString('latin1', 0, 4);
    const size = header.readUInt32LE(4);
    const end = at + 8 + size;
    if (end > file.size || (id === 'data' && (size === 0 || size === 0xffffffff))) return blanked;
    if (!KEPT.has(id)) {
      await file.write(at, Buffer.from('JUNK', 'latin1'));
      await zeroFill(file, at + 8, end);
      blanked++;
    }
    at = end + (size & 1); // a chunk of odd size is followed by a pad byte
  }
  return blanked;
}
