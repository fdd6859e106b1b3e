import { ApiPropertyOptional } from '@nestjs/swagger';
import { ValidateIf } from 'class-validator';
import { IsHttpUrl, IsIntInRange, IsOneOf } from '../../common/validators';
import { AD_BLOCK_FORMATS, type AdBlockFormat, REWARD_DEFAULTS } from '../reward-settings';

/** Absent means "unchanged" (or the default); null is refused, not taken as absent. */
const unlessAbsent = () => ValidateIf((_object: unknown, value: unknown) => value !== undefined);

/**
 * The rewarded-ad settings of a block (docs/REWARDED_ADS.md), at create and update: each optional, absent keeps the
 * current value (or the default at create).
 */
export class RewardSettingsInputDto {
  @ApiPropertyOptional({
    description: '`rewarded`: completed views (`eventType: complete`) earn the user a reward through `rewardUrl`. Default `banner`',
    enum: AD_BLOCK_FORMATS,
    example: 'rewarded',
  })
  @unlessAbsent()
  @IsOneOf(AD_BLOCK_FORMATS)
  format?: AdBlockFormat;

  @ApiPropertyOptional({
    description:
      'Your server endpoint the signed reward callback is POSTed to after each counted completion (docs/REWARDED_ADS.md). ' +
      'Public http(s) addresses only, redirects are not followed; `null` removes it',
    example: 'https://game.example.com/adnet/reward',
    nullable: true,
    type: String,
  })
  @ValidateIf((_object: unknown, value: unknown) => value !== undefined && value !== null)
  @IsHttpUrl()
  rewardUrl?: string | null;

  @ApiPropertyOptional({
    description: `A completion counts only this long after the ad was served, ms (server clock). Default ${REWARD_DEFAULTS.minViewMs}`,
    minimum: 5000,
    maximum: 60000,
    example: 10000,
  })
  @unlessAbsent()
  @IsIntInRange(5000, 60000)
  minViewMs?: number;

  @ApiPropertyOptional({
    description: `Most rewards per user per UTC day on this block; further completions count as \`rewardsCapped\`. Default ${REWARD_DEFAULTS.dailyRewardCap}`,
    minimum: 1,
    maximum: 10000,
    example: 20,
  })
  @unlessAbsent()
  @IsIntInRange(1, 10000)
  dailyRewardCap?: number;
}
