import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { Logger } from '@nestjs/common';
import { answerError } from './all-exceptions.filter';
import { HandlerTimeoutError } from './errors';

const logger = new Logger('Errors');

/**
 * A hot route's fast lane: it takes the plainly valid request whose key, role and objects are already known in
 * memory, and answers it straight from the Fastify handler, without Nest's guards, pipes and interceptors (they
 * cost more CPU than the whole ad selection). Anything it does not take goes on to the Nest handler of the same
 * route, which alone answers errors, so both ways give the same answers (the e2e suites send every request of a
 * kind both ways and compare). Fastify's hooks (request id, CORS, limits, request log) run for both.
 */
export interface FastLane {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  /**
   * True when the lane took the request: it will answer it (success or an error envelope). False, with nothing
   * done and nothing counted, when the request must go through Nest.
   */
  tryHandle(request: FastifyRequest, reply: FastifyReply): boolean;
  /**
   * The handler deadline of the requests the lane hands to Nest, for a route that has no Fastify handler deadline
   * (see withDeadline); 0 or absent: none.
   */
  readonly nestDeadlineMs?: number;
}

/** Puts each lane in front of the Nest handler of its route; call before the application registers its routes. */
export function installFastLanes(fastify: FastifyInstance, lanes: () => FastLane[]): void {
  fastify.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const lane = lanes().find((candidate) => candidate.url === route.url && methods.length === 1 && methods[0] === candidate.method);
    if (!lane) return;
    const nestHandler = route.handler;
    route.handler = function fastLaneOrNest(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      if (lane.tryHandle(request, reply)) return undefined;
      const deadline = lane.nestDeadlineMs ?? 0;
      if (deadline > 0) {
        // As Fastify's own handler deadline does: a 503 in the envelope; Nest's late answer is then dropped.
        const timer = setTimeout(() => {
          if (!reply.sent) answerError(new HandlerTimeoutError(), request, reply, logger);
        }, deadline);
        reply.raw.once('close', () => clearTimeout(timer));
      }
      return (nestHandler as RouteHandlerMethod).call(this, request, reply);
    } as RouteHandlerMethod;
  });
}

/**
 * The work of a lane, settled within `ms` (0: no deadline) by a HandlerTimeoutError. A plain timer: Fastify's own
 * handler deadline creates an AbortController per request and aborts it when the request ends, and that abort (a
 * DOMException with its stack) cost the click route a sixth of its CPU. A click that commits after its 503 is safe
 * to retry: a repeat is answered success and not counted again.
 */
export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  if (ms <= 0) return work;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new HandlerTimeoutError()), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
