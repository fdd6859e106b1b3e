import { ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsNotEmpty, IsObject, IsOptional, IsString, ValidateIf, ValidateNested } from 'class-validator';
import { STATUS_ACTIONS, StatusAction } from '../../campaigns/campaign-rules';
import { DestinationDto, DestinationUpdateDto, TargetingDto } from '../../campaigns/dto/campaign.dto';
import { IsHttpUrl, IsIntInRange, IsOneOf, IsText, MaxChars } from '../../common/validators';
import { DestinationResponseDto } from '../../serving/dto/serving.dto';
import { WithSeriesRange } from '../../stats/dto/stats.dto';
import { EXCHANGE_STATUSES, ExchangeStatus } from '../entities/exchange-campaign.entity';
import { SuccessPageDto } from '../../common/paging.dto';
import { OpenApiAlias } from '../../common/open-api-aliases';

const ID_EXAMPLE = '01jd3k5m8q9r2s4t6v8w0x2y4z';

/** A required id-like string: non-empty, at most `max` characters. */
const IsId =
  (max: number): PropertyDecorator =>
  (target, key) => {
    IsString()(target, key);
    IsNotEmpty({ message: '$property is required' })(target, key);
    MaxChars(max)(target, key);
  };

/** Region and language targeting of an exchange campaign: the same rules as a campaign's. */
export class ExchangeTargetingDto extends PickType(TargetingDto, ['includedRegions', 'excludedRegions', 'includedLanguages', 'excludedLanguages'] as const) {}

export class ExchangeCampaignCreateDto {
  @ApiProperty({ description: 'Name, up to 200 characters', example: 'Puzzle Quest cross-promo' })
  @IsText(200)
  name: string;

  @ApiProperty({ description: 'Icon, http(s) URL', example: 'https://cdn.example.com/icon.png' })
  @IsHttpUrl()
  icon: string;

  @ApiPropertyOptional({ description: 'Image, http(s) URL; entries without one carry no `image`', example: 'https://cdn.example.com/banner.png' })
  @IsOptional()
  @IsHttpUrl()
  image?: string;

  @ApiProperty({ description: 'Entry text, up to 1000 characters', example: 'Solve 500 puzzles with friends' })
  @IsText(1000)
  text: string;

  @ApiProperty({ type: DestinationDto })
  @IsDefined({ message: '$property is required' })
  @IsObject()
  @ValidateNested()
  @Type(() => DestinationDto)
  destination: DestinationDto;

  @ApiPropertyOptional({ type: ExchangeTargetingDto, description: 'Optional; without it every user matches' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ExchangeTargetingDto)
  targeting?: ExchangeTargetingDto;
}

export class ExchangeCampaignIdDto {
  @ApiProperty({ description: 'Exchange campaign id', example: ID_EXAMPLE })
  @IsId(64)
  exchangeCampaignId: string;
}

/** Fields given change, the others stay; `destination` and `targeting` merge, their lists replace. */
export class ExchangeCampaignUpdateDto extends ExchangeCampaignIdDto {
  @ApiPropertyOptional({ example: 'Puzzle Quest (EU)' })
  @IsOptional()
  @IsText(200)
  name?: string;

  @ApiPropertyOptional({ example: 'https://cdn.example.com/icon2.png' })
  @IsOptional()
  @IsHttpUrl()
  icon?: string;

  @ApiPropertyOptional({ description: 'A new image; `null` removes it', example: 'https://cdn.example.com/banner2.png', nullable: true, type: String })
  @ValidateIf((_, value) => value !== undefined && value !== null)
  @IsHttpUrl()
  image?: string | null;

  @ApiPropertyOptional({ example: 'Now with daily tournaments' })
  @IsOptional()
  @IsText(1000)
  text?: string;

