import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { RequestWithPrincipal } from './edge-key-check';
import { accessRefusal, rateLimitBucket, RouteAccess } from './key-access';
import type { Principal } from './principal';
import { RateLimiter } from './rate-limiter';

/**
 * The key checks of a fast lane, from memory only, by the same pieces as the edge hook and the guards: the principal
 * the edge hook resolved (edge-key-check.ts), the route's scope, origin and role rules (accessRefusal, with the
 * route's own decorators: see FastLane), the rate limit in the guard's bucket. A null principal or a false admit
 * means "go through Nest", which answers the 401, 403 or 429. A lane checks its own objects in between, so the rate
 * limit, counted last, counts a request handed to Nest only once.
 */
@Injectable()
export class LaneGate {
  constructor(private readonly limiter: RateLimiter) {}

  /** The caller, when the route's access rules let it through; null otherwise (nothing counted). */
  principalFor(request: FastifyRequest, access: RouteAccess): Principal | null {
    const principal = (request as RequestWithPrincipal).principal;
    if (principal === undefined) return null;
    const origin = request.headers.origin;
    return accessRefusal(principal, access, typeof origin === 'string' ? origin : undefined) === null ? principal : null;
  }

  /** Counts the request against the caller's rate limit; false once over it. */
  admitRate(request: FastifyRequest, principal: Principal, access: RouteAccess): boolean {
    return this.limiter.admit(rateLimitBucket(principal, access, request.ip));
  }
}
