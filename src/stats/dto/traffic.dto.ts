import { ApiProperty } from '@nestjs/swagger';

/**
 * The counts beside the billed figures: the traffic that is answered as usual but never billed
 * (docs/TRUST_AND_SAFETY.md), and the views the ton-ai-sdk reports (docs/CONTRACT.md §14), never billed either.
 */
export class NotBilledTrafficDto {
  @ApiProperty({
    description:
      'Clicks that arrived while their campaign was not billable (paused, ended, outside its time window, out of budget): answered success, never billed, not in `clicks`',
    example: 2,
  })
  unbilledClicks: number;

  @ApiProperty({
    description:
      'Clicks that are general invalid traffic (bot or empty User-Agent, data-centre network, an invalid impression, sooner than MIN_CLICK_DELAY_MS after the impression): never billed, not in `clicks`',
    example: 1,
  })
  invalidClicks: number;

  @ApiProperty({ description: 'Ads served to general invalid traffic: answered as usual, never billed, not in `impressions`', example: 40 })
  invalidImpressions: number;

  @ApiProperty({
    description: 'Views the ton-ai-sdk reported (its `impression` event, docs/SWITCHING_FROM_TON_AI.md): at most one per impression, never billed',
    example: 900,
  })
  views: number;

  @ApiProperty({
    description:
      "Completed views (`eventType: complete`, docs/REWARDED_ADS.md): at most one per impression, at least the block's `minViewMs` after the serve, valid traffic only; never billed",
    example: 300,
  })
  completions: number;
}

/** One bucket of a series: its start, the counts every series carries, and the not-billed traffic. */
export class SeriesPointBaseDto extends NotBilledTrafficDto {
  @ApiProperty({ description: 'Bucket start, ms since epoch (UTC)', example: 1767225600000 })
  time: number;
  @ApiProperty({ example: 1200 }) impressions: number;
  @ApiProperty({ example: 36 }) clicks: number;
  @ApiProperty({ example: 4 }) conversions: number;
}
