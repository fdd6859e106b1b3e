import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { PageDto, PagingQueryDto } from '../../common/paging.dto';
import { IdField, IsOneOf } from '../../common/validators';
import { REWARD_STATUSES, type RewardStatus } from '../entities/reward-delivery.entity';

export class RewardLogQueryDto extends PagingQueryDto {
  @IdField('The rewarded ad block (yours)')
  adBlockId: string;

  @ApiPropertyOptional({ enum: REWARD_STATUSES, description: 'Only rewards in this status', example: 'failed' })
  @IsOptional()
  @IsOneOf(REWARD_STATUSES)
  status?: RewardStatus;
}

export class RewardEventIdDto {
  @IdField('The reward to send again (its eventId in the delivery log)')
  eventId: string;
}

export class RewardTestDto {
  @IdField('The ad block whose rewardUrl gets a signed `eventType: test` call')
  adBlockId: string;
}

export class RewardDto {
  @ApiProperty({ description: "The callback's id: the same on every try and replay", example: 'rw_5f2a9c0e1b7d4a3c8e6f0b2d9a1c4e7f3b5d8a0c' })
  eventId: string;
  @ApiProperty({ example: '5512345678' }) messengerUserId: string;
  @ApiProperty({ example: '01jd3k5m8q9r2s4t6v8w0x2y4q' }) campaignId: string;
  @ApiProperty({
    enum: REWARD_STATUSES,
    description: 'pending: not delivered yet (retries go on); delivered: a 2xx came; failed: every try failed',
    example: 'delivered',
  })
  status: RewardStatus;
  @ApiProperty({ description: 'Tries made so far (replays included)', example: 1 }) attempts: number;
  @ApiProperty({ nullable: true, type: Number, description: 'HTTP status of the last try (null: no answer)', example: 200 }) lastStatusCode: number | null;
  @ApiProperty({ nullable: true, type: String, description: 'Why the last try failed', example: null }) lastError: string | null;
  @ApiProperty({ description: "When the completion earned it, ms (the callback's rewardedAt)", example: 1767225600000 }) createdAt: number;
  @ApiProperty({ nullable: true, type: Number, description: 'When a try was last delivered, ms', example: 1767225600412 }) deliveredAt: number | null;
}

export class RewardLogDto extends PageDto {
  @ApiProperty({ type: [RewardDto] })
  rewards: RewardDto[];
}

export class RewardTestResultDto {
  @ApiProperty({ nullable: true, type: Number, description: "Your endpoint's HTTP status (null: no answer, see error)", example: 200 })
  statusCode: number | null;
  @ApiProperty({ description: 'How long the call took, ms', example: 84 }) ms: number;
  @ApiProperty({ nullable: true, type: String, description: 'Why it failed (refused target, timeout, non-2xx), null when delivered', example: null })
  error: string | null;
}
