// Tag payloads for the container metadata tests, built on the spot (nothing binary in the
// repository). Not imported by production code.

/** A Vorbis comment (Vorbis I spec §5.2.1, RFC 9639 §8.6): vendor and comments, each a 32-bit
 * little-endian length and UTF-8, the comments counted first. No framing bit. */
export function vorbisComment(vendor: string, comments: readonly string[]): Buffer {
  const string = (s: string) => {
    const bytes = Buffer.from(s, 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32LE(bytes.length);
    return Buffer.concat([length, bytes]);
  };
  const count = Buffer.alloc(4);
  count.writeUInt32LE(comments.length);
  return Buffer.concat([string(vendor), count, ...comments.map(string)]);
}
