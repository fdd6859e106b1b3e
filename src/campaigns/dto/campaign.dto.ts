import { ApiProperty, ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsISO31661Alpha2,
  isISO6391,
  IsObject,
  IsOptional,
  Max,
  Min,
  ValidateBy,
  ValidateNested,
} from 'class-validator';
import { IsHttpUrl, IsOneOf, IsText, IsUsdtAmount, TimestampMs, IdField } from '../../common/validators';
import { EventCountsDto } from '../../conversions/dto/event-counts.dto';
import { EVENT_TYPES, type EventType } from '../../conversions/event-types';
import { DELIVERY_STATUSES, DeliveryStatus, STATUS_ACTIONS, StatusAction } from '../campaign-rules';
import { CAMPAIGN_STATUSES, CampaignStatus, REVIEW_STATUSES, type ReviewStatus } from '../entities/campaign.entity';
import { NotBilledTrafficDto } from '../../stats/dto/traffic.dto';
import { SuccessPageDto } from '../../common/paging.dto';
import { OpenApiAlias } from '../../common/open-api-aliases';
import { CAMPAIGN_CATEGORIES, type CampaignCategory } from '../categories';
import { DEFAULT_PACING, type Pacing, PACING_STATUSES, PACINGS, type PacingStatus } from '../pacing';

export const PLATFORMS = ['All', 'iOS', 'Android', 'Desktop'] as const;
export const ACTION_TYPES = ['visit.website', 'open.miniapp'] as const;
export const BILLING_TYPES = ['CPM', 'CPC'] as const;

const RequiredObject = () => [IsDefined({ message: '$property is required' }), IsObject(), ValidateNested()];

const OptionalObject = () => [IsOptional(), IsObject(), ValidateNested()];

const IsRegionList = () => [
  IsOptional(),
  IsArray({ message: '$property must be an array of ISO 3166-1 alpha-2 codes' }),
  ArrayMaxSize(250),
  IsISO31661Alpha2({ each: true, message: 'each value in $property must be an ISO 3166-1 alpha-2 code such as US' }),
];

const IsLanguageList = () => [
  IsOptional(),
  IsArray({ message: '$property must be an array of ISO 639-1 codes' }),
  ArrayMaxSize(200),
  ValidateBy(
    {
      name: 'isISO6391',
      validator: { validate: (value: unknown) => typeof value === 'string' && isISO6391(value.toLowerCase()) },
    },
    { each: true, message: 'each value in $property must be an ISO 639-1 code such as en' },
  ),
];

const apply =
  (decorators: PropertyDecorator[]): PropertyDecorator =>
  (target, key) =>
    decorators.forEach((decorator) => decorator(target, key));

export class TargetingDto {
  @ApiPropertyOptional({ description: 'ISO 3166-1 alpha-2 countries to include (empty: all)', example: ['US', 'DE'], type: [String] })
  @apply(IsRegionList())
  includedRegions?: string[];

  @ApiPropertyOptional({ description: 'ISO 3166-1 alpha-2 countries to exclude', example: ['CN'], type: [String] })
  @apply(IsRegionList())
  excludedRegions?: string[];

  @ApiPropertyOptional({ description: 'ISO 639-1 languages to include (empty: all)', example: ['en'], type: [String] })
  @apply(IsLanguageList())
  includedLanguages?: string[];

  @ApiPropertyOptional({ description: 'ISO 639-1 languages to exclude', example: ['zh'], type: [String] })
  @apply(IsLanguageList())
  excludedLanguages?: string[];

  @ApiPropertyOptional({ description: 'Target device', enum: PLATFORMS, default: 'All', example: 'All' })
  @IsOptional()
  @IsOneOf(PLATFORMS)
  platform?: string;

  @ApiPropertyOptional({ description: 'true: only users with premium membership; false/absent: any user', example: false })
  @IsOptional()
  @IsBoolean({ message: '$property must be a boolean' })
  @OpenApiAlias()
  messengerPremium?: boolean;

  @ApiPropertyOptional({ description: 'true: only high-value users', example: false })
  @IsOptional()
  @IsBoolean({ message: '$property must be a boolean' })
  isHighValueUser?: boolean;

  @ApiPropertyOptional({ description: 'true: only users who linked a primary-chain wallet', example: false })
  @IsOptional()
  @IsBoolean({ message: '$property must be a boolean' })
  @OpenApiAlias()
  userLinkedChainWallet?: boolean;

