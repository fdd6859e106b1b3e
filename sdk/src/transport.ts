import { AdnetError, AdnetNetworkError, type FieldError } from './errors.js';

/**
 * How calls are retried (interface rule 3: retry shortly on network failure, without excessive retries).
 * `attempts` counts every try, the first included. Before try n+1 the client waits a random time between half and
 * all of `min(maxDelayMs, baseDelayMs * 2^(n-1))` (exponential backoff with jitter, so that many clients cut off
 * together do not come back together), and at least what the answer's `Retry-After` asked for. A `Retry-After`
 * longer than `maxRetryAfterMs` ends the retries: the error carries it in `retryAfterMs`.
 */
export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 250, maxDelayMs: 4000, maxRetryAfterMs: 30_000 };
export const DEFAULT_TIMEOUT_MS = 10_000;

export interface ClientOptions {
  /** The service's address, e.g. `https://ads.example.com` (the paths `/api/v2/...` are added). */
  baseUrl: string;
  /** `x-api-key`: a `serve` (publishable) key in a browser, a `full` key on a server. */
  apiKey: string;
  /** Longest wait for one try (connection, answer and body), in ms; a try that takes longer is a network error. */
  timeoutMs?: number;
  /** `false`: one try only. */
  retry?: Partial<RetryPolicy> | false;
  /** Headers sent with every request (a server-side caller may name its `user-agent`; browsers send their own). */
  headers?: Record<string, string>;
  /** The `fetch` to use (default: the global one). */
  fetch?: typeof fetch;
  /** Source of the backoff jitter, 0 <= x < 1 (default Math.random). */
  random?: () => number;
}

/** Options every SDK method takes as its last argument. */
export interface CallOptions {
  /** Cancels the call, retries and waits between them included; the call then rejects with `signal.reason`. */
  signal?: AbortSignal;
  /** Replaces the client's `timeoutMs` for this call. */
  timeoutMs?: number;
}

/**
 * Whether a try may be repeated after an uncertain failure (no answer, a 5xx). `idempotent`: repeating it changes
 * nothing more (reads, status changes, click and event reports, which the service deduplicates). `once`: it may
 * have taken effect (a create, an upload, an ad fetch, which bills impressions), so it is repeated only after an
 * answer saying nothing was done (429 rate limited, 408 request not received).
 */
export type Repeatable = 'idempotent' | 'once';

export interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as is, with this content type. */
  raw?: { contentType: string; body: string | Blob | ArrayBuffer | Uint8Array };
  headers?: Record<string, string | undefined>;
  repeatable: Repeatable;
}

/** Statuses that say the request was not acted upon, so any request may be sent again. */
const NOT_ACTED_UPON = new Set([408, 429]);

export class Transport {
  private readonly baseUrl: string;
  private readonly retry: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;
  private readonly random: () => number;

