import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Roles } from '../accounts/auth.decorators';
import type { Principal } from '../accounts/principal';
import { ApiEnvelope, ApiErrors, Envelope, ok } from '../common/envelope';
import { PagingQueryDto } from '../common/paging.dto';
import { CampaignsService } from './campaigns.service';
import { CampaignResponseDto, ReviewApproveDto, ReviewListDto, ReviewRejectDto } from './dto/campaign.dto';

/** The admins' review queue (docs/CONTRACT.md §18): new campaigns and edited creatives waiting, approve or reject. */
@ApiTags('admin')
@ApiSecurity('x-api-key')
@Roles('admin')
@Controller('api/v2/admin/reviews')
export class CampaignReviewsController {
  constructor(private readonly campaigns: CampaignsService) {}

  @Get()
  @ApiOperation({
    summary: 'What waits for review, oldest first: new campaigns and revisions (edited creatives of approved campaigns)',
    description: 'Each item has the creative waiting (`pendingAd`) and, for a revision, the one serving now (`approvedAd`).',
  })
  @ApiEnvelope(ReviewListDto)
  @ApiErrors(400, 401, 403)
  async list(@Query() query: PagingQueryDto): Promise<Envelope<ReviewListDto>> {
    const [reviews, total] = await this.campaigns.reviews(query.skip, query.pageSize);
    return ok({ reviews, total, current: query.current, pageSize: query.pageSize, success: true });
  }

  @Post('approve')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Approve what waits: a new campaign may serve, a revision replaces the serving creative',
    description: 'Answers the campaign detail. 409 when nothing of the campaign waits for review.',
  })
  @ApiEnvelope(CampaignResponseDto)
  @ApiErrors(400, 401, 403, 404, 409)
  async approve(@CurrentPrincipal() principal: Principal, @Body() body: ReviewApproveDto): Promise<Envelope<CampaignResponseDto>> {
    return ok(await this.campaigns.approveReview(principal, body.campaignId));
  }

  @Post('reject')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Reject what waits, with a note for the advertiser',
    description:
      'A revision is discarded and the approved creative keeps serving; a new campaign stays inReview, reviewStatus rejected, ' +
      'until its advertiser edits it. Answers the campaign detail. 409 when nothing of the campaign waits for review.',
  })
  @ApiEnvelope(CampaignResponseDto)
  @ApiErrors(400, 401, 403, 404, 409)
  async reject(@CurrentPrincipal() principal: Principal, @Body() body: ReviewRejectDto): Promise<Envelope<CampaignResponseDto>> {
    return ok(await this.campaigns.rejectReview(principal, body.campaignId, body.note));
  }
}