  @ApiPropertyOptional({ description: 'true: only users who linked any wallet', example: false })
  @IsOptional()
  @IsBoolean({ message: '$property must be a boolean' })
  userLinkedWallet?: boolean;

  @ApiPropertyOptional({ description: 'true: only users whose wallet holds a balance on chain', example: false })
  @IsOptional()
  @IsBoolean({ message: '$property must be a boolean' })
  userWalletHasBalanceOnChain?: boolean;
}

export class BudgetDto {
  @ApiProperty({
    description: "Daily budget in USDT, for each day of the account's time zone (`account/me`); 0 < amount ≤ total; at most 6 decimals",
    example: 50,
  })
  @IsUsdtAmount()
  amount: number;

  @ApiProperty({ description: 'Total budget in USDT; at most 6 decimals', example: 1000 })
  @IsUsdtAmount()
  total: number;

  @ApiProperty({ description: 'Fixed value', enum: ['daily'], example: 'daily' })
  @IsOneOf(['daily'])
  strategy: string;

  @TimestampMs({ description: 'Start, ms since epoch (inclusive)', example: 1767225600000 })
  startTime: number;

  @TimestampMs({ description: 'End, ms since epoch (exclusive); after startTime', example: 1769904000000 })
  endTime: number;

  @ApiPropertyOptional({
    enum: PACINGS,
    default: DEFAULT_PACING,
    description:
      "`even` (the default): the day's spend stays under a line rising with the time elapsed of the day (within the campaign's " +
      'window), so the budget lasts until the evening; `asap`: spends as fast as traffic allows (docs/CONTRACT.md §16)',
    example: 'even',
  })
  @IsOptional()
  @IsOneOf(PACINGS)
  pacing?: Pacing;
}

export class BiddingDto {
  @ApiProperty({ enum: BILLING_TYPES, example: 'CPM' })
  @IsIn(BILLING_TYPES, { message: '$property must be CPM or CPC' })
  billingType: 'CPM' | 'CPC';

  @ApiProperty({
    description: 'Bid in USDT: per 1000 impressions for CPM (at most 3 decimals), per click for CPC (at most 6)',
    example: 2.5,
  })
  @IsUsdtAmount()
  costPer: number;
}

export class DestinationDto {
  @ApiProperty({ enum: ACTION_TYPES, example: 'visit.website' })
  @IsOneOf(ACTION_TYPES)
  actionType: string;

  @ApiProperty({ description: 'Landing page, http(s)', example: 'https://example.com/landing' })
  @IsHttpUrl()
  url: string;
}

export class AdDto {
  @ApiProperty({ description: 'Fixed value', enum: ['image'], example: 'image' })
  @IsOneOf(['image'])
  adFormat: string;

  @ApiProperty({ description: 'Display image, http(s) URL', example: 'https://cdn.example.com/ad.png' })
  @IsHttpUrl()
  popupImage: string;

  @ApiProperty({ description: 'Icon, http(s) URL', example: 'https://cdn.example.com/icon.png' })
  @IsHttpUrl()
  icon: string;

  @ApiProperty({ type: DestinationDto })
  @apply(RequiredObject())
  @Type(() => DestinationDto)
  destination: DestinationDto;

  @ApiProperty({ description: 'Ad text, up to 1000 characters', example: 'Play the best puzzle game' })
  @IsText(1000)
  text: string;

  @ApiProperty({ description: 'Up to 100 characters', example: 'Acme Games' })
  @IsText(100)
  brandName: string;

  @ApiProperty({ description: 'Up to 50 characters', example: 'Play now' })
  @IsText(50)
  buttonText: string;
}

/** Bounds of a campaign's frequency cap: up to 1000 impressions per user, windows from 1 hour to 30 days. */
export const FREQUENCY_CAP_MAX_IMPRESSIONS = 1000;
export const FREQUENCY_CAP_MAX_HOURS = 720;

export class FrequencyCapDto {
  @ApiProperty({
    description: `Most impressions of this campaign one user (openId) is served within any \`hours\`-long window, 1..${FREQUENCY_CAP_MAX_IMPRESSIONS}`,
    example: 3,
  })
  @IsInt({ message: '$property must be an integer' })
  @Min(1, { message: '$property must be at least 1' })
  @Max(FREQUENCY_CAP_MAX_IMPRESSIONS, { message: `$property must be at most ${FREQUENCY_CAP_MAX_IMPRESSIONS}` })
  impressions: number;

