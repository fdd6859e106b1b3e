import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ok } from '../envelope';
import { ClickStateLostError, DependencyUnavailableError, DomainError, isDatabaseConnectionError, RateLimitedError } from '../errors';

/**
 * The one writer of the `{code, message, data}` envelope on the wire: the Nest exception filter, Fastify's router
 * and client errors, the edge hooks (key check, query limit, deadline), the fast lanes, the queue board and the
 * admin panel's fallback all answer through it.
 */
export const JSON_TYPE = 'application/json; charset=utf-8';

export interface ErrorBody {
  code: number;
  message: string;
  data: Record<string, unknown>;
}

const STATUS_MESSAGES: Record<number, string> = {
  400: 'bad request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not found',
  405: 'method not allowed',
  406: 'not acceptable',
  408: 'request timeout',
  413: 'request body too large',
  414: 'request URI too long',
  415: 'unsupported content type: send application/json',
  429: 'too many requests',
};

const logger = new Logger('Errors');

/** Sends a success envelope; nothing when the request was already answered (its deadline passed). */
export function sendOk(reply: FastifyReply, data: unknown): void {
  if (!reply.sent) reply.header('content-type', JSON_TYPE).send(ok(data));
}

/** Sends a success envelope around data already serialised (see served-ads-json.ts): the bytes JSON.stringify(ok(data)) gives. */
export function sendOkJson(reply: FastifyReply, dataJson: string): void {
  if (!reply.sent) reply.header('content-type', JSON_TYPE).send(`{"code":0,"message":"success","data":${dataJson}}`);
}

/** Sends a failure envelope with this status and message. */
export function sendError(reply: FastifyReply, code: number, message: string, data: Record<string, unknown> = {}): FastifyReply {
  return reply
    .code(code)
    .header('content-type', JSON_TYPE)
    .send({ code, message, data } satisfies ErrorBody);
}

/**
 * Sends the envelope of any failure. Domain errors carry their own status and message; framework and Fastify
 * errors keep their 4xx status with a plain message; anything else is a logged 500 that reveals nothing about the
 * internals. A request already answered (its deadline passed) is left as it is.
 */
export function answerError(thrown: unknown, request: FastifyRequest | undefined, reply: FastifyReply): void {
  // the database out of reach: 503 with Retry-After, as DependencyUnavailableError (docs/OPERATIONS.md, Faults)
  const exception = isDatabaseConnectionError(thrown) ? new DependencyUnavailableError('database') : thrown;
  const body = errorBodyOf(exception, request);
  // a dependency's outage is logged where it is seen (src/redis/redis-deadline.ts), not once per refused request
  if (body.code >= 500 && !(thrown instanceof DependencyUnavailableError) && !(thrown instanceof ClickStateLostError)) {
    logger.error({ err: thrown, reqId: request?.id, url: request?.url }, 'request failed');
  }
  if (reply.sent) return;
  if (exception instanceof RateLimitedError || exception instanceof DependencyUnavailableError || exception instanceof ClickStateLostError) {
    reply.header('Retry-After', String(exception.retryAfterSeconds));
  }
  sendError(reply, body.code, body.message, body.data);
}

/** The envelope of a failure (see answerError). */
export function errorBodyOf(exception: unknown, request: FastifyRequest | undefined): ErrorBody {
  if (exception instanceof DomainError) {
    return { code: exception.status, message: exception.message, data: exception.data };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status === 404 && request) {
      return { code: 404, message: `no route ${request.method} ${request.url.split('?')[0]}`, data: {} };
    }
    return { code: status, message: status < 500 ? (STATUS_MESSAGES[status] ?? exception.message) : 'internal error', data: {} };
  }
  const status = (exception as { statusCode?: unknown })?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { code: status, message: STATUS_MESSAGES[status] ?? 'bad request', data: {} };
  }
  return { code: 500, message: 'internal error', data: {} };
}

/**
 * Answers on the bare socket, for errors Node's HTTP parser meets before Fastify has a request, then closes the
 * connection.
 */
export function writeSocketError(socket: Socket, code: number, message: string): void {
  const body = JSON.stringify({ code, message, data: {} } satisfies ErrorBody);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${code} ${STATUS_CODES[code]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: ${JSON_TYPE}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
}
