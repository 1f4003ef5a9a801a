// The one outbound HTTP client of Tern. Everything that leaves the machine (deliveries, key and
// actor fetches, webmention discovery, IndieAuth client metadata, media) goes through a client
// made here, so the SSRF guard, timeouts, body caps and User-Agent hold everywhere.
//
// Built on node:http(s) rather than the global fetch so the guard can sit in the socket's own
// DNS lookup: the address checked is the address connected to, and a name that resolves to a
// public address once and 127.0.0.1 the next time (DNS rebinding) gains nothing. Redirects are
// followed here, hop by hop, so every hop passes the same guard.
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import dns from 'node:dns';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import { createSecureContext, type TLSSocket } from 'node:tls';
import { isBlockedAddress } from './address-guard';
import { bodyStream } from './body-stream';
import {
  BlockedAddressError,
  BodyTooLargeError,
  HostNotFoundError,
  RefusedHostError,
  InvalidJsonError,
  NetError,
  RequestTimeoutError,
  TooManyRedirectsError,
  UnsupportedSchemeError,
} from './errors';
import { parseBoundedJson } from './bounded-json';

export interface HttpClientOptions {
  userAgent: string;
  /** Lets the client reach loopback and private addresses. Tests only; never read from settings. */
  allowPrivateAddresses?: boolean;
  /**
   * Exact IPs exempt from the guard, for tests where a loopback server stands in for a public
   * host while another loopback address must still be refused. Never from settings.
   */
  allowAddresses?: readonly string[];
  /** Overall limit for one fetch, redirects and body included. Default 10 s. */
  timeoutMs?: number;
  /** Limit for establishing each TCP connection. Default min(5 s, timeoutMs). */
  connectTimeoutMs?: number;
  /** Largest (decoded) response body accepted. Default 2 MiB. */
  maxBodyBytes?: number;
  /** Default 5. */
  maxRedirects?: number;
  /** A certificate authority (PEM) to trust instead of the system's, for HTTPS servers a test
   * starts. Tests only; never read from settings. */
  trustedCa?: string;
}

/**
 * TLS sessions kept for resumption, one per server (https.Agent's default is 100). A fan-out
 * goes round every follower's server; past 100 servers the least recent session is dropped
 * before that server comes round again, and every post pays full handshakes. Resuming cost
 * 25–30% less of Tern's CPU per new connection, and 25–35% less time, in a measurement here
 * (200 loopback TLS servers, a new connection each: ≈ 1.3 ms instead of ≈ 1.8 ms). A session is
 * a few KiB: this is a few MiB at most.
 */
export const TLS_SESSIONS_KEPT = 2_000;

/** RequestInit plus a per-request body cap (e.g. larger for media). */
export interface NetRequestInit extends RequestInit {
  maxBodyBytes?: number;
  /** The bytes to send as the body, instead of reading the request's own body (null: none). */
  rawBody?: Uint8Array | null;
  /** Called when a request (each hop's) starts on a connected socket (after the TLS handshake;
   * at once on a kept-alive one): from then on the server may have it, answer or not. A request
   * that failed or was aborted before (refused, no such host, a TLS handshake that never ended,
   * an address the guard refused) never left. Told early rather than late: an error after the
   * bytes were handed over may come before their write is confirmed. */
  onSent?: () => void;
  /** The headers to send, by lower-case name, instead of `headers`, when the caller has just
   * read them out of a Headers object (headerRecord): their names and values were checked
   * there, so they are not read into another one (node:http checks their characters again as
   * it writes). Hop-by-hop ones are still left out: the client writes those. */
  checkedHeaders?: Readonly<Record<string, string>>;
}

/** Same shape as the global fetch, so it can be handed to code that expects one. */
export type NetFetch = (input: string | URL | Request, init?: NetRequestInit) => Promise<Response>;

