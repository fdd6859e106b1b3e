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
 * Equips each route as it is registered. Its deadline (deadline.ts) is armed by the route's first own onRequest hook,
 * right after the server-wide checks (query length, CORS, key), so it covers the body upload, the fast lane and the
 * Nest handler alike; a route without one costs nothing per request. Its fast lane, if the controller method declares
 * one with @FastLane, gets the first look in the handler, before the Nest handler. Call before the application
 * registers its routes; `instanceOf` resolves a lane class to its provider.
 */
export function installRouteEdge(fastify: FastifyInstance, deadlines: RouteDeadlines, instanceOf: (type: Type<FastLaneHandler>) => FastLaneHandler): void {
  fastify.addHook('onRoute', (route) => {
    const deadlineMs = deadlineOfRoute(route.config as EdgeRouteConfig | undefined, deadlines);
    if (deadlineMs > 0) {
      const armRouteDeadline = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
        armDeadline(request, reply, deadlineMs);
        done();
      };
      const own = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
      route.onRequest = [armRouteDeadline, ...own];
    }
    const lane = laneOfRoute(route, instanceOf);
    if (lane === undefined) return;
    const handler = route.handler as RouteHandlerMethod;
    route.handler = function fastLaneOrNest(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      if (lane.tryHandle(request, reply)) return undefined;
      return handler.call(this, request, reply);
    } as RouteHandlerMethod;
  });
}
