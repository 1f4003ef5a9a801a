// Errors the core's services throw at their boundaries. The IPC layer maps each to a typed
// `{ ok: false, error }`, the listener to an HTTP status, the UI to a sentence.

export class TernError extends Error {
  override name = 'TernError';
}
/** Input that passed the schema but makes no sense for the current state. */
export class BadInputError extends TernError {
  override name = 'BadInputError';
}
export class NotFoundError extends TernError {
  override name = 'NotFoundError';
}
export class ConflictError extends TernError {
  override name = 'ConflictError';
}
/** Something the call needs is not there right now (network, peer, listener). */
export class UnavailableError extends TernError {
  override name = 'UnavailableError';
}
