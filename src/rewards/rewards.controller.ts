import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Roles } from '../accounts/auth.decorators';
import type { Principal } from '../accounts/principal';
import { ApiEnvelope, ApiErrors, Envelope, ok } from '../common/envelope';
import { RewardDto, RewardEventIdDto, RewardLogDto, RewardLogQueryDto, RewardTestDto, RewardTestResultDto } from './dto/reward.dto';
import type { RewardDelivery } from './entities/reward-delivery.entity';
import { RewardCallbacksService } from './reward-callbacks.service';

/** A rewarded block's delivery log, replay and test call (docs/REWARDED_ADS.md); the publisher's full key. */
@ApiTags('ad blocks')
@ApiSecurity('x-api-key')
@Roles('publisher')
@Controller('api/v2/openapi/ad/block/rewards')
export class RewardsController {
  constructor(private readonly rewards: RewardCallbacksService) {}

  @Get()
  @ApiOperation({ summary: "A block's reward callbacks, newest first: status, tries, last status code and error" })
  @ApiEnvelope(RewardLogDto)
  @ApiErrors(400, 401, 403, 404)
  async log(@CurrentPrincipal() principal: Principal, @Query() query: RewardLogQueryDto): Promise<Envelope<RewardLogDto>> {
    const [rows, total] = await this.rewards.log(principal, query.adBlockId, query.status, query.skip, query.pageSize);
    return ok({ rewards: rows.map(toReward), total, current: query.current, pageSize: query.pageSize });
  }

  @Post('replay')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Send a reward callback again (same eventId)',
    description: 'Queues one more delivery with the usual retries; the reward is `pending` until it is delivered or fails. Answers the reward.',
  })
  @ApiEnvelope(RewardDto)
  @ApiErrors(400, 401, 403, 404)
  async replay(@CurrentPrincipal() principal: Principal, @Body() body: RewardEventIdDto): Promise<Envelope<RewardDto>> {
    return ok(toReward(await this.rewards.replay(principal, body.eventId)));
  }

  @Post('test')
  @HttpCode(200)
  @ApiOperation({
    summary: "Send a signed `eventType: test` call to the block's rewardUrl now",
    description:
      "Signed like a reward; nothing is stored or granted. Answers your endpoint's status code and the time it took (409 when the block has no rewardUrl).",
  })
  @ApiEnvelope(RewardTestResultDto)
  @ApiErrors(400, 401, 403, 404, 409)
  async test(@CurrentPrincipal() principal: Principal, @Body() body: RewardTestDto): Promise<Envelope<RewardTestResultDto>> {
    const { statusCode, ms, error } = await this.rewards.test(principal, body.adBlockId);
    return ok({ statusCode, ms, error });
  }
}

function toReward(row: RewardDelivery): RewardDto {
  return {
    eventId: row.eventId,
    messengerUserId: row.messengerUserId,
    campaignId: row.campaignId,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    createdAt: row.createdAt,
    deliveredAt: row.deliveredAt,
  };
}
