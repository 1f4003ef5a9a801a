// Why an upload was refused. A BadInputError, so IPC answers `bad_input` with the sentence;
// `reason` lets tests and the UI tell the cases apart.
import { BadInputError } from '../errors';

export type MediaRejection = 'too_large' | 'unsupported_type' | 'type_mismatch' | 'corrupt' | 'too_many_pixels' | 'empty';

export class MediaRejectedError extends BadInputError {
  override name = 'MediaRejectedError';
  constructor(
    readonly reason: MediaRejection,
    message: string,
  ) {
    super(message);
  }
}
