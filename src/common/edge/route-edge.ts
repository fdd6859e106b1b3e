import type { Type } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { armDeadline } from './deadline';
import { FastLaneHandler, laneOfRoute } from './fast-lane';
import type { EdgeRouteConfig } from './route-config';

export interface RouteDeadlines {
  handlerTimeoutMs: number;
  requestTimeoutMs: number;
}

/** The handler deadline of a route from its config (see HandlerDeadline); 0: none. */
export function deadlineOfRoute(config: EdgeRouteConfig | undefined, deadlines: RouteDeadlines): number {
  if (deadlines.handlerTimeoutMs <= 0) return 0;
  switch (config?.adnetDeadline) {
    case 'none':
      return 0;
    case 'request':
      return deadlines.requestTimeoutMs;
    default:
      return deadlines.handlerTimeoutMs;
  }
}

/**
 * Wraps the handler of each route as it is registered: the route's deadline (deadline.ts) is armed first, then its
 * fast lane (if the controller method declares one with @FastLane) gets the first look, then the Nest handler runs.
 * Call before the application registers its routes; `instanceOf` resolves a lane class to its provider.
 */
export function installRouteEdge(fastify: FastifyInstance, deadlines: RouteDeadlines, instanceOf: (type: Type<FastLaneHandler>) => FastLaneHandler): void {
  fastify.addHook('onRoute', (route) => {
    const deadlineMs = deadlineOfRoute(route.config as EdgeRouteConfig | undefined, deadlines);
    const lane = laneOfRoute(route, instanceOf);
    if (deadlineMs === 0 && lane === undefined) return;
    const handler = route.handler as RouteHandlerMethod;
    route.handler = function edgeHandler(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      if (deadlineMs > 0) armDeadline(request, reply, deadlineMs);
      if (lane !== undefined && lane.tryHandle(request, reply)) return undefined;
      return handler.call(this, request, reply);
    } as RouteHandlerMethod;
  });
}
