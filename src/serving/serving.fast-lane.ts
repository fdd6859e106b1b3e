import { Injectable, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { answerError } from '../common/all-exceptions.filter';
import { ok } from '../common/envelope';
import type { FastLane } from '../common/fast-lane';
import { requestFactsOf } from '../common/request-facts';
import { isDebug } from './debug-ads';
import { AdFetchQueryDto } from './dto/serving.dto';
import { JSON_TYPE, PublisherGate } from './publisher-gate';
import { servedAdsEnvelopeJson } from './served-ads-json';
import { servedMessage, ServingService } from './serving.service';

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

    const facts = requestFactsOf(request);
    if (isDebug(request.headers.debug)) {
      this.serving.debugAds(query, facts).then(
        (answer) => reply.header('content-type', JSON_TYPE).send(ok(answer)),
        (error: unknown) => answerError(error, request, reply, this.logger),
      );
      return true;
    }
    this.serving.serve(query, facts).then(
      (served) => reply.header('content-type', JSON_TYPE).send(servedAdsEnvelopeJson(servedMessage(served.length), query.adBlockId, served)),
      (error: unknown) => answerError(error, request, reply, this.logger),
    );
    return true;
  }
}