  constructor(private readonly options: ClientOptions) {
    if (!options.baseUrl) throw new TypeError('baseUrl is required');
    if (!options.apiKey) throw new TypeError('apiKey is required');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.retry = options.retry === false ? { ...DEFAULT_RETRY, attempts: 1 } : { ...DEFAULT_RETRY, ...options.retry };
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!options.fetch && typeof globalThis.fetch !== 'function') throw new TypeError('no fetch available: pass options.fetch');
    // Called through globalThis: a detached window.fetch throws "Illegal invocation" in browsers.
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.random = options.random ?? Math.random;
  }

  /** Sends the request, retrying as RetryPolicy says; answers the envelope's `data` (or the bare body of 7 and 9). */
  async request<T>(given: RequestSpec, call: CallOptions = {}): Promise<T> {
    const spec = this.withIdempotencyKey(given);
    const timeoutMs = call.timeoutMs ?? this.timeoutMs;
    for (let attempt = 1; ; attempt++) {
      call.signal?.throwIfAborted();
      let failure: AdnetError;
      try {
        return (await this.tryOnce(spec, timeoutMs, call.signal)) as T;
      } catch (error) {
        if (!(error instanceof AdnetError)) throw error;
        failure = error;
      }
      const wait = this.waitBeforeRetry(spec.repeatable, failure, attempt);
      if (wait === null) throw failure;
      await sleep(wait, call.signal);
    }
  }

  /**
   * A POST that may take effect (a create, a profile batch) carries an `Idempotency-Key`, one per call and the same on
   * every try: the service answers a repeat with the first answer (docs/CONTRACT.md §20), so such a call is retried
   * like an idempotent one. A raw upload (the CSV import) is not covered by the key and is still sent once.
   */
  private withIdempotencyKey(spec: RequestSpec): RequestSpec {
    if (spec.method !== 'POST' || spec.repeatable !== 'once' || spec.raw !== undefined || spec.headers?.['Idempotency-Key'] !== undefined) return spec;
    return { ...spec, headers: { ...spec.headers, 'Idempotency-Key': this.newIdempotencyKey() }, repeatable: 'idempotent' };
  }

  private newIdempotencyKey(): string {
    const uuid = (globalThis.crypto as { randomUUID?: () => string } | undefined)?.randomUUID;
    if (uuid) return uuid.call(globalThis.crypto);
    return Array.from({ length: 4 }, () =>
      Math.floor(this.random() * 2 ** 32)
        .toString(16)
        .padStart(8, '0'),
    ).join('-');
  }

  /** How long to wait before trying again after `failure` on try number `attempt`, or null to give up. */
  waitBeforeRetry(repeatable: Repeatable, failure: AdnetError, attempt: number): number | null {
    if (attempt >= this.retry.attempts) return null;
    const uncertain = failure.status === 0 || failure.status >= 500;
    if (!NOT_ACTED_UPON.has(failure.status) && !(uncertain && repeatable === 'idempotent')) return null;
    if (failure.retryAfterMs !== undefined && failure.retryAfterMs > this.retry.maxRetryAfterMs) return null;
    const ceiling = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
    const backoff = Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
    return Math.max(backoff, failure.retryAfterMs ?? 0);
  }

  private async tryOnce(spec: RequestSpec, timeoutMs: number, signal: AbortSignal | undefined): Promise<unknown> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const forwardAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', forwardAbort, { once: true });
    try {
      const response = await this.fetchImpl(this.url(spec), { ...this.init(spec), signal: controller.signal });
      // The body is read under the same deadline: a server that sends headers and then stalls is a timeout too.
      const text = await response.text();
      return parseAnswer(response, text);
    } catch (error) {
      if (error instanceof AdnetError) throw error;
      if (signal?.aborted) throw signal.reason;
      if (timedOut) throw new AdnetNetworkError(`${spec.method} ${spec.path}: no answer within ${timeoutMs} ms`, { timedOut: true, cause: error });
      const reason = error instanceof Error ? error.message : String(error);
      throw new AdnetNetworkError(`${spec.method} ${spec.path}: ${reason}`, { timedOut: false, cause: error });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forwardAbort);
    }
  }

  private url(spec: RequestSpec): string {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(spec.query ?? {})) {
      if (value !== undefined) search.set(name, String(value));
    }
    const query = search.toString();
    return `${this.baseUrl}${spec.path}${query ? `?${query}` : ''}`;
  }

  private init(spec: RequestSpec): RequestInit {
    const headers: Record<string, string> = { accept: 'application/json', ...this.options.headers, 'x-api-key': this.options.apiKey };
    for (const [name, value] of Object.entries(spec.headers ?? {})) {
      if (value !== undefined) headers[name] = value;
    }
    let body: RequestInit['body'];
    if (spec.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(spec.json);
    } else if (spec.raw) {
      headers['content-type'] = spec.raw.contentType;
      body = spec.raw.body as RequestInit['body'];
    }
    return { method: spec.method, headers, body };
  }
}

/** The data of a success, or the AdnetError of a failure, from the service's `{code, message, data}` envelope. */
export function parseAnswer(response: Response, text: string): unknown {
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  const envelope = isEnvelope(body) ? body : undefined;
  if (response.ok) {
    if (envelope === undefined) {
      // Endpoints 7 and 9 answer `{status: "success"}` without the envelope (interface).
      if (body !== null && typeof body === 'object') return body;
      throw answerError(response, `${response.status}: the answer is not JSON`);
    }
    if (envelope.code === 0) return envelope.data;
    throw answerError(response, envelope.message, envelope);
  }
  throw answerError(response, envelope?.message ?? `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`, envelope);
}

interface Envelope {
  code: number;
  message: string;
  data?: unknown;
}

function isEnvelope(body: unknown): body is Envelope {
  return body !== null && typeof body === 'object' && typeof (body as Envelope).code === 'number' && typeof (body as Envelope).message === 'string';
}

function answerError(response: Response, message: string, envelope?: Envelope): AdnetError {
  const errors = (envelope?.data as { errors?: unknown } | undefined)?.errors;
  const fieldErrors = Array.isArray(errors)
    ? errors.filter((error): error is FieldError => typeof error?.field === 'string' && typeof error?.message === 'string')
    : [];
  return new AdnetError({
    status: response.status,
    code: envelope?.code ?? response.status,
    message,
    fieldErrors,
    requestId: response.headers.get('x-request-id') ?? undefined,
    retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), Date.now()),
  });
}

/** `Retry-After` as delay-seconds or an HTTP date, in ms from `now`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
