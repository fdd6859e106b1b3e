import { Injectable, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AccountsService } from '../accounts/accounts.service';
import { hasRole } from '../accounts/principal';
import { RateLimiter } from '../accounts/rate-limiter';
import { AdBlocksService } from '../ad-blocks/ad-blocks.service';
import { answerError } from '../common/all-exceptions.filter';
import type { FastLane } from '../common/fast-lane';
import { isDebug, testAds } from './debug-ads';
import { AdFetchQueryDto } from './dto/serving.dto';
import { servedAdsEnvelopeJson, testAdsEnvelopeJson } from './served-ads-json';
import { DEBUG_ADS_MESSAGE, servedMessage, ServingService } from './serving.service';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Endpoint 5 without Nest's per-request machinery (see FastLane): a cached publisher key, a plainly valid query
 * and a known block of the caller's; everything else goes to ServingController.
 */
@Injectable()
export class ServingFastLane implements FastLane {
  readonly method = 'GET';
  readonly url = '/api/v2/openapi/matching/ad';
  private readonly logger = new Logger('Errors');

  constructor(
    private readonly accounts: AccountsService,
    private readonly limiter: RateLimiter,
    private readonly adBlocks: AdBlocksService,
    private readonly serving: ServingService,
  ) {}

  tryHandle(request: FastifyRequest, reply: FastifyReply): boolean {
    const principal = this.accounts.cachedPrincipal(request.headers['x-api-key']);
    if (!principal || !hasRole(principal, 'publisher')) return false;
    const query = AdFetchQueryDto.acceptFast(request.query);
    if (query === null || this.adBlocks.usableIfKnown(principal, query.adBlockId) !== true) return false;
    // Counted last: a request handed to Nest from here on would be counted twice.
    if (!this.limiter.admit(principal.keyId)) return false;

    if (isDebug(request.headers.debug)) {
      reply.header('content-type', JSON_TYPE).send(testAdsEnvelopeJson(DEBUG_ADS_MESSAGE, testAds(query.adBlockId, query.limit)));
      return true;
    }
    this.serving.serve(query, request).then(
      (served) => reply.header('content-type', JSON_TYPE).send(servedAdsEnvelopeJson(servedMessage(served.length), query.adBlockId, served)),
      (error: unknown) => answerError(error, request, reply, this.logger),
    );
    return true;
  }
}
