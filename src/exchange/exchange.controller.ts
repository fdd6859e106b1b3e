import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, PublishableKeyAllowed, Roles } from '../accounts/auth.decorators';
import { HandlerDeadline } from '../common/edge/route-config';
import { WriteDeadlineRoute } from '../common/write-deadline';
import type { Principal } from '../accounts/principal';
import { ApiEnvelope, ApiErrors, Envelope, ok } from '../common/envelope';
import { Facts, type RequestFacts } from '../common/request-facts';
import { PagingQueryDto } from '../common/paging.dto';
import {
  ExchangeCampaignCreateDto,
  ExchangeCampaignCreatedDto,
  ExchangeCampaignIdDto,
  ExchangeCampaignListDto,
  ExchangeCampaignResponseDto,
  ExchangeCampaignStatusDto,
  ExchangeCampaignUpdateDto,
  ExchangeClickReportDto,
  ExchangeClickResultDto,
  ExchangeConversionReportDto,
  ExchangeConversionResultDto,
  ExchangeEntriesDto,
  ExchangeFetchQueryDto,
  ExchangeSeriesDto,
  ExchangeSeriesQueryDto,
  ExchangeStatusResultDto,
} from './dto/exchange.dto';
import { ExchangeCampaignsService } from './exchange-campaigns.service';
import { ExchangeConversionsService } from './exchange-conversions.service';
import { ExchangeService } from './exchange.service';

const RANKING =
  "Ranking: by the ledger balance (clicks sent minus clicks received) of the promoted campaign's partner over all " +
  "its exchange campaigns, creditors first, then the campaign's own balance, then oldest first. A partner whose " +
  'balance is below -`EXCHANGE_DEBT_LIMIT` (default 100 clicks) is far in debt: its entries come after every other ' +
  "partner's and one answer holds at most one of them.";

@ApiTags('exchange')
@ApiSecurity('x-api-key')
@Roles('partner')
@Controller('api/v2/openapi')
export class ExchangeController {
  constructor(
    private readonly exchange: ExchangeService,
    private readonly campaigns: ExchangeCampaignsService,
    private readonly conversions: ExchangeConversionsService,
  ) {}

  @Get('matching/exchange')
  @PublishableKeyAllowed()
  @HandlerDeadline('none')
  @ApiOperation({
    summary: '8. Fetch exchange entries for your exchange campaign',
    description:
      "Call it from the end user's frontend (region from the client IP, language from `Accept-Language`). Answers " +
      "other partners' ongoing exchange campaigns, never your own: `outExchangeCampaignId` is the one you asked " +
      'with, `inExchangeCampaignId` the promoted one; `image` is absent when the promoted campaign has none. Each ' +
      'entry answered is one impression. ' +
      RANKING +
      ' In production an entry the user clicked is not offered to that user again for 10 minutes (off when ' +
      '`APP_ENV=test`). A paused campaign still fetches (it is only no longer promoted); an ended one answers 409.',
  })
  @ApiEnvelope(ExchangeEntriesDto)
  @ApiErrors(400, 401, 403, 404, 409)
  async fetch(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ExchangeFetchQueryDto,
    @Facts() facts: RequestFacts,
  ): Promise<Envelope<ExchangeEntriesDto>> {
    return ok(await this.exchange.fetchEntries(principal, query, facts));
  }

  @Post('exchange/event/report')
  @PublishableKeyAllowed()
  @HttpCode(200)
  @ApiOperation({
    summary: '9. Report a click on an exchange entry (key of the partner owning outExchangeCampaignId)',
    description:
      'Counted only if that entry was served to that user in that out campaign within 24 hours (else 400 `no matching ' +
      'impression`). A repeat within 10 minutes answers success without counting again, so retries are safe. A ' +
      'counted click credits the out campaign (clicksSent + 1) and debits the in campaign (clicksReceived + 1); the ' +
      'click and the ledger are committed before the answer. Answers `{status: "success"}` without the envelope, as ' +
      'the interface says; failures use the error envelope.',
  })
  @ApiOkResponse({ type: ExchangeClickResultDto, description: 'Counted, or a repeat that was not counted again' })
  @ApiErrors(400, 401, 403, 404)
  async click(@CurrentPrincipal() principal: Principal, @Body() body: ExchangeClickReportDto, @Facts() facts: RequestFacts): Promise<ExchangeClickResultDto> {
    await this.exchange.reportClick(principal, body.eventData, facts);
    return { status: 'success' };
  }

