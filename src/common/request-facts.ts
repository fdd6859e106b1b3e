import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { answerDeadlineOf } from './edge/deadline';
import type { FastifyRequest } from 'fastify';

/**
 * What services need to know of the HTTP request that reached them, as plain values: services never take
 * Fastify objects. Built once at the edge (controller or fast lane) with requestFactsOf.
 */
export interface RequestFacts {
  /** The client address (behind TRUST_PROXY hops, the forwarded one). */
  ip: string;
  userAgent: string | undefined;
  acceptLanguage: string | undefined;
  /** The browser's `Origin` header, when one was sent. */
  origin: string | undefined;
  /** Headers a feature reads by name (e.g. `debug`, `x-adnet-viewer`), lower-case. */
  header(name: string): string | undefined;
  /**
   * When the route's deadline answers the request 503 (wall-clock ms; absent: no deadline): a write the answer waits
   * for must not commit after it (src/common/edge/deadline.ts).
   */
  answerBy?: number;
}

export function requestFactsOf(request: FastifyRequest): RequestFacts {
  const headers = request.headers;
  return {
    ip: request.ip,
    userAgent: single(headers['user-agent']),
    acceptLanguage: single(headers['accept-language']),
    origin: single(headers.origin),
    header: (name) => single(headers[name]),
    answerBy: answerDeadlineOf(request),
  };
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Controller parameter: the RequestFacts of the request being handled. */
export const Facts = createParamDecorator((_data: unknown, context: ExecutionContext): RequestFacts =>
  requestFactsOf(context.switchToHttp().getRequest<FastifyRequest>()),
);
