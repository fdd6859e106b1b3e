import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { OptionalQueryTimestampMs } from '../../common/validators';
import { AdBlockIdDto } from '../../ad-blocks/dto/ad-block.dto';
import { CampaignIdDto } from '../../campaigns/dto/campaign.dto';
import { SeriesPointBaseDto } from './traffic.dto';
import { EventCountsDto } from '../../conversions/dto/event-counts.dto';

/** Adds the optional `from`, `to` and `granularity` of a series query to an id query. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- TypeScript accepts a mixin's base only with a constructor of `...args: any[]`
export function WithSeriesRange<TBase extends new (...args: any[]) => object>(Base: TBase) {
  class SeriesRange extends Base {
    @OptionalQueryTimestampMs({
      description: 'Start, ms since epoch (default: `to` minus 7 days); rounded down to the bucket',
      example: 1767225600000,
    })
    from?: number;

    @OptionalQueryTimestampMs({ description: 'End (exclusive), ms since epoch (default: now)', example: 1767830400000 })
    to?: number;

    @ApiPropertyOptional({
      enum: ['hour', 'day'],
      default: 'day',
      description: "UTC hours, or days of the owner account's time zone (each bucket's `time` is its local midnight)",
    })
    @IsOptional()
    @IsIn(['hour', 'day'], { message: '$property must be hour or day' })
    granularity?: 'hour' | 'day';
  }
  return SeriesRange;
}

export class CampaignSeriesQueryDto extends WithSeriesRange(CampaignIdDto) {}
export class AdBlockSeriesQueryDto extends WithSeriesRange(AdBlockIdDto) {}

export class CampaignSeriesPointDto extends SeriesPointBaseDto {
  @ApiProperty({ description: 'Clicks of the bucket your verification endpoint confirmed', example: 30 }) verifiedClicks: number;
  @ApiProperty({ description: "Attributed events of the campaign's optimization event in the bucket: `events[optimizationEvent]`", example: 4 })
  declare conversions: number;
  @ApiProperty({ type: EventCountsDto, description: 'Attributed events of every type in the bucket (the hour they were reported)' })
  events: EventCountsDto;
  @ApiProperty({ description: 'Spend in the bucket, USDT', example: 3 }) cost: number;
}

export class AdBlockSeriesPointDto extends SeriesPointBaseDto {
  @ApiProperty({ description: "Completions past the block's dailyRewardCap (no reward sent)", example: 0 }) rewardsCapped: number;
  @ApiProperty({ description: "The publisher's earnings in the bucket, USDT", example: 2.1 }) earnings: number;
}

export class CampaignSeriesDto {
  @ApiProperty({ type: [CampaignSeriesPointDto] }) series: CampaignSeriesPointDto[];
}

export class AdBlockSeriesDto {
  @ApiProperty({ type: [AdBlockSeriesPointDto] }) series: AdBlockSeriesPointDto[];
}
