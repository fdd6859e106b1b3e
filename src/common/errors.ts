/** A field named in an error answer: a dotted path such as `budget.amount` or `list.17.ipAddress`. */
export interface FieldError {
  field: string;
  message: string;
}

/** Errors the services throw; the global filter turns each into the `{code, message, data}` envelope. */
export abstract class DomainError extends Error {
  abstract readonly status: number;
  constructor(
    message: string,
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends DomainError {
  readonly status = 400;
  constructor(readonly errors: FieldError[]) {
    super(errors.map((error) => error.message).join('; '), { errors });
  }

  static of(field: string, message: string): ValidationError {
    return new ValidationError([{ field, message: `${field} ${message}` }]);
  }
}

export class BadRequestError extends DomainError {
  readonly status = 400;
}

export class UnauthorizedError extends DomainError {
  readonly status = 401;
}

export class ForbiddenError extends DomainError {
  readonly status = 403;
}

/** Unknown ids and other accounts' ids answer the same, so existence never leaks. */
export class NotFoundError extends DomainError {
  readonly status = 404;
  constructor(field: string, what: string) {
    super(`${field}: ${what} not found`, { errors: [{ field, message: `${what} not found` }] });
  }
}

export class ConflictError extends DomainError {
  readonly status = 409;
}

export class PayloadTooLargeError extends DomainError {
  readonly status = 413;
}

export class UnsupportedMediaTypeError extends DomainError {
  readonly status = 415;
}

export class RateLimitedError extends DomainError {
  readonly status = 429;
  constructor(readonly retryAfterSeconds: number) {
    super(`rate limit exceeded, retry after ${retryAfterSeconds} s`, { retryAfter: retryAfterSeconds });
  }
}

/** A handler that did not finish within its deadline (HANDLER_TIMEOUT_MS; see common/edge/deadline.ts). */
export class HandlerTimeoutError extends DomainError {
  readonly status = 503;
  constructor() {
    super('request timed out; retry later');
  }
}

/**
 * A dependency (Redis, the database) cannot answer now, and nothing of the request was stored (docs/OPERATIONS.md
 * "Faults"): answered 503 with `Retry-After` at once, instead of waiting for it.
 */
export class DependencyUnavailableError extends DomainError {
  readonly status = 503;
  constructor(
    readonly dependency: 'redis' | 'database',
    readonly retryAfterSeconds = 1,
  ) {
    super(`${dependency} unavailable: nothing was stored; retry after ${retryAfterSeconds} s`, { retryAfter: retryAfterSeconds });
  }
}

/**
 * The database went away during a write's COMMIT and did not say within the write's wait whether it committed
 * (src/stats/write-ledger.ts). Answered 503 with Retry-After like an outage, but what the request did is kept as if
 * stored: a click stays bound to its impression, so the same report sent again is answered as a duplicate and never
 * makes a second row, and its price is settled by whether its row exists.
 */
export class WriteOutcomeUnknownError extends DependencyUnavailableError {
  constructor(override readonly cause: unknown) {
    super('database');
    this.message = 'database unavailable: whether this was stored is not known; sent again, it is not counted twice';
  }
}

/** mysql2's codes for a connection that is gone or never came (wrapped by TypeORM's QueryFailedError, code kept). */
const DATABASE_CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  // src/database/connect-breaker.ts: the pool stalled, the request refused before anything was sent
  'POOL_STALLED',
]);

/**
 * The database could not be reached (not a failed statement): the request it failed is answered 503 with
 * Retry-After, as DependencyUnavailableError, never 500 (its transaction did not commit: nothing of it is stored).
 */
export function isDatabaseConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code ?? (error as { driverError?: { code?: unknown } })?.driverError?.code;
  if (typeof code === 'string' && DATABASE_CONNECTION_CODES.has(code)) return true;
  const message = error instanceof Error ? error.message : '';
  return /^Pool is closed|Connection lost: The server closed the connection|connect ECONNREFUSED/.test(message);
}

/**
 * A click without its served mark while Redis lost the served marks less than 24 h ago (restarted empty): it may be
 * on an ad served before the loss, so it is not refused as "no matching impression" but answered 503, nothing stored.
 * Right after the loss (`settleSeconds`) the database may not hold that impression yet either: the click is asked to
 * come back once it does, and is then answered by what the database holds.
 */
export class ClickStateLostError extends DomainError {
  readonly status = 503;
  readonly retryAfterSeconds: number;
  constructor(settleSeconds?: number) {
    const retryAfter = settleSeconds ?? 3600;
    super(
      settleSeconds === undefined
        ? 'impression records lost (the serving state restarted empty): this click cannot be matched now; nothing was stored'
        : 'impression records being rebuilt (the serving state restarted empty): retry shortly; nothing was stored',
      { retryAfter },
    );
    this.retryAfterSeconds = retryAfter;
  }
}
