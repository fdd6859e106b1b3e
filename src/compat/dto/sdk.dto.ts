import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsDefined, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, Max, Min, ValidateNested } from 'class-validator';
import { IsIntInRange, IsOneOf, MaxChars, MAX_TIMESTAMP } from '../../common/validators';

/** The DTOs of the ton-ai-sdk 2.2.2's routes, with the field names the SDK sends (docs/SWITCHING_FROM_TON_AI.md). */

const Id =
  (max: number): PropertyDecorator =>
  (target, key) => {
    IsString()(target, key);
    IsNotEmpty({ message: '$property is required' })(target, key);
    MaxChars(max)(target, key);
  };

const OptionalId =
  (max: number): PropertyDecorator =>
  (target, key) => {
    IsOptional()(target, key);
    IsString()(target, key);
    MaxChars(max)(target, key);
  };

const Nested =
  (type: () => new () => object): PropertyDecorator =>
  (target, key) => {
    IsDefined({ message: '$property is required' })(target, key);
    IsObject()(target, key);
    ValidateNested()(target, key);
    Type(type)(target, key);
  };

/** The SDK's user types this service serves: Telegram users are its messenger users. */
export const SDK_USER_TYPES = ['telegram', 'messenger'] as const;
export const SDK_SOURCES = ['normal', 'earn'] as const;
export const SDK_EVENT_TYPES = ['click', 'impression', 'complete', 'conversion'] as const;
export type SdkEventType = (typeof SDK_EVENT_TYPES)[number];

const ID_EXAMPLE = '01jd3k5m8q9r2s4t6v8w0x2y4z';

export class SdkAdViewerDto {
  @ApiProperty({ description: "The user's Telegram id (the SDK's openId)", example: '5512345678' })
  @Id(128)
  openId: string;

  @ApiPropertyOptional({ description: "The SDK's device id: accepted, not used", example: '2854123301' })
  @OptionalId(128)
  uuid?: string;

  @ApiPropertyOptional({ description: '`telegram` (default) or `messenger`', enum: SDK_USER_TYPES })
  @IsOptional()
  @IsOneOf(SDK_USER_TYPES)
  type?: string;
}

export class SdkAdFetchDto {
  @ApiProperty({ description: 'Your ad block', example: ID_EXAMPLE })
  @Id(64)
  adBlockId: string;

  @ApiPropertyOptional({ description: 'Accepted, not used', enum: SDK_SOURCES })
  @IsOptional()
  @IsOneOf(SDK_SOURCES)
  source?: string;

  @ApiProperty({ type: SdkAdViewerDto })
  @Nested(() => SdkAdViewerDto)
  viewer: SdkAdViewerDto;
}

export class SdkMultiAdFetchDto extends SdkAdFetchDto {
  @ApiProperty({ description: 'How many ads, an integer from 1 to 9', minimum: 1, maximum: 9, example: 3 })
  @IsIntInRange(1, 9)
  limit: number;
}

export class SdkExchangeViewerDto {
  @ApiProperty({ description: "The user's Telegram id", example: '5512345678' })
  @Id(128)
  telegramUserId: string;
}

export class SdkExchangeFetchDto {
  @ApiProperty({ description: 'Your exchange campaign (traffic leaves it)', example: ID_EXAMPLE })
  @Id(64)
  exchangeCampaignId: string;

  @ApiPropertyOptional({ description: 'Accepted, not used', enum: SDK_SOURCES })
  @IsOptional()
  @IsOneOf(SDK_SOURCES)
  source?: string;

  @ApiProperty({ type: SdkExchangeViewerDto })
  @Nested(() => SdkExchangeViewerDto)
  viewer: SdkExchangeViewerDto;
}

export class SdkMultiExchangeFetchDto extends SdkExchangeFetchDto {
  @ApiProperty({ description: 'How many entries, an integer from 1 to 9', minimum: 1, maximum: 9, example: 3 })
  @IsIntInRange(1, 9)
  limit: number;
}

