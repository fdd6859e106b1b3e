import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { AdBlocksService } from '../ad-blocks/ad-blocks.service';
import { AccountsService } from '../accounts/accounts.service';
import { CurrentPrincipal, Roles } from '../accounts/auth.decorators';
import type { Principal } from '../accounts/principal';
import { CampaignsService } from '../campaigns/campaigns.service';
import { Clock } from '../common/clock';
import { ApiEnvelope, ApiErrors, Envelope, ok } from '../common/envelope';
import { AdBlockSeriesDto, AdBlockSeriesQueryDto, CampaignSeriesDto, CampaignSeriesQueryDto } from './dto/stats.dto';
import { StatsService } from './stats.service';

@ApiTags('stats')
@ApiSecurity('x-api-key')
@Controller('api/v2/openapi/ad')
export class StatsController {
  constructor(
    private readonly stats: StatsService,
    private readonly campaigns: CampaignsService,
    private readonly adBlocks: AdBlocksService,
    private readonly accounts: AccountsService,
    private readonly clock: Clock,
  ) {}

  @Get('campaign/stats')
  @Roles('advertiser')
  @ApiOperation({
    summary:
      "A campaign's series for charts: impressions, clicks, conversions, events of every type, cost per UTC hour or per day of the advertiser's time zone",
  })
  @ApiEnvelope(CampaignSeriesDto)
  @ApiErrors(400, 401, 403, 404)
  async campaignSeries(@CurrentPrincipal() principal: Principal, @Query() query: CampaignSeriesQueryDto): Promise<Envelope<CampaignSeriesDto>> {
    const campaign = await this.campaigns.detail(principal, query.campaignId);
    const zones = await this.accounts.zoneScheduleOf(campaign.userId);
    return ok({ series: await this.stats.campaignSeries(query.campaignId, campaign.optimizationEvent, query, this.clock.now(), zones) });
  }

  @Get('block/stats')
  @Roles('publisher')
  @ApiOperation({ summary: "An ad block's series for charts: impressions, clicks, conversions, earnings per UTC hour or per day of the publisher's time zone" })
  @ApiEnvelope(AdBlockSeriesDto)
  @ApiErrors(400, 401, 403, 404)
  async adBlockSeries(@CurrentPrincipal() principal: Principal, @Query() query: AdBlockSeriesQueryDto): Promise<Envelope<AdBlockSeriesDto>> {
    await this.adBlocks.assertUsable(principal, query.adBlockId);
    const block = await this.adBlocks.servingBlock(query.adBlockId);
    const zones = block === null ? null : await this.accounts.zoneScheduleOf(block.accountId);
    return ok({ series: await this.stats.adBlockSeries(query.adBlockId, query, this.clock.now(), zones) });
  }
}
