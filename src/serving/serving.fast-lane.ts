import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LaneGate } from '../accounts/lane-gate';
import { AdBlocksService } from '../ad-blocks/ad-blocks.service';
import { answerError, sendOk, sendOkJson } from '../common/edge/envelope-writer';
import { FastLaneHandler } from '../common/edge/fast-lane';
import { requestFactsOf } from '../common/request-facts';
import { acceptFastWithAliases } from '../common/validation.pipe';
import { isDebug } from './debug-ads';
import { AdFetchQueryDto } from './dto/serving.dto';
import { servedAdsJson } from './served-ads-json';
import { servedMessage, ServingService } from './serving.service';

/**
 * Endpoint 5 without Nest's per-request machinery (see FastLaneHandler; on ServingController.fetch): a plainly valid
 * query (Open API aliases such as `type=telegram` rewritten first, docs/CONTRACT.md §14) whose key the LaneGate admits, on a block known to be the caller's; everything else goes to the controller.
 */
@Injectable()
export class ServingFastLane extends FastLaneHandler {
  constructor(
    private readonly gate: LaneGate,
    private readonly adBlocks: AdBlocksService,
    private readonly serving: ServingService,
  ) {
    super();
  }

  tryHandle(request: FastifyRequest, reply: FastifyReply): boolean {
    const query = acceptFastWithAliases(AdFetchQueryDto, request.query);
    if (query === null) return false;
    const principal = this.gate.principalFor(request, this.access);
    if (principal === null || this.adBlocks.usableIfKnown(principal, query.adBlockId) !== true || !this.gate.admitRate(request, principal, this.access)) {
      return false;
    }

    const facts = requestFactsOf(request);
    if (isDebug(request.headers.debug)) {
      this.serving.debugAds(query, facts).then(
        (answer) => sendOk(reply, answer),
        (error: unknown) => answerError(error, request, reply),
      );
      return true;
    }
    const clickIds: (string | null)[] = [];
    this.serving.serve(query, facts, clickIds).then(
      (served) => sendOkJson(reply, servedAdsJson(servedMessage(served.length), query.adBlockId, served, clickIds)),
      (error: unknown) => answerError(error, request, reply),
    );
    return true;
  }
}
