// The one typed client the whole UI calls Tern through. Under Electron the preload exposes
// `window.tern` (one method per channel); in headless mode the same channels are served over
// HTTP at POST /ipc/<channel>, authenticated by the token of the link Tern printed, sent as a
// bearer header (headlessToken.ts; never a cookie, which every server on 127.0.0.1 would get).
// Either way a failed call throws an ApiError whose message is a sentence a person understands.
import type {
  Channel,
  Input,
  IpcError,
  IpcErrorCode,
  IpcResult,
  Output,
  TernBridge,
  httpPathOf,
} from '../electron/core/ipc/contract';
import { headlessToken } from './headlessToken';
import { strings } from './strings';

declare global {
  interface Window {
    /** Present only under Electron, put there by the preload. */
    tern?: TernBridge;
  }
}

export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly code: IpcErrorCode,
    message: string,
    readonly channel: Channel,
    readonly issues?: IpcError['issues'],
  ) {
    super(message);
  }
}

// The contract's httpPathOf is a value and the renderer may import only types from electron/;
// this mirrors it, and `typeof` keeps its signature tied to the contract's.
const httpPath: typeof httpPathOf = (channel) => `/ipc/${channel}`;

export async function call<C extends Channel>(channel: C, input: Input<C>): Promise<Output<C>> {
  const bridge = typeof window === 'undefined' ? undefined : window.tern;
  const result = bridge ? await viaBridge(bridge, channel, input) : await viaHttp(channel, input);
  if (!isIpcResult(result)) throw new ApiError('internal', strings.errors.badAnswer, channel);
  if (!result.ok) {
    const { code, message, issues } = result.error;
    throw new ApiError(code, message || strings.errors.internal, channel, issues);
  }
  return result.value as Output<C>;
}

async function viaBridge<C extends Channel>(bridge: TernBridge, channel: C, input: Input<C>): Promise<unknown> {
  const method = bridge[channel] as ((input: Input<C>) => Promise<IpcResult<Output<C>>>) | undefined;
  if (typeof method !== 'function') throw new ApiError('unknown_channel', strings.errors.internal, channel);
  try {
    return await method(input);
  } catch {
    // Electron rejects only when the main process has no handler or crashed mid-call.
    throw new ApiError('internal', strings.errors.internal, channel);
  }
}

async function viaHttp(channel: Channel, input: unknown): Promise<unknown> {
  // Opened without the link's token: Tern would only answer 401.
  const token = headlessToken();
  if (token === null) throw new ApiError('forbidden', strings.errors.forbidden, channel);
  let response: Response;
  try {
    response = await fetch(httpPath(channel), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify(input ?? {}),
      // Same-origin credentials: the answer sets the cookie that lets <img> load /media/*.
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError('unavailable', strings.errors.unavailable, channel);
  }
  if (response.status === 401) throw new ApiError('forbidden', strings.errors.forbidden, channel);
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    // A body that is not JSON comes from something in between (or a server going away).
    if (response.status === 502 || response.status === 503 || response.status === 504) {
      throw new ApiError('unavailable', strings.errors.unavailable, channel);
    }
    throw new ApiError('internal', strings.errors.badAnswer, channel);
  }
  return body;
}

function isIpcResult(value: unknown): value is IpcResult<unknown> {
  if (typeof value !== 'object' || value === null || !('ok' in value)) return false;
  if (value.ok === true) return 'value' in value;
  if (value.ok !== false || !('error' in value)) return false;
  const error = value.error;
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string';
}

/** Any thrown value as an ApiError, so every failure has a sentence to show. */
export function toApiError(err: unknown, channel: Channel): ApiError {
  return err instanceof ApiError ? err : new ApiError('internal', strings.errors.internal, channel);
}
