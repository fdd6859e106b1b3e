import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, RateLimitedError } from './errors';

interface ErrorBody {
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

/**
 * The one place where failures become the `{code, message, data}` envelope. Domain errors carry their
 * own status and message; framework and Fastify errors keep their 4xx status with a plain message;
 * anything else is a logged 500 that reveals nothing about the internals.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    answerError(exception, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>(), this.logger);
  }
}

/** Sends the envelope of a failure; the global filter and the hot routes' fast lanes both answer through it. */
export function answerError(exception: unknown, request: FastifyRequest | undefined, reply: FastifyReply, logger: Pick<Logger, 'error'>): void {
  const body = toBody(exception, request);
  if (exception instanceof RateLimitedError) reply.header('Retry-After', String(exception.retryAfterSeconds));
  if (body.code >= 500) {
    logger.error({ err: exception, reqId: request?.id, url: request?.url }, 'request failed');
  }
  reply.status(body.code).header('content-type', 'application/json; charset=utf-8').send(body);
}

function toBody(exception: unknown, request: FastifyRequest | undefined): ErrorBody {
  if (exception instanceof DomainError) {
    return { code: exception.status, message: exception.message, data: exception.data };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    // Nest rewraps Fastify's FST_ERR_HANDLER_TIMEOUT (HANDLER_TIMEOUT_MS) as a plain 503 HttpException.
    if (status === 503 && exception.message.startsWith('Request timed out after')) {
      return { code: 503, message: 'request timed out; retry later', data: {} };
    }
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
