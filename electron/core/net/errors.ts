// Typed errors of the outbound HTTP client. Callers branch on the class (delivery decides between
// "retry later" and "give up"; the listener and IPC map them to statuses and sentences), so every
// failure the client itself causes is one of these, all extending NetError.

export class NetError extends Error {
  /** The URL being fetched when the error happened (after redirects: the hop that failed). */
  readonly url: string;

  constructor(message: string, url: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.url = url;
  }
}

/** The URL's host is, or resolved to, an address Tern never connects to (SSRF guard). */
export class BlockedAddressError extends NetError {
  readonly address: string;

  constructor(url: string, address: string) {
    super(`Refusing to connect to ${address} (private, loopback or reserved address) for ${url}`, url);
    this.address = address;
  }
}

/** The URL's host is a name Tern never resolves: localhost (with or without its trailing dot),
 * names under local-only domains (.localhost, .local, .internal…), a single label, empty labels.
 * A BlockedAddressError, so every caller already treats it as final. */
export class RefusedHostError extends BlockedAddressError {
  constructor(url: string, host: string) {
    super(url, host);
    this.message = `Refusing to connect to ${host} (not a public host name) for ${url}`;
  }
}

/** The host name does not exist (DNS answered NXDOMAIN or no address): nothing to retry soon. */
export class HostNotFoundError extends NetError {
  readonly host: string;

  constructor(url: string, host: string, cause?: unknown) {
    // The resolver's error stays the cause: its code (ENOTFOUND) is what delivery reads.
    super(`No such host ${host} (for ${url})`, url, { cause });
    this.host = host;
  }
}

/** Only http: and https: are ever fetched, including as redirect targets. */
export class UnsupportedSchemeError extends NetError {
  constructor(url: string) {
    super(`Refusing to fetch a non-HTTP(S) URL: ${url}`, url);
  }
}

export class BodyTooLargeError extends NetError {
  readonly limitBytes: number;

  constructor(url: string, limitBytes: number) {
    super(`Response body of ${url} exceeds ${limitBytes} bytes`, url);
    this.limitBytes = limitBytes;
  }
}

export class TooManyRedirectsError extends NetError {
  readonly maxRedirects: number;

  constructor(url: string, maxRedirects: number) {
    super(`More than ${maxRedirects} redirects fetching ${url}`, url);
    this.maxRedirects = maxRedirects;
  }
}

export class RequestTimeoutError extends NetError {
  readonly phase: 'connect' | 'overall';
  readonly timeoutMs: number;

  constructor(url: string, phase: 'connect' | 'overall', timeoutMs: number) {
    super(`Timed out (${phase}, ${timeoutMs} ms) fetching ${url}`, url);
    this.phase = phase;
    this.timeoutMs = timeoutMs;
  }
}

/** fetchJson was given a body that is not JSON. */
export class InvalidJsonError extends NetError {
  constructor(url: string, cause: unknown) {
    super(`Response body of ${url} is not valid JSON${cause instanceof Error && cause.name === 'JsonTooDeepError' ? ` (${cause.message})` : ''}`, url, { cause });
  }
}
