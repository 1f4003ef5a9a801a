// A file that arrived over the network as a multipart part (listener/multipart.ts): its name
// and declared type, and its bytes as the pieces they came in — what saveUploadFile (store.ts)
// writes to disk as they are, so that a file's bytes are never gathered into a Blob or one
// buffer on their way from the socket to the uploads folder.

export class UploadedFile {
  /** The bytes received, fixed when the part ended (the pieces go once the file is stored). */
  readonly size: number;

  constructor(
    /** The filename the client gave ('' when none). */
    readonly name: string,
    /** The Content-Type the part declared ('' when none). */
    readonly type: string,
    /** The bytes in order. saveUploadFile takes each out as it is written (the memory can go as
     * soon as it is on disk): a file is stored once. */
    readonly pieces: Uint8Array[],
  ) {
    this.size = pieces.reduce((n, piece) => n + piece.byteLength, 0);
  }
}