  @ApiProperty({ description: `Length of the rolling window in hours, 1..${FREQUENCY_CAP_MAX_HOURS} (30 days)`, example: 24 })
  @IsInt({ message: '$property must be an integer' })
  @Min(1, { message: '$property must be at least 1' })
  @Max(FREQUENCY_CAP_MAX_HOURS, { message: `$property must be at most ${FREQUENCY_CAP_MAX_HOURS}` })
  hours: number;
}

export class FrequencyCapUpdateDto extends PartialType(FrequencyCapDto) {}

const OPTIMIZATION_EVENT_DOC = {
  enum: EVENT_TYPES,
  default: 'conversion',
  description:
    'The event the campaign optimizes for: its `conversions` and `cr` count this event (docs/CONTRACT.md §13); ' +
    '`conversion` (endpoint 7) or a custom event reported with `ad/event/report/custom`',
  example: 'conversion',
};

const CATEGORY_DOC = {
  enum: CAMPAIGN_CATEGORIES,
  description: 'What the campaign advertises: ad blocks may refuse categories (`blockedCategories`, docs/CONTRACT.md §18)',
  example: 'games',
};

const REVIEW_STATUS_DOC = {
  enum: REVIEW_STATUSES,
  description:
    'Creative review (CAMPAIGN_REVIEW=true, docs/CONTRACT.md §18): `pending` while a new campaign or an edited creative waits for an ' +
    'admin, `rejected` after a rejection (see reviewNote), `approved` otherwise',
  example: 'approved',
};

export class CampaignCreateDto {
  @ApiProperty({ description: 'Campaign name, up to 200 characters', example: 'Winter launch' })
  @IsText(200)
  name: string;

  @ApiProperty({ type: TargetingDto })
  @apply(RequiredObject())
  @Type(() => TargetingDto)
  targeting: TargetingDto;

  @ApiProperty({ type: BudgetDto })
  @apply(RequiredObject())
  @Type(() => BudgetDto)
  budget: BudgetDto;

  @ApiProperty({ type: BiddingDto })
  @apply(RequiredObject())
  @Type(() => BiddingDto)
  bidding: BiddingDto;

  @ApiProperty({ type: AdDto })
  @apply(RequiredObject())
  @Type(() => AdDto)
  ad: AdDto;

  @ApiPropertyOptional({
    description:
      'Your verification endpoint (interface 11): after each counted click it is called with `GET ?messenger_id=…`, ' +
      'signed with your webhook secret (docs/CONTRACT.md §7). Public http(s) addresses only.',
    example: 'https://api.example.com/adnet/verify',
  })
  @IsOptional()
  @IsHttpUrl()
  verificationUrl?: string;

  @ApiPropertyOptional({
    type: FrequencyCapDto,
    description:
      'Per-user frequency cap: a user is served at most `impressions` impressions of this campaign within any `hours`-long window (rolling); absent: no cap',
  })
  @apply(OptionalObject())
  @Type(() => FrequencyCapDto)
  frequencyCap?: FrequencyCapDto;

  @ApiPropertyOptional(OPTIMIZATION_EVENT_DOC)
  @IsOptional()
  @IsOneOf(EVENT_TYPES)
  optimizationEvent?: EventType;

  @ApiPropertyOptional({ ...CATEGORY_DOC, default: 'other' })
  @IsOptional()
  @IsOneOf(CAMPAIGN_CATEGORIES)
  category?: CampaignCategory;
}

export class BudgetUpdateDto extends PartialType(BudgetDto) {}
export class BiddingUpdateDto extends PartialType(BiddingDto) {}
export class DestinationUpdateDto extends PartialType(DestinationDto) {}

export class AdUpdateDto extends PartialType(OmitType(AdDto, ['destination'] as const)) {
  @ApiPropertyOptional({ type: DestinationUpdateDto })
  @apply(OptionalObject())
  @Type(() => DestinationUpdateDto)
  destination?: DestinationUpdateDto;
}

export class CampaignIdDto {
  @IdField('Campaign id')
  campaignId: string;
}

/** Fields given change, the others stay; nested objects merge, arrays replace. */
export class CampaignUpdateDto extends CampaignIdDto {
  @ApiPropertyOptional({ example: 'Winter launch (EU)' })
  @IsOptional()
  @IsText(200)
  name?: string;

