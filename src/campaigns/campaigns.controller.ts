import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Roles } from '../accounts/auth.decorators';
import type { Principal } from '../accounts/principal';
import { ApiEnvelope, ApiErrors, Envelope, ok } from '../common/envelope';
import { PagingQueryDto } from '../common/paging.dto';
import { CampaignsService } from './campaigns.service';
import {
  CampaignCreateDto,
  CampaignCreatedDto,
  CampaignDetailQueryDto,
  CampaignListDto,
  CampaignResponseDto,
  CampaignStatusDto,
  CampaignUpdateDto,
  StatusResultDto,
} from './dto/campaign.dto';

@ApiTags('campaigns')
@ApiSecurity('x-api-key')
@Roles('advertiser')
@Controller('api/v2/openapi/ad/campaign')
export class CampaignsController {
  constructor(private readonly campaigns: CampaignsService) {}

  @Post('create')
  @HttpCode(200)
  @ApiOperation({ summary: '1. Create a campaign', description: 'Starts `onGoing` (or `inReview` when CAMPAIGN_REVIEW=true).' })
  @ApiEnvelope(CampaignCreatedDto)
  @ApiErrors(400, 401, 403, 413)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CampaignCreateDto): Promise<Envelope<CampaignCreatedDto>> {
    return ok({ campaignId: await this.campaigns.create(principal, body) });
  }

  @Post('status')
  @HttpCode(200)
  @ApiOperation({
    summary: '2. Change campaign status',
    description:
      '`start`: paused -> onGoing (idempotent on onGoing; an admin approves inReview). `paused`: onGoing/inReview -> paused. ' +
      '`end`: any -> ended, final and idempotent. Forbidden changes answer 409.',
  })
  @ApiEnvelope(StatusResultDto)
  @ApiErrors(400, 401, 403, 404, 409)
  async status(@CurrentPrincipal() principal: Principal, @Body() body: CampaignStatusDto): Promise<Envelope<StatusResultDto>> {
    await this.campaigns.setStatus(principal, body.campaignId, body.status);
    return ok({ result: 'success' });
  }

  @Get('list')
  @ApiOperation({ summary: "3. List campaigns, newest first (an advertiser's own; all for admin)" })
  @ApiEnvelope(CampaignListDto)
  @ApiErrors(400, 401, 403)
  async list(@CurrentPrincipal() principal: Principal, @Query() query: PagingQueryDto): Promise<Envelope<CampaignListDto>> {
    const [campaigns, total] = await this.campaigns.list(principal, query.skip, query.pageSize);
    return ok({ campaigns, total, current: query.current, pageSize: query.pageSize, success: true });
  }

  @Get('detail')
  @ApiOperation({ summary: '4. Campaign detail: the campaign shape plus status and stats' })
  @ApiEnvelope(CampaignResponseDto)
  @ApiErrors(400, 401, 403, 404)
  async detail(@CurrentPrincipal() principal: Principal, @Query() query: CampaignDetailQueryDto): Promise<Envelope<CampaignResponseDto>> {
    return ok(await this.campaigns.detail(principal, query.campaignId));
  }

  @Post('update')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Edit a campaign (beyond the interface)',
    description: 'Fields given change, the others stay; nested objects merge, arrays replace. Ended campaigns answer 409.',
  })
  @ApiEnvelope(CampaignResponseDto)
  @ApiErrors(400, 401, 403, 404, 409)
  async update(@CurrentPrincipal() principal: Principal, @Body() body: CampaignUpdateDto): Promise<Envelope<CampaignResponseDto>> {
    return ok(await this.campaigns.update(principal, body));
  }
}
