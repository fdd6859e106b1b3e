import type { Type } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { routeAccessOf } from '../../accounts/auth.decorators';
import type { RouteAccess } from '../../accounts/key-access';
import { setEdgeRouteConfig } from './route-config';

/** The route a lane shadows, read from the controller method's route metadata when the route is registered. */
export interface LaneRoute {
  method: string;
  url: string;
  /** Roles and key scope the route accepts, from its decorators: the lane admits no one the guards would refuse. */
  access: RouteAccess;
}

/**
 * A hot route's fast lane: it takes the plainly valid request whose key, role and objects are already known in
 * memory, and answers it straight from the Fastify handler, without Nest's guards, pipes and interceptors (they
 * cost more CPU than the whole ad selection). Anything it does not take goes on to the Nest handler of the same
 * route, which alone answers errors, so both ways give the same answers (the e2e suites send every request of a
 * kind both ways and compare). Fastify's hooks (request id, CORS, key check, limits, request log) and the route's
 * deadline apply to both. A lane is put on its route by @FastLane() on the controller method it shadows.
 */
export abstract class FastLaneHandler implements LaneRoute {
  method = '';
  url = '';
  access: RouteAccess = { publishableKeyAllowed: false, roles: undefined };

  /** Once, at start: a lane is one provider for one route. */
  bindRoute(route: LaneRoute): void {
    if (this.url !== '' && (this.url !== route.url || this.method !== route.method)) {
      throw new Error(`${this.constructor.name} already shadows ${this.method} ${this.url}; it cannot also shadow ${route.method} ${route.url}`);
    }
    this.method = route.method;
    this.url = route.url;
    this.access = route.access;
  }

  /**
   * True when the lane took the request: it will answer it (success or an error envelope). False, with nothing
   * done and nothing counted, when the request must go through Nest.
   */
  abstract tryHandle(request: FastifyRequest, reply: FastifyReply): boolean;
}

/** Puts this lane in front of the decorated controller method: most of the route's traffic is answered by it. */
export function FastLane(lane: Type<FastLaneHandler>): MethodDecorator {
  return (target, _key, descriptor) => {
    const handler = descriptor.value as object;
    setEdgeRouteConfig(handler, { adnetFastLane: { lane, handler, controller: target.constructor } });
    return descriptor;
  };
}

/** The lane declared on a route (see FastLane), bound to the route; undefined when it has none. */
export function laneOfRoute(
  route: { method: string | string[]; url: string; config?: unknown },
  instanceOf: (type: Type<FastLaneHandler>) => FastLaneHandler,
): FastLaneHandler | undefined {
  const declared = (route.config as { adnetFastLane?: { lane: Type<FastLaneHandler>; handler: object; controller: object } } | undefined)?.adnetFastLane;
  if (declared === undefined) return undefined;
  const method = Array.isArray(route.method) ? (route.method.length === 1 ? route.method[0] : undefined) : route.method;
  // Fastify's automatic HEAD twin of a GET route keeps the Nest handler.
  if (method === undefined || method === 'HEAD') return undefined;
  const lane = instanceOf(declared.lane);
  lane.bindRoute({
    method,
    url: route.url,
    access: routeAccessOf(declared.handler, declared.controller),
  });
  return lane;
}