  @ApiPropertyOptional({ type: TargetingDto })
  @apply(OptionalObject())
  @Type(() => TargetingDto)
  targeting?: TargetingDto;

  @ApiPropertyOptional({ type: BudgetUpdateDto })
  @apply(OptionalObject())
  @Type(() => BudgetUpdateDto)
  budget?: BudgetUpdateDto;

  @ApiPropertyOptional({ type: BiddingUpdateDto })
  @apply(OptionalObject())
  @Type(() => BiddingUpdateDto)
  bidding?: BiddingUpdateDto;

  @ApiPropertyOptional({ type: AdUpdateDto })
  @apply(OptionalObject())
  @Type(() => AdUpdateDto)
  ad?: AdUpdateDto;

  @ApiPropertyOptional({
    description: 'A new verification URL; `null` removes it (clicks are then no longer verified)',
    example: 'https://api.example.com/adnet/verify',
    nullable: true,
    type: String,
  })
  @IsOptional()
  @IsHttpUrl()
  verificationUrl?: string | null;

  @ApiPropertyOptional({
    type: FrequencyCapUpdateDto,
    nullable: true,
    description: 'Merges into the current cap (a campaign without one needs both fields); `null` removes the cap',
  })
  @apply(OptionalObject())
  @Type(() => FrequencyCapUpdateDto)
  frequencyCap?: FrequencyCapUpdateDto | null;

  @ApiPropertyOptional({
    ...OPTIMIZATION_EVENT_DOC,
    description: `${OPTIMIZATION_EVENT_DOC.description}; switching it changes what they show, history included`,
  })
  @IsOptional()
  @IsOneOf(EVENT_TYPES)
  optimizationEvent?: EventType;

  @ApiPropertyOptional(CATEGORY_DOC)
  @IsOptional()
  @IsOneOf(CAMPAIGN_CATEGORIES)
  category?: CampaignCategory;
}

export class CampaignStatusDto extends CampaignIdDto {
  @ApiProperty({ description: 'start: paused -> onGoing; paused: onGoing -> paused; end: any -> ended (final)', enum: STATUS_ACTIONS })
  @IsOneOf(STATUS_ACTIONS)
  status: StatusAction;
}

export class CampaignDetailQueryDto extends CampaignIdDto {}

export class CampaignCreatedDto {
  @ApiProperty({ example: '01jd3k5m8q9r2s4t6v8w0x2y4z' })
  campaignId: string;
}

export class StatusResultDto {
  @ApiProperty({ example: 'success' })
  result: string;
}

class CampaignStatsDto extends NotBilledTrafficDto {
  @ApiProperty({ description: 'Impressions (ads served, not debug, not invalid traffic)', example: 1200 })
  impressions: number;

  @ApiProperty({ description: 'Counted clicks: valid traffic on a billable campaign, one per impression', example: 36 })
  clicks: number;

  @ApiProperty({ enum: EVENT_TYPES, description: 'The event `conversions` and `cr` count', example: 'conversion' })
  optimizationEvent: EventType;

  @ApiProperty({ description: 'Attributed events of the optimization event type: `events[optimizationEvent]`', example: 4 })
  conversions: number;

  @ApiProperty({ type: EventCountsDto, description: 'Attributed events of every type: conversions (endpoint 7) and custom events' })
  events: EventCountsDto;

  @ApiProperty({ description: 'Spend so far, USDT', example: 3 })
  cost: number;

  @ApiProperty({ description: "Spend of the account's current day (its time zone; the daily budget's day), USDT", example: 0.42 })
  spentToday: number;

  @ApiProperty({ description: 'clicks / impressions, a fraction 0..1 (0 without impressions)', example: 0.03 })
  ctr: number;

  @ApiProperty({ description: 'conversions / clicks (of the optimization event), a fraction 0..1 (0 without clicks)', example: 0.111111 })
  cr: number;

  @ApiProperty({ description: 'Clicks your verification endpoint confirmed (answered `true`)', example: 30 })
  verifiedClicks: number;
}

export class CampaignListItemDto extends CampaignStatsDto {
  @ApiProperty({ description: "Owner's accountId", example: '01jd3k5m8q9r2s4t6v8w0x2y4a' })
  userId: string;

  @ApiProperty({ example: '01jd3k5m8q9r2s4t6v8w0x2y4z' })
  id: string;

  @ApiProperty({ example: 'Winter launch' })
  name: string;

