import { Inject, Injectable, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AccountsService } from '../accounts/accounts.service';
import { hasRole } from '../accounts/principal';
import { RateLimiter } from '../accounts/rate-limiter';
import { AdBlocksService } from '../ad-blocks/ad-blocks.service';
import { answerError } from '../common/all-exceptions.filter';
import { FastLane, withDeadline } from '../common/fast-lane';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { ClickReportDto } from './dto/click.dto';
import { EventsService } from './events.service';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Endpoint 6 without Nest's per-request machinery (see FastLane): a cached publisher key, a plainly valid report
 * and a known block of the caller's; everything else goes to EventsController.
 */
@Injectable()
export class EventsFastLane implements FastLane {
  readonly method = 'POST';
  readonly url = '/api/v2/openapi/ad/event/report';
  private readonly logger = new Logger('Errors');

  constructor(
    private readonly accounts: AccountsService,
    private readonly limiter: RateLimiter,
    private readonly adBlocks: AdBlocksService,
    private readonly events: EventsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  tryHandle(request: FastifyRequest, reply: FastifyReply): boolean {
    const principal = this.accounts.cachedPrincipal(request.headers['x-api-key']);
    if (!principal || !hasRole(principal, 'publisher')) return false;
    // A malformed or non-JSON body is not a plain object with these fields: Nest words its error.
    const report = ClickReportDto.acceptFast(request.body);
    if (report === null || this.adBlocks.usableIfKnown(principal, report.eventData.adBlockId) !== true) return false;
    if (!this.limiter.admit(principal.keyId)) return false;

    withDeadline(this.events.countClick(report.eventData), this.config.handlerTimeoutMs).then(
      (result) => reply.header('content-type', JSON_TYPE).send(`{"code":0,"message":"success","data":${JSON.stringify(result)}}`),
      (error: unknown) => answerError(error, request, reply, this.logger),
    );
    return true;
  }
}