export interface HttpClient {
  readonly userAgent: string;
  /** For callers that follow redirects themselves (signed requests are re-signed per hop). */
  readonly maxRedirects: number;
  /** The body cap of requests that name none (callers with a cap of their own take the lower). */
  readonly maxBodyBytes?: number;
  readonly fetch: NetFetch;
  /** Fetches and reads the body as text, refusing bodies over the cap while they stream. */
  fetchText(input: string | URL | Request, init?: NetRequestInit): Promise<{ response: Response; text: string }>;
  /**
   * As fetchText, then JSON.parse; the value is unknown and must be parsed by the caller. A 2xx
   * body that is not JSON is InvalidJsonError; for other statuses (an HTML 404 page) json is
   * undefined, so callers can still act on the status.
   */
  fetchJson(input: string | URL | Request, init?: NetRequestInit): Promise<{ response: Response; json: unknown }>;
  /** Closes pooled keep-alive sockets. */
  close(): void;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const NULL_BODY_STATUSES = new Set([204, 205, 304]);
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'content-length']);
const BODY_HEADERS = ['content-type', 'content-encoding', 'content-language', 'content-location', 'digest', 'content-digest'];
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'signature', 'signature-input'];

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const connectTimeoutMs = options.connectTimeoutMs ?? Math.min(5_000, timeoutMs);
  const maxBodyBytes = options.maxBodyBytes ?? 2 * 1024 * 1024;
  const maxRedirects = options.maxRedirects ?? 5;
  const allowPrivate = options.allowPrivateAddresses === true;
  const exempt = new Set(options.allowAddresses ?? []);
  const agents = {
    'http:': new http.Agent({ keepAlive: true, timeout: 5_000 }),
    'https:': new https.Agent({
      keepAlive: true,
      timeout: 5_000,
      maxCachedSessions: TLS_SESSIONS_KEPT,
      // One TLS context for every connection (the system's certificate authorities, or a test's).
      // Without it, each new connection builds its own context: measured here over 300 loopback
      // HTTPS servers, sharing one took ≈ 30% off Tern's main-thread CPU per new connection
      // (full handshake 2.0–2.6 → 1.4–1.7 ms, resumed 1.7–1.8 → 1.1–1.2 ms). What is per
      // connection stays so: server name, certificate checks, the session resumed.
      secureContext: createSecureContext(options.trustedCa === undefined ? {} : { ca: options.trustedCa }),
    }),
  };

  const mayConnect = (address: string): boolean =>
    allowPrivate || exempt.has(address) || !isBlockedAddress(address);

  /** Resolves like dns.lookup, but refuses the whole answer if any address is blocked. */
  const guardedLookup = (url: string): LookupFunction => (hostname, lookupOptions, callback) => {
    dns.lookup(hostname, { family: lookupOptions.family, hints: lookupOptions.hints, all: true }, (error, addresses) => {
      if (error) {
        // A name that does not exist is typed (callers refuse it for good); other failures
        // (EAI_AGAIN: no DNS right now, offline) stay errors to retry.
        if (error.code === 'ENOTFOUND' || error.code === 'ENODATA') return callback(new HostNotFoundError(url, hostname, error), '', 0);
        return callback(error, '', 0);
      }
      const refused = addresses.find((a) => !mayConnect(a.address));
      if (refused !== undefined) return callback(new BlockedAddressError(url, refused.address), '', 0);
      const [first] = addresses;
      if (first === undefined) return callback(new NetError(`No address for ${hostname}`, url), '', 0);
      if (lookupOptions.all === true) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };

  /** Scheme, literal-IP and host-name checks; the addresses a name resolves to are checked when
   * its socket resolves it. */
  const assertFetchable = (url: URL): void => {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UnsupportedSchemeError(url.href);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0) {
      if (!mayConnect(host)) throw new BlockedAddressError(url.href, host);
    } else if (!allowPrivate && isLocalOnlyName(hostName(url))) throw new RefusedHostError(url.href, url.hostname);
  };

  const sendOnce = (url: URL, method: string, headers: Record<string, string>, body: Buffer | null, signal: AbortSignal, onSent?: () => void) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      assertFetchable(url);
      const outgoing: Record<string, string> = { ...headers };
      outgoing['user-agent'] ??= options.userAgent;
      outgoing['accept-encoding'] ??= 'gzip, br';
      if (body !== null) outgoing['content-length'] = String(body.byteLength);
      const protocol = url.protocol === 'https:' ? 'https:' : 'http:';
      const transport = protocol === 'https:' ? https : http;
      const req = transport.request({
        protocol,
        hostname: hostName(url),
        port: url.port === '' ? undefined : Number(url.port),
        path: url.pathname + url.search,
        method,
        headers: outgoing,
        agent: agents[protocol],
        lookup: guardedLookup(url.href),
      });
      let response: IncomingMessage | undefined;
      const onAbort = () => {
        req.destroy(signal.reason);
        response?.destroy(signal.reason);
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      // The request leaves once its socket is connected (and secured): its writes wait for that.
      // Told once (a socket is given once); not after the guard below destroyed the request.
      const leaving = () => {
        if (!req.destroyed) onSent?.();
      };
      req.on('socket', (socket: Socket) => {
        if (onSent) {
          // A kept-alive socket was connected and secured for an earlier request.
          if (!socket.connecting) leaving();
          else socket.once((socket as Partial<TLSSocket>).encrypted ? 'secureConnect' : 'connect', leaving);
        }
        if (!socket.connecting) return; // a pooled socket, checked when it was opened
        const timer = setTimeout(() => req.destroy(new RequestTimeoutError(url.href, 'connect', connectTimeoutMs)), connectTimeoutMs);
        // Belt and braces: whatever path led here, the peer address must pass the guard.
        socket.prependOnceListener('connect', () => {
          clearTimeout(timer);
          const peer = socket.remoteAddress;
          if (peer !== undefined && !mayConnect(peer)) req.destroy(new BlockedAddressError(url.href, peer));
        });
        socket.once('close', () => clearTimeout(timer));
      });
      req.on('error', (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(signal.aborted ? signal.reason : error);
      });
      req.on('response', (res) => {
        response = res;
        res.once('close', () => signal.removeEventListener('abort', onAbort));
        resolve(res);
      });
      req.end(body ?? undefined);
    });

  const fetch: NetFetch = async (input, init = {}) => {
    const request = requestParts(input, init);
    const bodyCap = init.maxBodyBytes ?? maxBodyBytes;
    let url = new URL(request.url);
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new RequestTimeoutError(url.href, 'overall', timeoutMs)), timeoutMs);
    timer.unref();
    const onCallerAbort = () => deadline.abort(request.signal.reason);
    request.signal.addEventListener('abort', onCallerAbort, { once: true });
    const done = () => {
      clearTimeout(timer);
      request.signal.removeEventListener('abort', onCallerAbort);
    };
    try {
      request.signal.throwIfAborted();
      let method = request.method;
      const headers = init.checkedHeaders !== undefined ? withoutHopByHop({ ...init.checkedHeaders }) : headerRecord(request.headers);
      let body =
        init.rawBody !== undefined
          ? init.rawBody === null
            ? null
            : Buffer.from(init.rawBody.buffer, init.rawBody.byteOffset, init.rawBody.byteLength)
          : await request.bodyBytes();
      for (let hop = 0; ; hop++) {
        const res = await sendOnce(url, method, headers, body, deadline.signal, init.onSent);
        const status = res.statusCode ?? 0;
        const location = res.headers.location;
        if (!REDIRECT_STATUSES.has(status) || location === undefined || request.redirect === 'manual') {
          return toResponse(res, url, method, hop > 0, bodyCap, done, deadline.signal);
        }
        res.destroy();
        if (request.redirect === 'error') throw new NetError(`Unexpected redirect from ${url.href}`, url.href);
        if (hop >= maxRedirects) throw new TooManyRedirectsError(request.url, maxRedirects);
        let next: URL;
        try {
          next = new URL(location, url);
        } catch (cause) {
          throw new NetError(`Invalid redirect location from ${url.href}`, url.href, { cause });
        }
        if (status === 303 ? method !== 'GET' && method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST') {
          method = 'GET';
          body = null;
          for (const name of BODY_HEADERS) delete headers[name];
        }
        if (next.origin !== url.origin) for (const name of CREDENTIAL_HEADERS) delete headers[name];
        delete headers.host; // signed requests carry an explicit Host; it belongs to the old URL
        url = next;
      }
    } catch (error) {
      done();
      // A socket's own error (ECONNREFUSED, ECONNRESET…) becomes a NetError, its cause kept, so
      // callers that branch on the client's errors never take one for a bug of Tern's.
      if (error instanceof Error && !(error instanceof NetError) && typeof (error as { code?: unknown }).code === 'string') {
        throw new NetError(`Could not reach ${url.host}: ${error.message}`, url.href, { cause: error });
      }
      throw error;
    }
  };

  const fetchText: HttpClient['fetchText'] = async (input, init) => {
    const response = await fetch(input, init);
    return { response, text: await readTextWithin(response, init?.maxBodyBytes ?? maxBodyBytes) };
  };

  const fetchJson: HttpClient['fetchJson'] = async (input, init) => {
    const { response, text } = await fetchText(input, init);
    try {
      return { response, json: parseBoundedJson(text) };
    } catch (cause) {
      if (!response.ok) return { response, json: undefined };
      throw new InvalidJsonError(response.url, cause);
    }
  };

  return {
    userAgent: options.userAgent,
    maxRedirects,
    maxBodyBytes,
    fetch,
    fetchText,
    fetchJson,
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}

