import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../../accounts/principal';
import { answerError } from './envelope-writer';
import { ConflictError, DomainError, ValidationError } from '../errors';

/** The header of docs/CONTRACT.md §20. */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/** What the edge asks of the store of idempotency records (src/idempotency/). */
export interface IdempotencyStore {
  /**
   * Claims (account, key) for a request with this hash: `claimed` (go on; `done` must follow), or what the first
   * request left: `running`, `mismatch` (another method, path or body), or its `answer`.
   */
  begin(
    accountId: string,
    key: string,
    requestHash: string,
  ): Promise<
    | { kind: 'claimed'; createdAt: number }
    | { kind: 'running' }
    | { kind: 'mismatch' }
    | { kind: 'answer'; status: number; contentType: string | null; body: string }
  >;
  /** Keeps the answer of a claimed request (a 5xx is not kept: the key is released so a retry runs again). */
  done(accountId: string, key: string, createdAt: number, answer: { status: number; contentType: string | null; body: string | null }): Promise<void>;
}

/** 422: the key was used with another request. */
export class IdempotencyMismatchError extends DomainError {
  readonly status = 422;
  constructor() {
    super('Idempotency-Key was used with another request (method, path or body): use a new key for a new request', {
      errors: [{ field: 'Idempotency-Key', message: 'was used with another request' }],
    });
  }
}

type IdempotentRequest = FastifyRequest & { principal?: Principal; idempotency?: { accountId: string; key: string; createdAt: number } };

/**
 * `Idempotency-Key` on every POST of the API (docs/CONTRACT.md §20), once for all routes: after the key check and the
 * body's parsing (preHandler), a POST with the header claims (account, key); a repeat with the same method, path and
 * body is answered the first answer with `Idempotent-Replayed: true`, another body is a 422, a repeat while the first
 * runs a 409. The answer is kept when it is sent (onSend). A request without the header passes through a callback
 * hook that does nothing else: no promise, no I/O.
 */
export function installIdempotency(fastify: FastifyInstance, store: IdempotencyStore): void {
  fastify.addHook('preHandler', (request: IdempotentRequest, reply: FastifyReply, done: () => void) => {
    const header = request.headers[IDEMPOTENCY_HEADER];
    // a streamed upload (the CSV import) cannot be hashed without reading it twice: the header is ignored there
    if (header === undefined || request.method !== 'POST' || request.principal === undefined || isStream(request.body)) {
      done();
      return;
    }
    if (typeof header !== 'string' || !KEY_PATTERN.test(header)) {
      answerError(ValidationError.of('Idempotency-Key', 'must be 1 to 255 printable ASCII characters, sent once'), request, reply);
      return;
    }
    const accountId = request.principal.accountId;
    const hash = createHash('sha256')
      .update(`${request.method} ${request.url.split('?')[0]}\n`)
      .update(request.body === undefined ? '' : JSON.stringify(request.body))
      .digest('hex');
    store.begin(accountId, header, hash).then(
      (outcome) => {
        switch (outcome.kind) {
          case 'claimed':
            request.idempotency = { accountId, key: header, createdAt: outcome.createdAt };
            done();
            return;
          case 'running':
            answerError(
              new ConflictError('Idempotency-Key: the first request with this key is still running; retry later', {
                errors: [{ field: 'Idempotency-Key', message: 'the first request with this key is still running' }],
              }),
              request,
              reply,
            );
            return;
          case 'mismatch':
            answerError(new IdempotencyMismatchError(), request, reply);
            return;
          case 'answer':
            reply.code(outcome.status).header(REPLAYED_HEADER, 'true');
            if (outcome.contentType !== null) reply.header('content-type', outcome.contentType);
            reply.send(outcome.body);
        }
      },
      (error: unknown) => answerError(error, request, reply),
    );
  });
  fastify.addHook('onSend', (request: IdempotentRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
    const claim = request.idempotency;
    if (claim === undefined) {
      done(null, payload);
      return;
    }
    request.idempotency = undefined;
    const contentType = reply.getHeader('content-type');
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
    // the answer is kept before it is sent: a repeat arriving right after it finds it
    store
      .done(claim.accountId, claim.key, claim.createdAt, { status: reply.statusCode, contentType: typeof contentType === 'string' ? contentType : null, body })
      .then(
        () => done(null, payload),
        () => done(null, payload),
      );
  });
}

function isStream(body: unknown): boolean {
  return typeof body === 'object' && body !== null && typeof (body as { pipe?: unknown }).pipe === 'function';
}
