import { Injectable, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { answerError } from '../common/all-exceptions.filter';
import { ok } from '../common/envelope';
import type { FastLane } from '../common/fast-lane';
import { requestFactsOf } from '../common/request-facts';
import { isDebug, testAds } from './debug-ads';
import { AdFetchQueryDto } from './dto/serving.dto';
import { JSON_TYPE, PublisherGate } from './publisher-gate';
import { servedAdsEnvelopeJson } from './served-ads-json';
import { DEBUG_ADS_MESSAGE, servedMessage, ServingService } from './serving.service';

/**
 * Endpoint 5 without Nest's per-request machinery (see FastLane): a plainly valid query that the PublisherGate
 * admits; everything else goes to ServingController.
 */
@Injectable()
export class ServingFastLane implements FastLane {
  readonly method = 'GET';
  readonly url = '/api/v2/openapi/matching/ad';
  private readonly logger = new Logger('Errors');

  constructor(
    private readonly gate: PublisherGate,
    private readonly serving: ServingService,
  ) {}

  tryHandle(request: FastifyRequest, reply: FastifyReply): boolean {
    const query = AdFetchQueryDto.acceptFast(request.query);
    if (query === null || !this.gate.admits(request, query.adBlockId)) return false;

    if (isDebug(request.headers.debug)) {
      reply.header('content-type', JSON_TYPE).send(ok({ msg: DEBUG_ADS_MESSAGE, success: true, ads: testAds(query.adBlockId, query.limit) }));
      return true;
    }
    this.serving.serve(query, requestFactsOf(request)).then(
      (served) => reply.header('content-type', JSON_TYPE).send(servedAdsEnvelopeJson(servedMessage(served.length), query.adBlockId, served)),
      (error: unknown) => answerError(error, request, reply, this.logger),
    );
    return true;
  }
}