/** A response's body as text, refused at once when its declared length is over `limit` (the
 * body stream also stops at the client's cap, whatever was declared). */
export async function readTextWithin(response: Response, limit: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (!response.headers.has('content-encoding') && declared > limit) {
    await response.body?.cancel();
    throw new BodyTooLargeError(response.url, limit);
  }
  return response.text();
}

/** The host to resolve and connect to: brackets off an IPv6 literal, and a name's one trailing
 * dot (`localhost.` is `localhost`; DNS names are absolute either way). */
function hostName(url: URL): string {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return host.endsWith('.') && isIP(host) === 0 ? host.slice(0, -1) : host;
}

// Names that only ever mean a machine on this side of the network (RFC 6761/6762, common
// private suffixes): never a fediverse server or a blog.
const LOCAL_ONLY_SUFFIXES = ['localhost', 'local', 'internal', 'invalid', 'lan', 'intranet', 'home', 'corp', 'arpa'];

/** A host name Tern never resolves: a single label (intranet), an empty label (a..b, a trailing
 * second dot), or a name under a local-only suffix. */
export function isLocalOnlyName(name: string): boolean {
  const labels = name.toLowerCase().split('.');
  if (labels.length < 2 || labels.some((label) => label === '')) return true;
  return LOCAL_ONLY_SUFFIXES.includes(labels.at(-1)!);
}

