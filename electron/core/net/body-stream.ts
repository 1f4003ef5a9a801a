// Turns a node:http response into the web ReadableStream a Response carries: decoded (gzip,
// br, deflate), counted as it streams, and cut off with BodyTooLargeError as soon as it passes
// the cap, so a hostile server cannot make us buffer more than the cap (compressed or not).
import type { IncomingMessage } from 'node:http';
import { pipeline, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import { BodyTooLargeError } from './errors';

export interface BodyStreamOptions {
  url: string;
  maxBodyBytes: number;
  /** Aborted on the overall timeout or by the caller; its reason becomes the stream's error. */
  signal: AbortSignal;
  /** Called once when the body ends, fails or is cancelled. */
  onEnd: () => void;
}

function decoded(res: IncomingMessage): Readable {
  const encoding = (res.headers['content-encoding'] ?? '').trim().toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip()
      : encoding === 'br'
        ? zlib.createBrotliDecompress()
        : encoding === 'deflate'
          ? zlib.createInflate()
          : null;
  if (decoder === null) return res;
  return pipeline(res, decoder, () => {
    // Errors surface through the decoder's iterator; nothing to do here.
  });
}

export function bodyStream(res: IncomingMessage, options: BodyStreamOptions): ReadableStream<Uint8Array> {
  const source = decoded(res);
  const chunks = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let received = 0;
  let ended = false;
  const finish = () => {
    if (ended) return;
    ended = true;
    options.onEnd();
  };
  const stop = (reason?: unknown) => {
    res.destroy();
    if (source !== res) source.destroy();
    finish();
    return reason;
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (next.done === true) {
          finish();
          controller.close();
          return;
        }
        received += next.value.byteLength;
        if (received > options.maxBodyBytes) {
          controller.error(stop(new BodyTooLargeError(options.url, options.maxBodyBytes)));
          return;
        }
        controller.enqueue(new Uint8Array(next.value.buffer, next.value.byteOffset, next.value.byteLength));
      } catch (error) {
        controller.error(stop(options.signal.aborted ? options.signal.reason : error));
      }
    },
    cancel() {
      // A body already received in full (an empty 202, say) is let run out instead, so its
      // keep-alive socket goes back to the pool rather than being closed; one still arriving is
      // cut off (a hostile server cannot make us read on).
      if (res.complete && source === res) {
        res.resume();
        finish();
        return;
      }
      stop();
    },
  });
}
