import type { FastifyReply, FastifyRequest } from 'fastify';
import { HandlerTimeoutError } from '../errors';
import { answerError } from './envelope-writer';

/**
 * The one handler deadline of every route (its length per route: see HandlerDeadline; armed by route-edge.ts before
 * the body is read), for the fast lane and the Nest handler alike: past it the request is answered 503 in the
 * envelope, and the late answer is dropped. A plain timer: Fastify's own handler deadline creates an AbortController
 * per request and aborts it when the request ends, and that abort (a DOMException with its stack) cost the click route
 * a sixth of its CPU. This deadline does not cancel the work: a click whose group commit outlives it (a database
 * frozen longer than HANDLER_TIMEOUT_MS) can still be stored after its 503, against CONTRACT §21; its retry is then
 * answered success and not counted again (docs/OPERATIONS.md, "Faults"), unless the write is held to the deadline
 * itself (answerDeadlineOf: a click's group commit refuses to commit once it is near). Redis waits have their own
 * shorter deadline that does cancel (src/redis).
 */
export function armDeadline(request: FastifyRequest, reply: FastifyReply, ms: number): void {
  answerDeadlines.set(request, Date.now() + ms);
  const timer = setTimeout(() => {
    if (!reply.sent) answerError(new HandlerTimeoutError(), request, reply);
  }, ms);
  reply.raw.once('close', () => clearTimeout(timer));
}

const answerDeadlines = new WeakMap<FastifyRequest, number>();

/** When the request's deadline answers it 503 (wall-clock ms), or undefined when its route has none. */
export function answerDeadlineOf(request: FastifyRequest): number | undefined {
  return answerDeadlines.get(request);
}