const Timestamp = (): PropertyDecorator => (target, key) => {
  ApiProperty({ description: 'When the SDK made the report, ms (part of the signed fields)', example: 1767225600000 })(target, key);
  IsInt({ message: '$property must be an integer (ms)' })(target, key);
  Min(0, { message: '$property must be an integer (ms)' })(target, key);
  Max(MAX_TIMESTAMP, { message: '$property must be an integer (ms)' })(target, key);
};

export class SdkAdEventDataDto {
  @ApiPropertyOptional({ description: "The served ad's campaign (click, impression, complete)", example: ID_EXAMPLE })
  @OptionalId(64)
  campaignId?: string;

  @ApiPropertyOptional({ description: 'The served ad (click, impression, complete)', example: 'ad_01jd3k5m8q9r2s4t6v8w0x2y4q' })
  @OptionalId(64)
  adId?: string;

  @ApiPropertyOptional({ description: 'The block it was served on (click, impression, complete)', example: ID_EXAMPLE })
  @OptionalId(64)
  adBlockId?: string;

  @ApiPropertyOptional({ description: '`telegram` (default) or `messenger`', enum: SDK_USER_TYPES })
  @IsOptional()
  @IsOneOf(SDK_USER_TYPES)
  type?: string;

  @ApiProperty({ description: "The user's Telegram id", example: '5512345678' })
  @Id(128)
  openId: string;

  @ApiPropertyOptional({ description: "The SDK's device id: signed, not used", example: '2854123301' })
  @OptionalId(128)
  uuid?: string;

  @Timestamp()
  timestamp: number;

  @ApiPropertyOptional({ description: "Which of the popup's impression reports this is (signed, not used: one view per impression)", example: 1 })
  @IsOptional()
  @IsInt({ message: '$property must be an integer' })
  num?: number;
}

export class SdkAdEventDto {
  @ApiProperty({ enum: SDK_EVENT_TYPES, example: 'click' })
  @IsOneOf(SDK_EVENT_TYPES)
  eventType: SdkEventType;

  @ApiProperty({ type: SdkAdEventDataDto })
  @Nested(() => SdkAdEventDataDto)
  eventData: SdkAdEventDataDto;

  @ApiProperty({ description: "The SDK's md5 sign of eventData (docs/SWITCHING_FROM_TON_AI.md)", example: '9e107d9d372bb6826bd81d3542a419d6' })
  @IsString()
  @IsNotEmpty({ message: '$property is required' })
  @MaxChars(64)
  sign: string;
}

export const SDK_EXCHANGE_SOURCES = ['user', 'system', 'normal', 'event', 'earn'] as const;

export class SdkExchangeEventDataDto {
  @ApiPropertyOptional({ description: 'Your campaign the entry was shown in (click, impression, complete)', example: ID_EXAMPLE })
  @OptionalId(64)
  outExchangeCampaignId?: string;

  @ApiPropertyOptional({ description: 'The promoted campaign (click, impression, complete)', example: '01jd3k5m8q9r2s4t6v8w0x2y4q' })
  @OptionalId(64)
  inExchangeCampaignId?: string;

  @ApiPropertyOptional({ description: 'Accepted and signed, not used', example: ID_EXAMPLE })
  @OptionalId(64)
  exchangeCampaignId?: string;

  @ApiProperty({ description: "The user's Telegram id", example: '5512345678' })
  @Id(128)
  telegramUserId: string;

  @ApiPropertyOptional({ description: 'Accepted and signed, not used', enum: SDK_EXCHANGE_SOURCES })
  @IsOptional()
  @IsOneOf(SDK_EXCHANGE_SOURCES)
  source?: string;

  @Timestamp()
  timestamp: number;
}

export class SdkExchangeEventDto {
  @ApiProperty({ enum: SDK_EVENT_TYPES, example: 'click' })
  @IsOneOf(SDK_EVENT_TYPES)
  eventType: SdkEventType;

  @ApiProperty({ type: SdkExchangeEventDataDto })
  @Nested(() => SdkExchangeEventDataDto)
  eventData: SdkExchangeEventDataDto;