  @ApiProperty({ enum: CAMPAIGN_STATUSES, example: 'onGoing' })
  campaignStatus: CampaignStatus;

  @ApiProperty({ enum: DELIVERY_STATUSES, example: 'delivering' })
  deliveryStatus: DeliveryStatus;

  @ApiProperty({ enum: BILLING_TYPES, example: 'CPM' })
  billingType: string;

  @ApiProperty(CATEGORY_DOC)
  category: CampaignCategory;

  @ApiProperty(REVIEW_STATUS_DOC)
  reviewStatus: ReviewStatus;

  @ApiProperty({ type: FrequencyCapDto, nullable: true, description: 'Per-user frequency cap, or null when the campaign has none' })
  frequencyCap: FrequencyCapDto | null;

  @ApiProperty({ type: BudgetDto, description: 'The budget, as in the detail: with `cost` and `spentToday` a list shows what is left' })
  budget: BudgetDto;

  @ApiProperty({ description: 'ms since epoch', example: 1767225600000 })
  createdAt: number;
}

export class CampaignListDto extends SuccessPageDto {
  @ApiProperty({ type: [CampaignListItemDto] })
  campaigns: CampaignListItemDto[];
}

export class OptimizationBlockDto {
  @ApiProperty({ example: '01jd3k5m8q9r2s4t6v8w0x2y4b' })
  adBlockId: string;

  @ApiProperty({ description: "This campaign's impressions on the block over the optimization window", example: 1200 })
  impressions: number;

  @ApiProperty({ description: "This campaign's counted clicks on the block over the window", example: 40 })
  clicks: number;

  @ApiProperty({ description: "This campaign's attributed optimization events credited to clicks on the block over the window", example: 9 })
  events: number;

  @ApiProperty({
    description: 'Smoothed estimate of the optimization event per impression on this block: `(events + 1) / (impressions + 1 / campaignEventRate)`',
    example: 0.0075,
  })
  estimatedEventRate: number;
}

export class CampaignOptimizationDto {
  @ApiProperty({ enum: EVENT_TYPES, description: 'The event the campaign optimizes toward (its optimizationEvent)', example: 'payment' })
  event: EventType;

  @ApiProperty({
    description: "The campaign's own estimate of the event per impression over all its blocks, smoothed toward the network's prior " + '(docs/CONTRACT.md §13)',
    example: 0.0021,
  })
  campaignEventRate: number;

  @ApiProperty({
    type: [OptimizationBlockDto],
    description: 'Blocks with the best estimates (at least 0.8 of the best), best first: an even campaign keeps its full pacing margin there (at most 50)',
  })
  blocksPreferred: OptimizationBlockDto[];

  @ApiProperty({
    type: [OptimizationBlockDto],
    description:
      'Blocks where the event is less likely, worst first: when the campaign is ahead of its time, it holds back here first ' +
      '(its pacing line runs closer to the time elapsed; at most 50). Empty for `asap` campaigns and without data',
  })
  blocksHeldBack: OptimizationBlockDto[];
}

export class CampaignResponseDto extends CampaignStatsDto {
  @ApiProperty({ example: '01jd3k5m8q9r2s4t6v8w0x2y4z' })
  campaignId: string;

  @ApiProperty({ description: 'Same as campaignId', example: '01jd3k5m8q9r2s4t6v8w0x2y4z' })
  id: string;

  @ApiProperty({ description: "Owner's accountId", example: '01jd3k5m8q9r2s4t6v8w0x2y4a' })
  userId: string;

  @ApiProperty({ example: 'Winter launch' })
  name: string;

  @ApiProperty({ type: TargetingDto, description: 'Every field present; lists default to [], flags to false, platform to All' })
  targeting: Required<TargetingDto>;

  @ApiProperty({ type: BudgetDto })
  budget: BudgetDto;

  @ApiProperty({ type: BiddingDto })
  bidding: BiddingDto;

  @ApiProperty({ type: AdDto })
  ad: AdDto;

  @ApiProperty(CATEGORY_DOC)
  category: CampaignCategory;

  @ApiProperty(REVIEW_STATUS_DOC)
  reviewStatus: ReviewStatus;

  @ApiProperty({ type: String, nullable: true, description: "The admin's note when the last review rejected it; null otherwise", example: null })
  reviewNote: string | null;

