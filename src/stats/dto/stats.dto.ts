import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { OptionalQueryTimestampMs } from '../../common/validators';
import { AdBlockIdDto } from '../../ad-blocks/dto/ad-block.dto';
import { CampaignIdDto } from '../../campaigns/dto/campaign.dto';

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

    @ApiPropertyOptional({ enum: ['hour', 'day'], default: 'day', description: 'UTC buckets' })
    @IsOptional()
    @IsIn(['hour', 'day'], { message: '$property must be hour or day' })
    granularity?: 'hour' | 'day';
  }
  return SeriesRange;
}

export class CampaignSeriesQueryDto extends WithSeriesRange(CampaignIdDto) {}
export class AdBlockSeriesQueryDto extends WithSeriesRange(AdBlockIdDto) {}

export class CampaignSeriesPointDto {
  @ApiProperty({ description: 'Bucket start, ms since epoch (UTC)', example: 1767225600000 })
  time: number;
  @ApiProperty({ example: 1200 }) impressions: number;
  @ApiProperty({ example: 36 }) clicks: number;
  @ApiProperty({ description: 'Clicks of the bucket your verification endpoint confirmed', example: 30 }) verifiedClicks: number;
  @ApiProperty({ description: 'Clicks while the campaign was not billable: never billed, not in `clicks`', example: 2 }) unbilledClicks: number;
  @ApiProperty({ description: 'Clicks that are general invalid traffic: never billed, not in `clicks`', example: 1 }) invalidClicks: number;
  @ApiProperty({ description: 'Ads served to general invalid traffic: never billed, not in `impressions`', example: 40 }) invalidImpressions: number;
  @ApiProperty({ description: 'Views the ton-ai-sdk reported (its `impression` event): at most one per impression, never billed', example: 900 }) views: number;
  @ApiProperty({ example: 4 }) conversions: number;
  @ApiProperty({ description: 'Spend in the bucket, USDT', example: 3 }) cost: number;
}

export class AdBlockSeriesPointDto {
  @ApiProperty({ description: 'Bucket start, ms since epoch (UTC)', example: 1767225600000 })
  time: number;
  @ApiProperty({ example: 1200 }) impressions: number;
  @ApiProperty({ example: 36 }) clicks: number;
  @ApiProperty({ description: 'Clicks while their campaign was not billable: never billed, not in `clicks`', example: 2 }) unbilledClicks: number;
  @ApiProperty({ description: 'Clicks that are general invalid traffic: never billed, not in `clicks`', example: 1 }) invalidClicks: number;
  @ApiProperty({ description: 'Ads served to general invalid traffic: never billed, not in `impressions`', example: 40 }) invalidImpressions: number;
  @ApiProperty({ description: 'Views the ton-ai-sdk reported (its `impression` event): at most one per impression, never billed', example: 900 }) views: number;
  @ApiProperty({ example: 4 }) conversions: number;
  @ApiProperty({ description: "The publisher's earnings in the bucket, USDT", example: 2.1 }) earnings: number;
}

export class CampaignSeriesDto {
  @ApiProperty({ type: [CampaignSeriesPointDto] }) series: CampaignSeriesPointDto[];
}

export class AdBlockSeriesDto {
  @ApiProperty({ type: [AdBlockSeriesPointDto] }) series: AdBlockSeriesPointDto[];
}
