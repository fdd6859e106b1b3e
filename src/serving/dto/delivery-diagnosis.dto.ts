import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsIP, IsISO31661Alpha2, IsNotEmpty, IsOptional, IsString, ValidateBy } from 'class-validator';
import { isISO6391 } from 'class-validator';
import { IsIntInRange, IsOneOf, MaxChars } from '../../common/validators';

export const DIAGNOSIS_PLATFORMS = ['iOS', 'Android', 'Desktop'] as const;

export class DeliveryDiagnosisQueryDto {
  @ApiPropertyOptional({
    description: 'The campaign to diagnose (yours; admins any). Required unless adBlockId is given.',
    example: '01jd3k5m8q9r2s4t6v8w0x2y4q',
  })
  @IsOptional()
  @IsString({ message: '$property must be a string' })
  @IsNotEmpty({ message: '$property must not be empty' })
  @MaxChars(64)
  campaignId?: string;

  @ApiPropertyOptional({
    description:
      'An ad block of yours (admins any): adds its checks (signed viewers, the hourly cap per user) and reads the profile its ' +
      'publisher uploaded for openId. Alone, it lists the ads the block would answer.',
    example: '01jd3k5m8q9r2s4t6v8w0x2y4z',
  })
  @IsOptional()
  @IsString({ message: '$property must be a string' })
  @IsNotEmpty({ message: '$property must not be empty' })
  @MaxChars(64)
  adBlockId?: string;

  @ApiPropertyOptional({ description: 'The user (as in matching/ad): frequency caps, exclusions and the profile are read for them', example: '5512345678' })
  @IsOptional()
  @IsString({ message: '$property must be a string' })
  @IsNotEmpty({ message: '$property must not be empty' })
  @MaxChars(128)
  openId?: string;

  @ApiPropertyOptional({ description: 'ISO 3166-1 alpha-2 country to test with; default: the country of `ip`, else of this request', example: 'DE' })
  @IsOptional()
  @IsISO31661Alpha2({ message: '$property must be an ISO 3166-1 alpha-2 code such as US' })
  @Transform(({ value }) => (typeof value === 'string' ? value.toUpperCase() : value))
  country?: string;

  @ApiPropertyOptional({ description: "ISO 639-1 language to test with; default: the profile's, else this request's Accept-Language", example: 'en' })
  @IsOptional()
  @ValidateBy(
    { name: 'isISO6391', validator: { validate: (value: unknown) => typeof value === 'string' && isISO6391(value.toLowerCase()) } },
    { message: '$property must be an ISO 639-1 code such as en' },
  )
  @Transform(({ value }) => (typeof value === 'string' ? value.toLowerCase() : value))
  language?: string;

  @ApiPropertyOptional({ description: "Platform to test with; default: this request's User-Agent", enum: DIAGNOSIS_PLATFORMS, example: 'iOS' })
  @IsOptional()
  @IsOneOf(DIAGNOSIS_PLATFORMS)
  platform?: (typeof DIAGNOSIS_PLATFORMS)[number];

  @ApiPropertyOptional({ description: "The user's IP address: its country and the invalid-traffic verdict; default: this request's", example: '81.2.69.142' })
  @IsOptional()
  @IsIP(undefined, { message: '$property must be an IPv4 or IPv6 address' })
  ip?: string;

  @ApiPropertyOptional({
    description: 'The ad count of the request, 1 to 9 (default 1): a campaign serves when it ranks within it',
    minimum: 1,
    maximum: 9,
    example: 1,
  })
  @IsOptional()
  @Type(() => Number)
  @IsIntInRange(1, 9)
  limit?: number;
}

export class DeliveryCheckDto {
  @ApiProperty({
    description:
      'What was checked: `status`, `schedule`, `budget.total`, `budget.daily`, `budget.serving`, `pacing`, `index`, `targeting.<field>`, ' +
      '`frequencyCap`, `exclusion`, `floor`, `category`, `domain` (the ad block controls), `block.signedViewer`, `userCap`, ' +
      '`country`, `language`, `platform`, `traffic`, `rank`',
    example: 'targeting.includedRegions',
  })
  check: string;

  @ApiProperty({ example: false })
  passed: boolean;

  @ApiProperty({
    description: 'Why, in plain words',
    example: 'no country for 127.0.0.1: region-targeted campaigns cannot match; set TRUST_PROXY and X-Forwarded-For to test, or give a country',
  })
  detail: string;
}

export class DiagnosisFactsDto {
  @ApiProperty({ description: 'The address the country and the traffic verdict come from', example: '127.0.0.1' })
  ip: string;

  @ApiProperty({ type: String, nullable: true, example: 'DE' })
  country: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'en' })
  language: string | null;

  @ApiProperty({ type: String, nullable: true, enum: DIAGNOSIS_PLATFORMS, example: 'iOS' })
  platform: string | null;

  @ApiProperty({ type: String, nullable: true, example: '5512345678' })
  openId: string | null;

  @ApiProperty({ description: "A profile of the user was read (the block's publisher uploaded it)", example: false })
  profile: boolean;

  @ApiProperty({ type: String, nullable: true, description: 'Invalid-traffic verdict: `emptyUserAgent`, `bot`, `datacenter`, or null', example: null })
  invalidTraffic: string | null;

  @ApiProperty({ description: 'When the diagnosis was made (ms)', example: 1767268800000 })
  time: number;
}

export class DiagnosisRankDto {
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Place of the campaign among the campaigns the serving state would serve for these facts, best first (null: it is not one of them)',
    example: 2,
  })
  position: number | null;

  @ApiProperty({ description: 'How many campaigns would be servable for these facts (counted up to 1000)', example: 5 })
  servableCampaigns: number;

  @ApiProperty({ description: 'The ad count used', example: 1 })
  limit: number;

  @ApiProperty({ description: 'The campaign is among the ads a request with these facts and this limit would answer', example: false })
  served: boolean;
}

export class DiagnosedAdDto {
  @ApiProperty({ example: '01jd3k5m8q9r2s4t6v8w0x2y4q' })
  campaignId: string;

  @ApiProperty({ example: 'ad_01jd3k5m8q9r2s4t6v8w0x2y4q' })
  adId: string;

  @ApiProperty({ example: 'Acme Games' })
  brandName: string;
}

export class DeliveryDiagnosisDto {
  @ApiProperty({ type: String, nullable: true, example: '01jd3k5m8q9r2s4t6v8w0x2y4q' })
  campaignId: string | null;

  @ApiProperty({ type: String, nullable: true, example: '01jd3k5m8q9r2s4t6v8w0x2y4z' })
  adBlockId: string | null;

  @ApiProperty({
    description:
      'With a campaign: every check but `traffic` passed, so a request with these facts would answer its ad. With a block alone: the ' +
      'block would answer at least one ad. (`traffic` failing means ads are answered, but neither billed nor counted as impressions.)',
    example: false,
  })
  servable: boolean;

  @ApiProperty({ type: DiagnosisFactsDto })
  facts: DiagnosisFactsDto;

  @ApiProperty({ type: [DeliveryCheckDto], description: 'Each check, in the order serving applies them' })
  checks: DeliveryCheckDto[];

  @ApiProperty({ type: DiagnosisRankDto, nullable: true, description: 'With a campaign: its rank versus the competition' })
  rank: DiagnosisRankDto | null;

  @ApiProperty({
    type: [DiagnosedAdDto],
    nullable: true,
    description: "With a block: the ads it would answer for these facts, best first (another advertiser's settings are never shown)",
  })
  ads: DiagnosedAdDto[] | null;
}
