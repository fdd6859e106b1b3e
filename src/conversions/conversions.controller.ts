import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Roles } from '../accounts/auth.decorators';
import type { Principal } from '../accounts/principal';
import { ApiEnvelope, ApiErrors, Envelope, ok } from '../common/envelope';
import { WriteDeadlineRoute } from '../common/write-deadline';
import { ConversionReportDto, ConversionResultDto, ConversionSummaryDto, ConversionSummaryQueryDto, CustomEventReportDto } from './dto/conversion.dto';
import { conversionMessage } from './conversion-messages';
import { ConversionsService } from './conversions.service';

@ApiTags('events')
@ApiSecurity('x-api-key')
@Roles('advertiser')
@Controller('api/v2/openapi/ad')
export class ConversionsController {
  constructor(private readonly conversions: ConversionsService) {}

  @Post('event/report/conversion')
  @WriteDeadlineRoute()
  @HttpCode(200)
  @ApiOperation({
    summary: '7. Report a conversion (advertiser key)',
    description:
      "Credited to that user's latest counted click on your campaigns within `ATTRIBUTION_DAYS` (7) days, at most " +
      'once per click; otherwise kept as unattributed (see `ad/conversion/summary`). Stored before the answer. ' +
      'Answers `{status: "success", msg}` without the envelope, as the interface says (`msg` added: attributed or not); ' +
      'failures use the error envelope.',
  })
  @ApiOkResponse({ type: ConversionResultDto, description: 'Stored (attributed or not)' })
  @ApiErrors(400, 401, 403)
  async report(@CurrentPrincipal() principal: Principal, @Body() body: ConversionReportDto): Promise<ConversionResultDto> {
    return { status: 'success', msg: conversionMessage(await this.conversions.report(principal, body.eventData)) };
  }

  @Post('event/report/custom')
  @WriteDeadlineRoute()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Report a custom event: onboard, register, play, payment or withdraw (advertiser key)',
    description:
      "Interface rule 7, attributed like a conversion: credited to that user's latest counted click on your campaigns " +
      'within `ATTRIBUTION_DAYS` (7) days, at most once per click and event type (a repeat is answered as not attributed and is not ' +
      "counted again); otherwise kept as unattributed (see `ad/conversion/summary`). It counts in the campaign's " +
      '`events` and series, and in `conversions` and `cr` of campaigns whose `optimizationEvent` it is. Stored before ' +
      'the answer. Answers `{status: "success", msg}` without the envelope, like a conversion; failures use the error envelope.',
  })
  @ApiOkResponse({ type: ConversionResultDto, description: 'Stored (attributed or not)' })
  @ApiErrors(400, 401, 403)
  async reportCustom(@CurrentPrincipal() principal: Principal, @Body() body: CustomEventReportDto): Promise<ConversionResultDto> {
    const outcome = await this.conversions.report(principal, body.eventData, body.eventType);
    return { status: 'success', msg: conversionMessage(outcome) };
  }

  @Get('conversion/summary')
  @ApiOperation({ summary: 'Your conversions and custom events in a time range: attributed to clicks, and unattributed (shown apart)' })
  @ApiEnvelope(ConversionSummaryDto)
  @ApiErrors(400, 401, 403)
  async summary(@CurrentPrincipal() principal: Principal, @Query() query: ConversionSummaryQueryDto): Promise<Envelope<ConversionSummaryDto>> {
    return ok(await this.conversions.summary(principal, query));
  }
}
