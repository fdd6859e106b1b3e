import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { IsOneOf, MaxChars, OptionalQueryTimestampMs } from '../../common/validators';
import { NotBilledTrafficDto } from '../../stats/dto/traffic.dto';

/** A local hour as report rows name it (Swagger's example). */
const EXAMPLE_HOUR = new Date(Date.UTC(2026, 0, 1, 13)).toISOString().slice(0, 16);
export const REPORT_DIMENSIONS = ['hour', 'day', 'campaign', 'adBlock', 'country', 'platform'] as const;
export const MAX_REPORT_DIMENSIONS = 3;

export class ReportQueryDto {
  @OptionalQueryTimestampMs({ description: 'Start, ms since epoch (default: `to` minus 7 days); rounded down to the UTC hour', example: 1767225600000 })
  from?: number;

  @OptionalQueryTimestampMs({ description: 'End (exclusive), ms since epoch (default: now); at most 400 days after `from`', example: 1767830400000 })
  to?: number;

  @ApiPropertyOptional({
    description: `Comma list of at most ${MAX_REPORT_DIMENSIONS} of ${REPORT_DIMENSIONS.join(', ')} (default: none, one row of totals). Rows come in the order of these dimensions.`,
    example: 'day,country',
  })
  @IsOptional()
  @IsString({ message: '$property must be a comma list' })
  @MaxChars(200)
  groupBy?: string;

  @ApiPropertyOptional({ description: 'Only this campaign (yours, unless you are a publisher: then a campaign shown on your blocks)' })
  @IsOptional()
  @IsString()
  @MaxChars(64)
  campaignId?: string;

  @ApiPropertyOptional({ description: 'Only this ad block (yours, if you are a publisher)' })
  @IsOptional()
  @IsString()
  @MaxChars(64)
  adBlockId?: string;

  @ApiPropertyOptional({ description: 'IANA time zone of the `hour` and `day` buckets (default: UTC)', example: 'Europe/Berlin' })
  @IsOptional()
  @IsString()
  @MaxChars(64)
  timeZone?: string;

  @ApiPropertyOptional({ enum: ['json', 'csv'], default: 'json', description: '`csv`: a `text/csv` download with a header row, streamed' })
  @IsOptional()
  @IsOneOf(['json', 'csv'])
  format?: 'json' | 'csv';

  @ApiPropertyOptional({
    enum: ['advertiser', 'publisher'],
    description: 'For an account with both roles: report as the advertiser (its campaigns, cost) or the publisher (its blocks, earnings). Default: advertiser',
  })
  @IsOptional()
  @IsOneOf(['advertiser', 'publisher'])
  as?: 'advertiser' | 'publisher';
}

/** The figures of a report row and of its totals. */
export class ReportFiguresDto extends NotBilledTrafficDto {
  @ApiProperty({ example: 1200 }) impressions: number;
  @ApiProperty({ example: 36 }) clicks: number;
  @ApiProperty({ description: 'clicks / impressions (0 without impressions)', example: 0.03 }) ctr: number;
  @ApiProperty({ description: 'Attributed conversions (endpoint 7), in the hour they were reported', example: 4 }) conversions: number;
  @ApiPropertyOptional({ description: 'Attributed custom events `onboard` (advertisers and admins)', example: 1 }) onboard?: number;
  @ApiPropertyOptional({ description: 'Attributed custom events `register`', example: 1 }) register?: number;
  @ApiPropertyOptional({ description: 'Attributed custom events `play`', example: 0 }) play?: number;
  @ApiPropertyOptional({ description: 'Attributed custom events `payment`', example: 2 }) payment?: number;
  @ApiPropertyOptional({ description: 'Attributed custom events `withdraw`', example: 0 }) withdraw?: number;
  @ApiPropertyOptional({ description: 'Spend, USDT (advertisers and admins)', example: 3 }) cost?: number;
  @ApiPropertyOptional({ description: "The publisher's earnings, USDT (publishers and admins)", example: 2.1 }) earnings?: number;
}

export class ReportRowDto extends ReportFiguresDto {
  @ApiPropertyOptional({ description: 'Local hour start in `timeZone`, `YYYY-MM-DDTHH:mm`', example: EXAMPLE_HOUR }) hour?: string;
  @ApiPropertyOptional({ description: 'Local day in `timeZone`, `YYYY-MM-DD`', example: EXAMPLE_HOUR.slice(0, 10) }) day?: string;
  @ApiPropertyOptional({ example: '01jd3k5m8q9r2s4t6v8w0x2y4z' }) campaignId?: string;
  @ApiPropertyOptional({ description: 'Empty for conversions and custom events (reported off the ad block)', example: '01jd3k5m8q9r2s4t6v8w0x2y4z' })
  adBlockId?: string;
  @ApiPropertyOptional({ description: 'ISO 3166-1 alpha-2 code, or `unknown`', example: 'DE' }) country?: string;
  @ApiPropertyOptional({ description: '`iOS`, `Android`, `Desktop` or `unknown`', example: 'Android' }) platform?: string;
}

export class ReportDto {
  @ApiProperty({ description: 'The zone of `hour` and `day`', example: 'UTC' }) timeZone: string;
  @ApiProperty({ description: 'The window: the first UTC hour, ms since epoch', example: 1767225600000 }) from: number;
  @ApiProperty({ description: 'The window end (exclusive), ms since epoch', example: 1767830400000 }) to: number;
  @ApiProperty({ type: [String], example: ['day', 'country'] }) groupBy: string[];
  @ApiProperty({ type: [ReportRowDto] }) rows: ReportRowDto[];
  @ApiProperty({ type: ReportFiguresDto, description: 'The sums of every row (equal to the campaign or block series over the window)' })
  totals: ReportFiguresDto;
}
