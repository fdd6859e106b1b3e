/** One invalid field of a refused request: `field` is a dotted path (`budget.amount`, `list.17.ipAddress`). */
export interface FieldError {
  field: string;
  message: string;
}

/**
 * A request the service refused, or that never got an answer. `status` is the HTTP status (0 for a failure without
 * one: no answer, see AdnetNetworkError; a failed profile batch), `code` the envelope's `code` (the service sets it to
 * the status), `message` the envelope's message, which names the field and the problem, and `fieldErrors` the
 * envelope's `data.errors`.
 */
export class AdnetError extends Error {
  override readonly name: string = 'AdnetError';
  readonly status: number;
  readonly code: number;
  readonly fieldErrors: FieldError[];
  /** The `x-request-id` of the answer: quote it when asking the network's support about a request. */
  readonly requestId: string | undefined;
  /** From `Retry-After` (429, 503), in milliseconds. */
  readonly retryAfterMs: number | undefined;

  constructor(init: {
    status: number;
    code?: number;
    message: string;
    fieldErrors?: FieldError[];
    requestId?: string;
    retryAfterMs?: number;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code ?? init.status;
    this.fieldErrors = init.fieldErrors ?? [];
    this.requestId = init.requestId;
    this.retryAfterMs = init.retryAfterMs;
  }

  /** The message of one field's error, if the service named that field. */
  fieldError(field: string): string | undefined {
    return this.fieldErrors.find((error) => error.field === field)?.message;
  }
}

/** No answer: the connection failed, or the try ran past the call's `timeoutMs` (`timedOut`). `status` is 0. */
export class AdnetNetworkError extends AdnetError {
  override readonly name: string = 'AdnetNetworkError';
  readonly timedOut: boolean;

  constructor(message: string, options: { timedOut: boolean; cause?: unknown }) {
    super({ status: 0, code: 0, message, cause: options.cause });
    this.timedOut = options.timedOut;
  }
}

/** A profile batch the service could not apply (`status: failed` after its last try); `batch` is its last status. */
export class AdnetBatchFailedError extends AdnetError {
  override readonly name: string = 'AdnetBatchFailedError';
  readonly batchId: string;

  constructor(batchId: string, error: string | null) {
    super({ status: 0, code: 0, message: `profile batch ${batchId} failed: ${error ?? 'no error given'}` });
    this.batchId = batchId;
  }
}
