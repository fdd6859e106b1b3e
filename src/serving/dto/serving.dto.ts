import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { isIdString, IsIntInRange, IsOneOf, MaxChars, IdField } from '../../common/validators';
import { IsNotEmpty, IsString } from 'class-validator';
import { OpenApiAlias } from '../../common/open-api-aliases';

export class AdFetchQueryDto {
  @IdField('Your ad block (ad spot) id')
  adBlockId: string;

  @ApiProperty({ description: "The user's unique id on the messaging platform", example: '5512345678' })
  @IsString()
  @IsNotEmpty({ message: '$property is required' })
  @MaxChars(128)
  openId: string;

  @OpenApiAlias()
  @ApiProperty({ description: 'Only `messenger`', enum: ['messenger'], example: 'messenger' })
  @IsOneOf(['messenger'])
  type: string;

  @ApiProperty({ description: 'How many ads, an integer from 1 to 9', minimum: 1, maximum: 9, example: 3 })
  @Type(() => Number)
  @IsIntInRange(1, 9)
  limit: number;

  /** The plainly valid query (see FastAccepting); anything else goes through the decorators above. */
  static acceptFast(value: unknown): AdFetchQueryDto | null {
    if (typeof value !== 'object' || value === null) return null;
    const { adBlockId, openId, type, limit } = value as Record<string, unknown>;
    if (!isIdString(adBlockId, 64) || !isIdString(openId, 128) || type !== 'messenger') return null;
    if (typeof limit !== 'string' || limit.length !== 1 || limit < '1' || limit > '9') return null;
    const query = new AdFetchQueryDto();
    query.adBlockId = adBlockId;
    query.openId = openId;
    query.type = type;
    query.limit = limit.charCodeAt(0) - 48;
    return query;
  }
}

export class DestinationResponseDto {
  @ApiProperty({ example: 'visit.website' })
  actionType: string;

  @ApiProperty({ example: 'https://example.com/landing' })
  url: string;
}

export class ServedAdDto {
  @ApiProperty({ example: '01jd3k5m8q9r2s4t6v8w0x2y4z' })
  adBlockId: string;

  @ApiProperty({ description: 'Report it back in the click', example: 'ad_01jd3k5m8q9r2s4t6v8w0x2y4q' })
  adId: string;

  @ApiProperty({ example: '01jd3k5m8q9r2s4t6v8w0x2y4q' })
  campaignId: string;

  @ApiProperty({ example: 'https://cdn.example.com/icon.png' })
  icon: string;

  @ApiProperty({ example: 'https://cdn.example.com/ad.png' })
  image: string;

  @ApiProperty({ example: 'Play the best puzzle game' })
  text: string;

  @ApiPropertyOptional({ example: 'Acme Games' })
  brandName: string;

  @ApiPropertyOptional({ example: 'Play now' })
  buttonText: string;

  @ApiProperty({ type: DestinationResponseDto })
  destination: DestinationResponseDto;
}

export class ServedAdsDto {
  @ApiProperty({ description: 'What happened, in words', example: '3 ads' })
  msg: string;

  @ApiProperty({ example: true })
  success: boolean;

  @ApiProperty({ type: [ServedAdDto], description: 'Best first; may hold fewer than `limit`, even none' })
  ads: ServedAdDto[];
}