  @ApiProperty({ description: "The SDK's md5 sign of eventData", example: '9e107d9d372bb6826bd81d3542a419d6' })
  @IsString()
  @IsNotEmpty({ message: '$property is required' })
  @MaxChars(64)
  sign: string;
}

/** `ton` is the SDK's name of the `primary` chain; `evm` is the same on both sides. */
export const SDK_WALLET_CLASSES = ['ton', 'evm', 'primary', 'alt'] as const;

export class SdkUserProfileDto {
  @ApiProperty({ description: "The user's Telegram id", example: '5512345678' })
  @Id(128)
  openId: string;

  @ApiPropertyOptional({ description: '`telegram` (default) or `messenger`', enum: SDK_USER_TYPES })
  @IsOptional()
  @IsOneOf(SDK_USER_TYPES)
  type?: string;

  @ApiPropertyOptional({
    description: "The user's wallet (with walletClassify); needs a full key",
    example: 'UQBvW8Z5huBkMJYdnfAEM5JqTNkuWX3diqYENkWsIL0XggGG',
  })
  @IsOptional()
  @Id(128)
  walletAddress?: string;

  @ApiPropertyOptional({ description: '`ton` (stored as `primary`), `evm`, `primary` or `alt`', enum: SDK_WALLET_CLASSES })
  @IsOptional()
  @IsOneOf(SDK_WALLET_CLASSES)
  walletClassify?: string;

