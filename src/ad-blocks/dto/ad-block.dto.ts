import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, ValidateIf } from 'class-validator';
import { IsText, IdField } from '../../common/validators';
import { NotBilledTrafficDto } from '../../stats/dto/traffic.dto';
import { SuccessPageDto } from '../../common/paging.dto';
import { AD_BLOCK_FORMATS, type AdBlockFormat } from '../reward-settings';
import { RewardSettingsInputDto } from './reward-settings.dto';

/** Absent means "unchanged" (or the default); null is refused, not taken as absent. */
const unlessAbsent = () => ValidateIf((_object: unknown, value: unknown) => value !== undefined);

const REQUIRE_SIGNED_VIEWER =
  'true: matching/ad on this block needs the header `x-adnet-viewer: <openId>.<expiresAtMs>.<hex HMAC-SHA256(webhookSecret, "<openId>.<expiresAtMs>")>`, ' +
  "made by your server with your account's webhook secret (GET account/me); unsigned, expired or mismatched requests are 401. " +
  'See docs/SIGNED_VIEWERS.md';

export class AdBlockCreateDto extends RewardSettingsInputDto {
  @ApiProperty({ description: 'Name of the ad spot, up to 200 characters', example: 'Home screen banner' })
  @IsText(200)
  name: string;

  @ApiPropertyOptional({ description: `${REQUIRE_SIGNED_VIEWER}. Default false`, example: false, default: false })
  @unlessAbsent()
  @IsBoolean({ message: '$property must be true or false' })
  requireSignedViewer?: boolean;
}

/** Body of ad/block/update: the fields given change, the others stay. */
export class AdBlockUpdateDto extends RewardSettingsInputDto {
  @IdField('The ad block to change (yours)')
  adBlockId: string;

  @ApiPropertyOptional({ description: 'New name, up to 200 characters', example: 'Home screen banner' })
  @unlessAbsent()
  @IsText(200)
  name?: string;

  @ApiPropertyOptional({ description: REQUIRE_SIGNED_VIEWER, example: true })
  @unlessAbsent()
  @IsBoolean({ message: '$property must be true or false' })
  requireSignedViewer?: boolean;
}

export class AdBlockIdDto {
  @IdField('Ad block id')
  adBlockId: string;
}

export class AdBlockCreatedDto {
  @ApiProperty({ example: '01jd3k5m8q9r2s4t6v8w0x2y4z' })
  adBlockId: string;
}

export class AdBlockResponseDto extends NotBilledTrafficDto {
  @ApiProperty({ example: '01jd3k5m8q9r2s4t6v8w0x2y4z' })
  adBlockId: string;

  @ApiProperty({ description: "Owner's accountId", example: '01jd3k5m8q9r2s4t6v8w0x2y4a' })
  userId: string;

  @ApiProperty({ example: 'Home screen banner' })
  name: string;

  @ApiProperty({ description: 'matching/ad on this block needs a signed `x-adnet-viewer` header', example: false })
  requireSignedViewer: boolean;

  @ApiProperty({ enum: AD_BLOCK_FORMATS, description: '`rewarded`: completions earn rewards (docs/REWARDED_ADS.md)', example: 'banner' }) format: AdBlockFormat;
  @ApiProperty({ nullable: true, type: String, example: 'https://game.example.com/adnet/reward' }) rewardUrl: string | null;
  @ApiProperty({ description: 'ms after the serve before a completion counts', example: 10000 }) minViewMs: number;
  @ApiProperty({ description: 'Most rewards per user per UTC day', example: 20 }) dailyRewardCap: number;

  @ApiProperty({ description: "Counted completions past the block's dailyRewardCap for their user: no reward sent", example: 2 }) rewardsCapped: number;

  @ApiProperty({ description: 'Ads served on this block (not debug, not invalid traffic)', example: 1200 })
  impressions: number;

  @ApiProperty({ description: 'Counted clicks on this block (valid traffic on billable campaigns)', example: 36 })
  clicks: number;

  @ApiProperty({ description: 'clicks / impressions, 0..1', example: 0.03 })
  ctr: number;

  @ApiProperty({ description: "The publisher's share of the spend on this block, USDT", example: 2.1 })
  earnings: number;

  @ApiProperty({ description: 'ms since epoch', example: 1767225600000 })
  createdAt: number;
}

export class AdBlockListDto extends SuccessPageDto {
  @ApiProperty({ type: [AdBlockResponseDto] })
  adBlocks: AdBlockResponseDto[];
}
