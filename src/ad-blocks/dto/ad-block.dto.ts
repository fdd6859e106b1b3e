import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { applyDecorators } from '@nestjs/common';
import { ArrayMaxSize, IsArray, IsBoolean, ValidateBy, ValidateIf } from 'class-validator';
import { CAMPAIGN_CATEGORIES } from '../../campaigns/categories';
import { isHostName } from '../../common/hosts';
import { IsOneOf, IsText, IdField, IsUsdtAmount } from '../../common/validators';
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

/** Absent means "unchanged"; null means "none" (a floor removed). */
const unlessAbsentOrNull = () => ValidateIf((_object: unknown, value: unknown) => value !== undefined && value !== null);

/** Most entries of a block's blocked domains. */
export const MAX_BLOCKED_DOMAINS = 200;

const FLOOR_CPM = 'Floor price in USDT per 1000 impressions: CPM campaigns bidding less are not served on this block';
const FLOOR_CPC = 'Floor price in USDT per click: CPC campaigns bidding less are not served on this block';
const BLOCKED_CATEGORIES = 'Campaign categories not served on this block';
const BLOCKED_DOMAINS =
  'Destination host names not served on this block: a listed name also blocks its subdomains (example.com blocks shop.example.com, ' +
  `not badexample.com); up to ${MAX_BLOCKED_DOMAINS}, case-insensitive`;

const CategoryList = () =>
  applyDecorators(
    IsArray({ message: `$property must be an array of categories (${CAMPAIGN_CATEGORIES.join(', ')})` }),
    ArrayMaxSize(CAMPAIGN_CATEGORIES.length, { message: `$property must have at most ${CAMPAIGN_CATEGORIES.length} categories` }),
    IsOneOf(CAMPAIGN_CATEGORIES, { each: true }),
  );

const DomainList = () =>
  applyDecorators(
    IsArray({ message: '$property must be an array of host names' }),
    ArrayMaxSize(MAX_BLOCKED_DOMAINS, { message: `$property must have at most ${MAX_BLOCKED_DOMAINS} host names` }),
    ValidateBy(
      { name: 'isHostName', validator: { validate: (value: unknown) => isHostName(value) } },
      { each: true, message: 'each value in $property must be a host name such as example.com (no scheme, path or port)' },
    ),
  );

/** Floors and blocked categories and domains (docs/CONTRACT.md §18), at create: absent means none. */
class BlockControlsCreateDto extends RewardSettingsInputDto {
  @ApiPropertyOptional({ description: `${FLOOR_CPM}. Default: none`, example: 1.5 })
  @unlessAbsent()
  @IsUsdtAmount()
  floorCpm?: number;

  @ApiPropertyOptional({ description: `${FLOOR_CPC}. Default: none`, example: 0.05 })
  @unlessAbsent()
  @IsUsdtAmount()
  floorCpc?: number;

  @ApiPropertyOptional({ description: `${BLOCKED_CATEGORIES}. Default: none`, enum: CAMPAIGN_CATEGORIES, isArray: true, example: ['gambling', 'dating'] })
  @unlessAbsent()
  @CategoryList()
  blockedCategories?: string[];

  @ApiPropertyOptional({ description: `${BLOCKED_DOMAINS}. Default: none`, type: [String], example: ['casino.example'] })
  @unlessAbsent()
  @DomainList()
  blockedDomains?: string[];
}

export class AdBlockCreateDto extends BlockControlsCreateDto {
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

  @ApiPropertyOptional({ description: `${FLOOR_CPM}; null removes it`, example: 1.5, nullable: true, type: Number })
  @unlessAbsentOrNull()
  @IsUsdtAmount()
  floorCpm?: number | null;

  @ApiPropertyOptional({ description: `${FLOOR_CPC}; null removes it`, example: 0.05, nullable: true, type: Number })
  @unlessAbsentOrNull()
  @IsUsdtAmount()
  floorCpc?: number | null;

  @ApiPropertyOptional({
    description: `${BLOCKED_CATEGORIES}; replaces the list ([] blocks none)`,
    enum: CAMPAIGN_CATEGORIES,
    isArray: true,
    example: ['gambling'],
  })
  @unlessAbsent()
  @CategoryList()
  blockedCategories?: string[];

  @ApiPropertyOptional({ description: `${BLOCKED_DOMAINS}; replaces the list ([] blocks none)`, type: [String], example: ['casino.example'] })
  @unlessAbsent()
  @DomainList()
  blockedDomains?: string[];
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

  @ApiProperty({ description: `${FLOOR_CPM}; null: none`, type: Number, nullable: true, example: 1.5 })
  floorCpm: number | null;

  @ApiProperty({ description: `${FLOOR_CPC}; null: none`, type: Number, nullable: true, example: null })
  floorCpc: number | null;

  @ApiProperty({ description: BLOCKED_CATEGORIES, enum: CAMPAIGN_CATEGORIES, isArray: true, example: ['gambling'] })
  blockedCategories: string[];

  @ApiProperty({ description: BLOCKED_DOMAINS, type: [String], example: ['casino.example'] })
  blockedDomains: string[];
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
