import type { FastifyError, FastifyReply } from 'fastify';
import { sendError } from './edge/envelope-writer';

const MESSAGES: Record<string, string> = {
  FST_ERR_BAD_URL: 'the URL path is not valid percent-encoded UTF-8',
  FST_ERR_MAX_PARAM_LENGTH: 'a URL path parameter is too long',
};

/**
 * Errors Fastify's router meets before any route runs (a path that does not decode, a path parameter over
 * maxParamLength): answered in the `{code, message, data}` envelope instead of Fastify's own error shape.
 */
export function answerFrameworkError(error: FastifyError, _request: unknown, reply: FastifyReply): void {
  const status = typeof error.statusCode === 'number' && error.statusCode >= 400 ? error.statusCode : 500;
  const message = status >= 500 ? 'internal error' : (MESSAGES[error.code] ?? 'bad request');
  void sendError(reply, status, message);
}
