import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsOptional } from 'class-validator';
import { IsIntInRange } from '../../common/validators';
import { CampaignIdDto } from '../../campaigns/dto/campaign.dto';

export class VerificationHealthQueryDto extends CampaignIdDto {
  @ApiPropertyOptional({ description: 'How many recent calls, 1 to 200 (default 50)', example: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsIntInRange(1, 200)
  limit?: number;
}

export class VerificationCallDto {
  @ApiProperty({ description: 'ms since epoch', example: 1767225600000 }) calledAt: number;
  @ApiProperty({ example: '01jd3k5m8q9r2s4t6v8w0x2y4z' }) clickId: string;
  @ApiProperty({ description: 'Try number, from 1', example: 1 }) attempt: number;
  @ApiProperty({ description: '`verified`, `unverified`, or `failed` (retried)', example: 'verified' }) outcome: string;
  @ApiProperty({ nullable: true, type: Number, example: 200 }) httpStatus: number | null;
  @ApiProperty({ example: 84 }) latencyMs: number;
  @ApiProperty({ nullable: true, type: String, example: null }) error: string | null;
}

export class VerificationClickCountsDto {
  @ApiProperty({ description: 'Waiting for their call (delay or retries)', example: 2 }) pending: number;
  @ApiProperty({ example: 30 }) verified: number;
  @ApiProperty({ example: 3 }) unverified: number;
  @ApiProperty({ description: 'Every try failed', example: 1 }) error: number;
}

export class VerificationHealthDto {
  @ApiProperty({ nullable: true, type: String, example: 'https://api.example.com/adnet/verify' }) verificationUrl: string | null;
  @ApiProperty({ type: VerificationClickCountsDto }) clicks: VerificationClickCountsDto;
  @ApiProperty({ type: [VerificationCallDto], description: 'Newest first' }) calls: VerificationCallDto[];
}
