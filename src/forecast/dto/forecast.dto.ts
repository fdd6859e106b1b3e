import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString } from 'class-validator';
import { CampaignCreateDto } from '../../campaigns/dto/campaign.dto';
import { MaxChars } from '../../common/validators';
import { FORECAST_LIMITS } from '../forecast';

export class ForecastRequestDto extends CampaignCreateDto {
  @ApiPropertyOptional({
    description: 'One of your campaigns this body would replace (an edit): it does not compete with itself. Absent: a new campaign',
    example: '01jd3k5m8q9r2s4t6v8w0x2y4z',
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty({ message: '$property is required' })
  @MaxChars(64)
  campaignId?: string;
}

export class ForecastDto {
  @ApiProperty({ description: 'Ad requests a day across the network (the sample scaled to 24 hours)', example: 120000 })
  dailyRequests: number;

  @ApiProperty({ description: 'Impressions a day this campaign would get: requests it matches and wins, within its daily budget', example: 5400 })
  dailyImpressions: number;

  @ApiProperty({ description: 'Clicks a day at the network prior click-through rate (1 in 100)', example: 54 })
  dailyClicks: number;

  @ApiProperty({ description: 'USDT a day, at most the daily budget (or the total, when smaller)', example: 10 })
  dailySpend: number;

  @ApiProperty({
    nullable: true,
    type: Number,
    description: 'Days until the total budget is spent at that rate; null when nothing would be spent',
    example: 10,
  })
  daysToSpendTotal: number | null;

  @ApiProperty({
    enum: FORECAST_LIMITS,
    description:
      'What holds the delivery back: `budget` (the daily budget is spent), `bid` (other campaigns outrank it on many of the ' +
      'requests it matches), `inventory` (too few requests match its targeting), `schedule` (its window has ended, or is ' +
      'too short to spend the day)',
    example: 'budget',
  })
  limitedBy: (typeof FORECAST_LIMITS)[number];
}