  @ApiProperty({
    type: AdDto,
    nullable: true,
    description: 'An edited creative waiting for review (CAMPAIGN_REVIEW=true): `ad` keeps serving until an admin approves it; null when none waits',
  })
  pendingAd: AdDto | null;

  @ApiProperty({
    enum: CAMPAIGN_CATEGORIES,
    nullable: true,
    description:
      'A category change waiting for review with the creative (CAMPAIGN_REVIEW=true): `category` applies until an admin approves it; null when none waits',
    example: null,
  })
  pendingCategory: CampaignCategory | null;

  @ApiProperty({ description: 'Verification endpoint, or null', example: 'https://api.example.com/adnet/verify', nullable: true, type: String })
  verificationUrl: string | null;

  @ApiProperty({ type: FrequencyCapDto, nullable: true, description: 'Per-user frequency cap, or null when the campaign has none' })
  frequencyCap: FrequencyCapDto | null;

  @ApiProperty({ enum: CAMPAIGN_STATUSES, example: 'onGoing' })
  campaignStatus: CampaignStatus;

  @ApiProperty({ enum: DELIVERY_STATUSES, example: 'delivering' })
  deliveryStatus: DeliveryStatus;

  @ApiProperty({
    enum: PACING_STATUSES,
    description:
      "How the day's spend stands against the even pacing line: `ahead` (at the line: held back until it moves on), `onPace`, " +
      '`behind` (a tenth of the budget or more below the time elapsed: too little traffic for the budget), `notPaced` (`asap`, or not in its window)',
    example: 'onPace',
  })
  pacingStatus: PacingStatus;

  @ApiProperty({ description: "When the daily budget starts again: the account's next local midnight, ms since epoch", example: 1767312000000 })
  budgetResetsAt: number;

  @ApiProperty({
    description:
      'Smoothed estimate of the optimization event per counted click, 0..1: `(conversions + 100 × prior) / (clicks + 100)`, ' +
      "the prior being the network's mean rate of that event (docs/CONTRACT.md §13). Informative: billing does not use it",
    example: 0.041,
  })
  estimatedEventRate: number;

  @ApiProperty({
    type: () => CampaignOptimizationDto,
    description: 'Where the budget goes by ad block, from the optimization event (docs/CONTRACT.md §13, "Where the budget goes")',
  })
  optimization: CampaignOptimizationDto;

  @ApiProperty({ description: 'ms since epoch', example: 1767225600000 })
  createdAt: number;

  @ApiProperty({ description: 'ms since epoch', example: 1767225600000 })
  updatedAt: number;
}

export class ReviewItemDto {
  @ApiProperty({ example: '01jd3k5m8q9r2s4t6v8w0x2y4z' })
  campaignId: string;

  @ApiProperty({ description: "The advertiser's accountId", example: '01jd3k5m8q9r2s4t6v8w0x2y4a' })
  userId: string;

  @ApiProperty({ example: 'Winter launch' })
  name: string;

  @ApiProperty({ enum: ['new', 'revision'], description: '`new`: a campaign never approved; `revision`: an approved campaign whose creative was edited' })
  kind: 'new' | 'revision';

  @ApiProperty({ description: 'Since when it waits (ms)', example: 1767225600000 })
  waitingSince: number;

  @ApiProperty({ enum: CAMPAIGN_STATUSES, example: 'inReview' })
  campaignStatus: CampaignStatus;

  @ApiProperty(CATEGORY_DOC)
  category: CampaignCategory;

  @ApiProperty({ type: AdDto, nullable: true, description: 'The creative serving now (a revision); null for a new campaign' })
  approvedAd: AdDto | null;

  @ApiProperty({ type: AdDto, description: 'The creative waiting for review' })
  pendingAd: AdDto;

  @ApiProperty({
    enum: CAMPAIGN_CATEGORIES,
    nullable: true,
    description: 'The category the revision would give the campaign, when it changes it',
    example: null,
  })
  pendingCategory: CampaignCategory | null;
}

export class ReviewListDto extends SuccessPageDto {
  @ApiProperty({ type: [ReviewItemDto] })
  reviews: ReviewItemDto[];
}

export class ReviewApproveDto extends CampaignIdDto {}

export class ReviewRejectDto extends CampaignIdDto {
  @ApiProperty({ description: 'Why, for the advertiser (shown as reviewNote), up to 1000 characters', example: 'The landing page does not match the ad' })
  @IsText(1000)
  note: string;
}
