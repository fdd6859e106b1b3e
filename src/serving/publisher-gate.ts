import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { RequestWithPrincipal } from '../accounts/edge-key-check';
import { keyAccessRefusal, rateLimitBucket, RouteAccess } from '../accounts/key-access';
import { hasRole } from '../accounts/principal';
import { RateLimiter } from '../accounts/rate-limiter';
import { AdBlocksService } from '../ad-blocks/ad-blocks.service';

/** Endpoints 5 and 6 are called from end users' browsers: publishable keys may call them (@PublishableKeyAllowed). */
const PUBLISHER_ROUTE: RouteAccess = { publishableKeyAllowed: true };

/**
 * The checks of the publisher's hot routes (5 and 6) for their fast lanes, from memory only: the key the edge hook
 * resolved (edge-key-check.ts) of a publisher (or admin), its scope and origins by the same keyAccessRefusal as the
 * guards, a block known to be the caller's, the rate limit in the same bucket as the guard's. False means "go
 * through Nest", which answers the 401, 403, 404 or 429; the rate limit is counted last, so a request handed to Nest
 * is counted once.
 */
@Injectable()
export class PublisherGate {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly adBlocks: AdBlocksService,
  ) {}

  admits(request: FastifyRequest, adBlockId: string): boolean {
    const principal = (request as RequestWithPrincipal).principal;
    if (!principal || !hasRole(principal, 'publisher')) return false;
    const origin = request.headers.origin;
    if (keyAccessRefusal(principal, PUBLISHER_ROUTE, typeof origin === 'string' ? origin : undefined) !== null) return false;
    if (this.adBlocks.usableIfKnown(principal, adBlockId) !== true) return false;
    return this.limiter.admit(rateLimitBucket(principal, PUBLISHER_ROUTE, request.ip));
  }
}

export const JSON_TYPE = 'application/json; charset=utf-8';