  @ApiPropertyOptional({ type: DestinationUpdateDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => DestinationUpdateDto)
  destination?: DestinationUpdateDto;

  @ApiPropertyOptional({ type: ExchangeTargetingDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ExchangeTargetingDto)
  targeting?: ExchangeTargetingDto;
}

export class ExchangeCampaignStatusDto extends ExchangeCampaignIdDto {
  @ApiProperty({
    description: 'start: paused -> onGoing (idempotent); paused: onGoing -> paused (idempotent); end: any -> ended (final, idempotent)',
    enum: STATUS_ACTIONS,
    example: 'paused',
  })
  @IsOneOf(STATUS_ACTIONS)
  status: StatusAction;
}

export class ExchangeSeriesQueryDto extends WithSeriesRange(ExchangeCampaignIdDto) {}

export class ExchangeFetchQueryDto {
  @ApiProperty({ description: 'Your exchange campaign: the entries are shown in it (traffic leaves it)', example: ID_EXAMPLE })
  @IsId(64)
  exchangeCampaignId: string;

  @ApiProperty({ description: "The user's unique id on the messaging platform", example: '5512345678' })
  @IsId(128)
  openId: string;

  @OpenApiAlias()
  @ApiProperty({ description: 'Only `messenger`', enum: ['messenger'], example: 'messenger' })
  @IsOneOf(['messenger'])
  type: string;

  @ApiProperty({ description: 'How many entries, an integer from 1 to 9', minimum: 1, maximum: 9, example: 3 })
  @Type(() => Number)
  @IsIntInRange(1, 9)
  limit: number;
}

export class ExchangeClickEventDataDto {
  @ApiProperty({ description: "The user's id on the messaging platform (the openId the entry was fetched for)", example: '5512345678' })
  @IsId(128)
  @OpenApiAlias()
  messengerUserId: string;

  @ApiProperty({ description: 'The promoted campaign of the clicked entry (traffic enters it)', example: '01jd3k5m8q9r2s4t6v8w0x2y4q' })
  @IsId(64)
  inExchangeCampaignId: string;

  @ApiProperty({ description: 'Your campaign the entry was shown in (traffic leaves it)', example: ID_EXAMPLE })
  @IsId(64)
  outExchangeCampaignId: string;
}

export class ExchangeClickReportDto {
  @ApiProperty({ enum: ['click'], example: 'click' })
  @IsOneOf(['click'])
  eventType: string;

  @ApiProperty({ type: ExchangeClickEventDataDto })
  @IsDefined({ message: '$property is required' })
  @IsObject()
  @ValidateNested()
  @Type(() => ExchangeClickEventDataDto)
  eventData: ExchangeClickEventDataDto;
}

export class ExchangeConversionEventDataDto {
  @ApiProperty({ description: "The converting user's id on the messaging platform (as in the exchange click that brought the user)", example: '5512345678' })
  @IsId(128)
  @OpenApiAlias()
  messengerUserId: string;
}

export class ExchangeConversionReportDto {
  @ApiProperty({ enum: ['conversion'], example: 'conversion' })
  @IsOneOf(['conversion'])
  eventType: string;

  @ApiProperty({ type: ExchangeConversionEventDataDto })
  @IsDefined({ message: '$property is required' })
  @IsObject()
  @ValidateNested()
  @Type(() => ExchangeConversionEventDataDto)
  eventData: ExchangeConversionEventDataDto;
}

/** Answers without the envelope, as endpoint 7 does. */
export class ExchangeConversionResultDto {
  @ApiProperty({ example: 'success' })
  status: 'success';
}

export class ExchangeClickResultDto {
  @ApiProperty({ example: 'success' })
  status: 'success';
}

export class ExchangeCampaignCreatedDto {
  @ApiProperty({ example: ID_EXAMPLE })
  exchangeCampaignId: string;
}

export class ExchangeStatusResultDto {
  @ApiProperty({ example: 'success' })
  result: string;
}

export class ExchangeEntryDto {
  @ApiProperty({ description: 'The promoted campaign (traffic enters it); report it back in the click', example: '01jd3k5m8q9r2s4t6v8w0x2y4q' })
  inExchangeCampaignId: string;

  @ApiProperty({ description: 'Your campaign, as asked (traffic leaves it)', example: ID_EXAMPLE })
  outExchangeCampaignId: string;

  @ApiPropertyOptional({ example: 'https://cdn.example.com/icon.png' })
  icon?: string;

  @ApiPropertyOptional({ description: 'Absent when the promoted campaign has no image', example: 'https://cdn.example.com/banner.png' })
  image?: string;

  @ApiPropertyOptional({ example: 'Solve 500 puzzles with friends' })
  text?: string;

  @ApiPropertyOptional({ type: DestinationResponseDto })
  destination?: DestinationResponseDto;
}

export class ExchangeEntriesDto {
  @ApiProperty({ example: true })
  success: boolean;

  @ApiProperty({
    type: [ExchangeEntryDto],
    description: "Other partners' active campaigns, best ranked first (see the exchange ranking); may hold fewer than `limit`, even none",
  })
  exchangeCampaigns: ExchangeEntryDto[];
}

class ExchangeTargetingResponseDto {
  @ApiProperty({ type: [String], example: ['US', 'DE'] }) includedRegions: string[];
  @ApiProperty({ type: [String], example: [] }) excludedRegions: string[];
  @ApiProperty({ type: [String], example: ['en'] }) includedLanguages: string[];
  @ApiProperty({ type: [String], example: [] }) excludedLanguages: string[];
}

export class ExchangeCampaignResponseDto {
  @ApiProperty({ example: ID_EXAMPLE })
  exchangeCampaignId: string;

  @ApiProperty({ description: 'Same as exchangeCampaignId', example: ID_EXAMPLE })
  id: string;

  @ApiProperty({ description: "Owner's accountId", example: '01jd3k5m8q9r2s4t6v8w0x2y4a' })
  userId: string;

  @ApiProperty({ example: 'Puzzle Quest cross-promo' })
  name: string;

  @ApiProperty({ example: 'https://cdn.example.com/icon.png' })
  icon: string;

  @ApiProperty({ example: 'https://cdn.example.com/banner.png', nullable: true, type: String })
  image: string | null;

  @ApiProperty({ example: 'Solve 500 puzzles with friends' })
  text: string;

  @ApiProperty({ type: DestinationResponseDto })
  destination: DestinationResponseDto;

  @ApiProperty({ type: ExchangeTargetingResponseDto, description: 'Every list present ([] when not given)' })
  targeting: ExchangeTargetingResponseDto;

  @ApiProperty({ enum: EXCHANGE_STATUSES, example: 'onGoing' })
  campaignStatus: ExchangeStatus;

  @ApiProperty({ description: "Times this campaign was shown as an entry in other partners' apps", example: 1500 })
  impressions: number;

  @ApiProperty({ description: "Other partners' entries shown through this campaign", example: 1800 })
  impressionsSent: number;

  @ApiProperty({ description: "Counted clicks on other partners' entries shown through this campaign (traffic given)", example: 60 })
  clicksSent: number;

  @ApiProperty({ description: "Counted clicks on this campaign's entry in other partners' apps (traffic received)", example: 45 })
  clicksReceived: number;

  @ApiProperty({ description: 'clicksSent - clicksReceived: positive = creditor, negative = in debt', example: 15 })
  balance: number;

  @ApiProperty({ description: 'clicksReceived / impressions, 0..1 (0 without impressions)', example: 0.03 })
  ctr: number;

  @ApiProperty({
    description: 'Conversions you reported (exchange/event/report/conversion) credited to clicks this campaign received, at most one per click',
    example: 9,
  })
  conversions: number;

  @ApiProperty({ description: 'conversions / clicksReceived, 0..1 (0 without clicks received)', example: 0.2 })
  cr: number;

  @ApiProperty({ description: 'ms since epoch', example: 1767225600000 })
  createdAt: number;

  @ApiProperty({ description: 'ms since epoch', example: 1767225600000 })
  updatedAt: number;
}

export class ExchangeCampaignListDto extends SuccessPageDto {
  @ApiProperty({ type: [ExchangeCampaignResponseDto], description: 'Newest first' })
  exchangeCampaigns: ExchangeCampaignResponseDto[];
}

export class ExchangeSeriesPointDto {
  @ApiProperty({ description: 'Bucket start, ms since epoch (UTC)', example: 1767225600000 })
  time: number;
  @ApiProperty({ example: 120 }) impressions: number;
  @ApiProperty({ example: 140 }) impressionsSent: number;
  @ApiProperty({ example: 6 }) clicksSent: number;
  @ApiProperty({ example: 4 }) clicksReceived: number;
  @ApiProperty({ description: 'clicksSent - clicksReceived in the bucket', example: 2 }) balance: number;
  @ApiProperty({ description: 'Conversions credited to clicks this campaign received, counted in the hour they were reported', example: 1 })
  conversions: number;
}

export class ExchangeSeriesDto {
  @ApiProperty({ type: [ExchangeSeriesPointDto] })
  series: ExchangeSeriesPointDto[];
}