  @ApiPropertyOptional({ description: 'The SDK sends `["onBoard"]` at init: accepted, not stored', example: ['onBoard'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @MaxChars(64, { each: true })
  events?: string[];
}

export class SdkCommonEventDto {
  @ApiProperty({ description: 'What happened (the SDK reports its own errors as `error-[<message>]`)', example: 'error-[GetTonAd error: timeout]' })
  @IsString()
  @IsNotEmpty({ message: '$property is required' })
  @MaxChars(1000)
  eventName: string;

  @ApiPropertyOptional({ description: "The user's Telegram id; empty when the SDK knows none", example: '5512345678' })
  @IsOptional()
  @IsString()
  @MaxChars(128)
  openId?: string;

  @ApiPropertyOptional({ description: 'Accepted, not used', example: 'telegram' })
  @IsOptional()
  @IsString()
  @MaxChars(32)
  type?: string;

  @ApiPropertyOptional({ description: 'Accepted, not used', enum: ['sdk', 'api', 'web'] })
  @IsOptional()
  @IsOneOf(['sdk', 'api', 'web'])
  eventSource?: string;
}

export class SdkAdVerifyQueryDto {
  @ApiProperty({ example: ID_EXAMPLE })
  @Id(64)
  campaignId: string;

  @ApiProperty({ description: "The user's Telegram id", example: '5512345678' })
  @Id(128)
  openId: string;

  @ApiPropertyOptional({ description: '`telegram` (default) or `messenger`', enum: SDK_USER_TYPES })
  @IsOptional()
  @IsOneOf(SDK_USER_TYPES)
  type?: string;

  @ApiPropertyOptional({ description: 'Accepted, not used' })
  @OptionalId(128)
  uuid?: string;
}

export class SdkExchangeVerifyQueryDto {
  @ApiProperty({ description: 'The promoted exchange campaign the user was sent to', example: ID_EXAMPLE })
  @Id(64)
  exchangeCampaignId: string;

  @ApiProperty({ description: "The user's Telegram id", example: '5512345678' })
  @Id(128)
  openId: string;
}

// ---- answers ----

export class SdkDestinationConfigDto {
  @ApiProperty({ example: 'https://example.com/landing' })
  url: string;
}

export class SdkDestinationDto {
  @ApiProperty({ example: 'visit.website' })
  actionType: string;

  @ApiProperty({ example: 'https://example.com/landing' })
  url: string;

  @ApiProperty({ type: SdkDestinationConfigDto, description: 'Where the SDK reads the URL' })
  destinationConfig: SdkDestinationConfigDto;
}

export class SdkAdDto {
  @ApiProperty({ example: ID_EXAMPLE }) adBlockId: string;
  @ApiProperty({ example: 'ad_01jd3k5m8q9r2s4t6v8w0x2y4q' }) adId: string;
  @ApiProperty({ example: '01jd3k5m8q9r2s4t6v8w0x2y4q' }) campaignId: string;
  @ApiProperty({ example: 'image' }) adFormat: 'image';
  @ApiProperty({ example: 'https://cdn.example.com/icon.png' }) icon: string;
  @ApiProperty({ example: 'https://cdn.example.com/ad.png' }) image: string;
  @ApiProperty({ description: 'The popup shows it; the same image', example: 'https://cdn.example.com/ad.png' }) popupImage: string;
  @ApiProperty({ example: 'Play the best puzzle game' }) text: string;
  @ApiPropertyOptional({ example: 'Acme Games' }) brandName?: string;
  @ApiPropertyOptional({ example: 'Play now' }) buttonText?: string;
  @ApiProperty({ description: 'The campaign has a verification endpoint (the SDK then polls ad/verify/conversion)', example: false })
  isSupportVerified: boolean;
  @ApiProperty({ type: SdkDestinationDto }) destination: SdkDestinationDto;
}

export class SdkAdsDto {
  @ApiProperty({ example: true }) success: boolean;
  @ApiProperty({ example: '3 ads' }) msg: string;
  @ApiProperty({ example: '3 ads' }) message: string;
  @ApiProperty({ type: [SdkAdDto] }) ads: SdkAdDto[];
}

export class SdkSingleAdDto extends SdkAdDto {
  @ApiProperty({ description: 'false when no ad matched (then only `message` comes along)', example: true }) success: boolean;
  @ApiProperty({ example: '1 ads' }) message: string;
}

export class SdkExchangeEntryDto {
  @ApiProperty({ example: '01jd3k5m8q9r2s4t6v8w0x2y4q' }) inExchangeCampaignId: string;
  @ApiProperty({ example: ID_EXAMPLE }) outExchangeCampaignId: string;
  @ApiProperty({ example: 'image' }) adFormat: 'image';
  @ApiProperty({ example: 'https://cdn.example.com/icon.png' }) icon: string;
  @ApiPropertyOptional({ example: 'https://cdn.example.com/banner.png' }) image?: string;
  @ApiProperty({ example: 'Solve 500 puzzles with friends' }) text: string;
  @ApiProperty({
    description:
      "Always false: whether a promoted campaign's partner reports conversions is declared nowhere, so the SDK does not wait on exchange/verify/conversion",
    example: false,
  })
  isSupportVerified: boolean;
  @ApiProperty({ type: SdkDestinationDto }) destination: SdkDestinationDto;
}

export class SdkExchangeEntriesDto {
  @ApiProperty({ example: true }) success: boolean;
  @ApiProperty({ type: [SdkExchangeEntryDto] }) exchangeCampaigns: SdkExchangeEntryDto[];
}

export class SdkSingleExchangeEntryDto extends SdkExchangeEntryDto {
  @ApiProperty({ description: 'false when no entry matched (then only `message` comes along)', example: true }) success: boolean;
  @ApiProperty({ example: '1 entries' }) message: string;
}

export class SdkEventResultDto {
  @ApiProperty({ example: 'success' }) status: 'success';
  @ApiProperty({ description: 'What was counted, in words', example: 'view counted' }) msg: string;
}

export class SdkProfileResultDto {
  @ApiProperty({ example: '5512345678' }) messengerUserId: string;
  @ApiPropertyOptional({ description: 'The profile batch storing the wallet (follow it with user/profile/batch/status); absent when nothing was stored' })
  batchId?: string;
}

export class SdkVerifyResultDto {
  @ApiProperty({ example: true }) isVerified: boolean;
  @ApiProperty({ example: 'verified by the advertiser' }) message: string;
}
