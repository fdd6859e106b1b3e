import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LaneGate } from '../accounts/lane-gate';
import { AdBlocksService } from '../ad-blocks/ad-blocks.service';
import { answerError, sendOk } from '../common/edge/envelope-writer';
import { FastLaneHandler } from '../common/edge/fast-lane';
import { requestFactsOf } from '../common/request-facts';
import { acceptFastWithAliases } from '../common/validation.pipe';
import { ClickReportDto } from './dto/click.dto';
import { ClicksService } from './clicks.service';

/**
 * Endpoint 6 without Nest's per-request machinery (see FastLaneHandler; on ClicksController.click): a plainly valid
 * report (Open API aliases such as `telegramUserId` rewritten first, docs/CONTRACT.md §14) whose key the LaneGate admits, on a block known to be the caller's; everything else (a malformed or non-JSON
 * body included) goes to the controller. The route's handler deadline covers both ways (see deadline.ts).
 */
@Injectable()
export class ClicksFastLane extends FastLaneHandler {
  constructor(
    private readonly gate: LaneGate,
    private readonly adBlocks: AdBlocksService,
    private readonly events: ClicksService,
  ) {
    super();
  }

  tryHandle(request: FastifyRequest, reply: FastifyReply): boolean {
    const report = acceptFastWithAliases(ClickReportDto, request.body);
    if (report === null) return false;
    const principal = this.gate.principalFor(request, this.access);
    const adBlockId = report.eventData.adBlockId;
    if (principal === null || this.adBlocks.usableIfKnown(principal, adBlockId) !== true || !this.gate.admitRate(request, principal, this.access)) {
      return false;
    }

    this.events.countClick(report.eventData, requestFactsOf(request)).then(
      (result) => sendOk(reply, result),
      (error: unknown) => answerError(error, request, reply),
    );
    return true;
  }
}
