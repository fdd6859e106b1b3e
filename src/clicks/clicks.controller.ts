import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, PublishableKeyAllowed, Roles } from '../accounts/auth.decorators';
import type { Principal } from '../accounts/principal';
import { FastLane } from '../common/edge/fast-lane';
import { ApiEnvelope, ApiErrors, Envelope, ok } from '../common/envelope';
import { Facts, type RequestFacts } from '../common/request-facts';
import { ClickReportDto, ClickResultDto } from './dto/click.dto';
import { ClicksFastLane } from './clicks.fast-lane';
import { ClicksService } from './clicks.service';
import { CompletionsService } from '../rewards/completions.service';

@ApiTags('events')
@ApiSecurity('x-api-key')
@Controller('api/v2/openapi/ad/event')
export class ClicksController {
  constructor(
    private readonly events: ClicksService,
    private readonly completions: CompletionsService,
  ) {}

  @Post('report')
  @PublishableKeyAllowed()
  @FastLane(ClicksFastLane)
  @HttpCode(200)
  @Roles('publisher')
  @ApiOperation({
    summary: '6. Report a click on a served ad (or, `eventType: complete`, that it was watched to the end)',
    description:
      'Counted only if that ad was served to that user on that block within 24 hours (else 400 `no matching ' +
      'impression`). A repeat within 10 minutes answers success without counting again, so retries are safe. ' +
      'CPC campaigns are billed per counted click while budget is left. The click is stored before the answer. ' +
      "`eventType: complete` (a serve key may send it): the user watched the served ad to the end; counted once per impression, at least the block's " +
      '`minViewMs` after the serve, valid traffic only, else answered success and not counted; on a rewarded block it sends the reward callback ' +
      '(docs/REWARDED_ADS.md).',
  })
  @ApiEnvelope(ClickResultDto)
  @ApiErrors(400, 401, 403, 404)
  async click(@CurrentPrincipal() principal: Principal, @Body() body: ClickReportDto, @Facts() facts: RequestFacts): Promise<Envelope<ClickResultDto>> {
    if (body.eventType === 'complete') return ok(await this.completions.reportCompletion(principal, body.eventData, facts));
    return ok(await this.events.reportClick(principal, body.eventData, facts));
  }
}
