// A fetched web page's bytes as text: decoded with the charset its Content-Type names, else the
// first <meta charset> (or http-equiv) in its first 2 KiB, else UTF-8 — as a browser reads it. A
// windows-1252 page read as UTF-8 turned "José Müller" into "Jos� M�ller". Used by link
// previews, webmention endpoint discovery and webmention sources. Also the reading of only the
// start of a body (discovery searches the first MiB of a page, whatever its length).

/** The charset a Content-Type names, else the first <meta charset> / http-equiv of the bytes. */
export function charsetOf(contentType: string, start: Uint8Array): string {
  const declared = /;\s*charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];
  if (declared) return declared;
  const ascii = Buffer.from(start.buffer, start.byteOffset, Math.min(start.byteLength, 2048)).toString('latin1');
  return /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(ascii)?.[1] ?? 'utf-8';
}

/** `bytes` decoded as `charset`; UTF-8 when TextDecoder does not know that charset. */
export function decodeBytes(bytes: Uint8Array, charset: string): string {
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/** A page's text from its bytes and its Content-Type header. */
export function pageText(bytes: Uint8Array, contentType: string): string {
  return decodeBytes(bytes, charsetOf(contentType, bytes));
}

/** The first `maxBytes` of a response's body (all of it when shorter); the rest is not
 * downloaded. */
export async function readBodyStart(response: Response, maxBytes: number): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      const take = value.byteLength > maxBytes - size ? value.subarray(0, maxBytes - size) : value;
      chunks.push(take);
      size += take.byteLength;
    }
  } finally {
    void reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks);
}