/** The headers to send, by lower-case name, without hop-by-hop ones. A Headers object (a signed
 * request's, say) is read as it is, its values already checked; anything else is checked by
 * building one, as fetch would. */
export function headerRecord(init: HeadersInit | undefined): Record<string, string> {
  const source = init instanceof Headers ? init : new Headers(init);
  const record: Record<string, string> = {};
  source.forEach((value, name) => {
    if (!HOP_BY_HOP.has(name)) record[name] = value;
  });
  return record;
}

/** `headers` (by lower-case name) without the hop-by-hop ones. */
function withoutHopByHop(headers: Record<string, string>): Record<string, string> {
  for (const name of HOP_BY_HOP) delete headers[name];
  return headers;
}

/** What fetch reads of its input: a Request's, or (for a URL with its body given as rawBody)
 * the same fields taken from init without building a Request (deliveries send thousands). */
interface RequestParts {
  url: string;
  method: string;
  headers: HeadersInit | undefined;
  signal: AbortSignal;
  redirect: RequestRedirect;
  bodyBytes(): Promise<Buffer | null>;
}

const neverAborted = new AbortController().signal;
// Methods fetch normalises to upper case (others are sent as given); the forbidden ones it refuses.
const NORMALISED_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

function requestParts(input: string | URL | Request, init: NetRequestInit): RequestParts {
  if (init.rawBody !== undefined && !(input instanceof Request)) {
    const url = new URL(input).href; // throws TypeError on an invalid URL, as new Request would
    const given = init.method ?? 'GET';
    const upper = given.toUpperCase();
    if (FORBIDDEN_METHODS.has(upper)) throw new TypeError(`'${given}' HTTP method is unsupported.`);
    if (init.rawBody !== null && (upper === 'GET' || upper === 'HEAD')) throw new TypeError('Request with GET/HEAD method cannot have body.');
    return {
      url,
      method: NORMALISED_METHODS.has(upper) ? upper : given,
      headers: init.headers,
      signal: init.signal ?? neverAborted,
      redirect: init.redirect ?? 'follow',
      bodyBytes: () => Promise.resolve(null), // unused: rawBody is the body
    };
  }
  const request = new Request(input, init);
  return {
    url: request.url,
    method: request.method,
    headers: request.headers,
    signal: request.signal,
    redirect: request.redirect,
    bodyBytes: async () => (request.body === null ? null : Buffer.from(await request.arrayBuffer())),
  };
}

function toResponse(
  res: IncomingMessage,
  url: URL,
  method: string,
  redirected: boolean,
  maxBodyBytes: number,
  done: () => void,
  signal: AbortSignal,
): Response {
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 599) {
    res.destroy();
    throw new NetError(`Unusable HTTP status ${status} from ${url.href}`, url.href);
  }

  // A body declared empty (the usual 202 to a delivery) gets no stream: the message is already
  // complete, and the socket goes back to the pool as soon as the response is let run out.
  const declaredEmpty = res.headers['content-length'] === '0' && res.headers['content-encoding'] === undefined;
  const hasBody = method !== 'HEAD' && !NULL_BODY_STATUSES.has(status) && !declaredEmpty;
  if (!hasBody) {
    res.resume();
    done();
  }
  const body = hasBody ? bodyStream(res, { url: url.href, maxBodyBytes, signal, onEnd: done }) : null;
  // Built first and handed to the constructor: appending to a new Response's own headers would
  // add to a default text/plain content type when the global Response is @hono/node-server's
  // (the listener installs it), and the key fetch would fail on the doubled type.
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    try {
      headers.append(res.rawHeaders[i] ?? '', res.rawHeaders[i + 1] ?? '');
    } catch {
      // A header value fetch would reject; drop it rather than the whole response.
    }
  }
  const response = new Response(body, { status, statusText: res.statusMessage ?? '', headers });
  // A Response built by hand has an empty url; callers (and Fedify's loaders) rely on it.
  Object.defineProperty(response, 'url', { value: url.href });
  Object.defineProperty(response, 'redirected', { value: redirected });
  return response;
}