  @Post('exchange/event/report/conversion')
  @WriteDeadlineRoute()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Report a conversion of a user your exchange campaigns received (key of the partner owning the in campaign)',
    description:
      "TON AI Open API's exchange conversion (docs/CONTRACT.md §14). Credited to that user's latest counted exchange click " +
      'into your exchange campaigns within `ATTRIBUTION_DAYS` (7) days, at most once per click: it counts in that ' +
      "campaign's `conversions` and `cr` and in its series. Otherwise (no such click, or that click was credited " +
      'already) it is kept unattributed and counts nowhere, and answers success all the same, as ad conversions do. ' +
      'Stored before the answer. Answers `{status: "success"}` without the envelope; failures use the error envelope.',
  })
  @ApiOkResponse({ type: ExchangeConversionResultDto, description: 'Stored (attributed or not)' })
  @ApiErrors(400, 401, 403)
  async conversion(@CurrentPrincipal() principal: Principal, @Body() body: ExchangeConversionReportDto): Promise<ExchangeConversionResultDto> {
    await this.conversions.report(principal, body.eventData.messengerUserId);
    return { status: 'success' };
  }

  @Post('exchange/campaign/create')
  @HttpCode(200)
  @ApiOperation({ summary: 'Create an exchange campaign (starts onGoing)', description: 'Beyond the interface (docs/CONTRACT.md §2, §11).' })
  @ApiEnvelope(ExchangeCampaignCreatedDto)
  @ApiErrors(400, 401, 403, 413)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: ExchangeCampaignCreateDto): Promise<Envelope<ExchangeCampaignCreatedDto>> {
    return ok({ exchangeCampaignId: await this.campaigns.create(principal, body) });
  }

  @Get('exchange/campaign/list')
  @ApiOperation({ summary: "List exchange campaigns with their ledger, newest first (a partner's own; all for admin)" })
  @ApiEnvelope(ExchangeCampaignListDto)
  @ApiErrors(400, 401, 403)
  async list(@CurrentPrincipal() principal: Principal, @Query() query: PagingQueryDto): Promise<Envelope<ExchangeCampaignListDto>> {
    const [exchangeCampaigns, total] = await this.campaigns.list(principal, query.skip, query.pageSize);
    return ok({ exchangeCampaigns, total, current: query.current, pageSize: query.pageSize, success: true });
  }

  @Get('exchange/campaign/detail')
  @ApiOperation({ summary: 'One exchange campaign with its ledger: impressions, clicks sent and received, balance' })
  @ApiEnvelope(ExchangeCampaignResponseDto)
  @ApiErrors(400, 401, 403, 404)
  async detail(@CurrentPrincipal() principal: Principal, @Query() query: ExchangeCampaignIdDto): Promise<Envelope<ExchangeCampaignResponseDto>> {
    return ok(await this.campaigns.detail(principal, query.exchangeCampaignId));
  }

  @Post('exchange/campaign/update')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Edit an exchange campaign',
    description:
      'Fields given change, the others stay; `destination` and `targeting` merge, lists replace; `image: null` removes the image. Ended campaigns answer 409.',
  })
  @ApiEnvelope(ExchangeCampaignResponseDto)
  @ApiErrors(400, 401, 403, 404, 409)
  async update(@CurrentPrincipal() principal: Principal, @Body() body: ExchangeCampaignUpdateDto): Promise<Envelope<ExchangeCampaignResponseDto>> {
    return ok(await this.campaigns.update(principal, body));
  }

  @Post('exchange/campaign/status')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Pause, resume or end an exchange campaign',
    description:
      '`paused`: no longer promoted to other partners (it may still fetch their entries). `start`: promoted again. ' +
      '`end`: final; `start`/`paused` on it answer 409, `end` again is success.',
  })
  @ApiEnvelope(ExchangeStatusResultDto)
  @ApiErrors(400, 401, 403, 404, 409)
  async status(@CurrentPrincipal() principal: Principal, @Body() body: ExchangeCampaignStatusDto): Promise<Envelope<ExchangeStatusResultDto>> {
    await this.campaigns.setStatus(principal, body.exchangeCampaignId, body.status);
    return ok({ result: 'success' });
  }

  @Get('exchange/campaign/stats')
  @ApiOperation({
    summary: "An exchange campaign's series for charts: impressions, clicks sent and received, balance per UTC hour or day",
    description: 'Zero-filled buckets from `from` (rounded down) to `to`; the sums equal the totals of list and detail.',
  })
  @ApiEnvelope(ExchangeSeriesDto)
  @ApiErrors(400, 401, 403, 404)
  async series(@CurrentPrincipal() principal: Principal, @Query() query: ExchangeSeriesQueryDto): Promise<Envelope<ExchangeSeriesDto>> {
    return ok({ series: await this.campaigns.series(principal, query) });
  }
}
