import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AccountsService } from '../accounts/accounts.service';
import { hasRole } from '../accounts/principal';
import { RateLimiter } from '../accounts/rate-limiter';
import { AdBlocksService } from '../ad-blocks/ad-blocks.service';

/**
 * The checks of the publisher's hot routes (5 and 6) for their fast lanes, from memory only: a cached key of a
 * publisher (or admin), a block known to be the caller's, the rate limit. False means "go through Nest", which
 * answers the 401, 403, 404 or 429; the rate limit is counted last, so a request handed to Nest is counted once.
 */
@Injectable()
export class PublisherGate {
  constructor(
    private readonly accounts: AccountsService,
    private readonly limiter: RateLimiter,
    private readonly adBlocks: AdBlocksService,
  ) {}

  admits(request: FastifyRequest, adBlockId: string): boolean {
    const principal = this.accounts.cachedPrincipal(request.headers['x-api-key']);
    if (!principal || !hasRole(principal, 'publisher')) return false;
    if (this.adBlocks.usableIfKnown(principal, adBlockId) !== true) return false;
    return this.limiter.admit(principal.keyId);
  }
}

export const JSON_TYPE = 'application/json; charset=utf-8';
