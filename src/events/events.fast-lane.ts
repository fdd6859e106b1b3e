import { Inject, Injectable, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { answerError } from '../common/all-exceptions.filter';
import { ok } from '../common/envelope';
import { FastLane, withDeadline } from '../common/fast-lane';
import { requestFactsOf } from '../common/request-facts';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { JSON_TYPE, PublisherGate } from '../serving/publisher-gate';
import { ClickReportDto } from './dto/click.dto';
import { EventsService } from './events.service';

/**
 * Endpoint 6 without Nest's per-request machinery (see FastLane): a plainly valid report that the PublisherGate
 * admits; everything else (a malformed or non-JSON body included) goes to EventsController.
 */
@Injectable()
export class EventsFastLane implements FastLane {
  readonly method = 'POST';
  readonly url = '/api/v2/openapi/ad/event/report';
  private readonly logger = new Logger('Errors');

  constructor(
    private readonly gate: PublisherGate,
    private readonly events: EventsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get nestDeadlineMs(): number {
    return this.config.handlerTimeoutMs;
  }

  tryHandle(request: FastifyRequest, reply: FastifyReply): boolean {
    const report = ClickReportDto.acceptFast(request.body);
    if (report === null || !this.gate.admits(request, report.eventData.adBlockId)) return false;

    withDeadline(this.events.countClick(report.eventData, requestFactsOf(request)), this.config.handlerTimeoutMs).then(
      (result) => reply.header('content-type', JSON_TYPE).send(ok(result)),
      (error: unknown) => answerError(error, request, reply, this.logger),
    );
    return true;
  }
}
