import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsNotEmpty, IsObject, IsString, ValidateNested } from 'class-validator';
import { IsOneOf, MaxChars, OptionalQueryTimestampMs } from '../../common/validators';
import { OpenApiAlias } from '../../common/open-api-aliases';

export class ConversionEventDataDto {
  @ApiProperty({ description: "The converting user's id on the messaging platform", example: '5512345678' })
  @IsString()
  @IsNotEmpty({ message: '$property is required' })
  @MaxChars(128)
  @OpenApiAlias()
  messengerUserId: string;
}

export class ConversionReportDto {
  @ApiProperty({ enum: ['conversion'], example: 'conversion' })
  @IsOneOf(['conversion'])
  eventType: string;

  @ApiProperty({ type: ConversionEventDataDto })
  @IsDefined({ message: '$property is required' })
  @IsObject()
  @ValidateNested()
  @Type(() => ConversionEventDataDto)
  eventData: ConversionEventDataDto;
}

/** Endpoint 7 answers without the envelope (interface). */
export class ConversionResultDto {
  @ApiProperty({ example: 'success' })
  status: 'success';
}

export class ConversionSummaryQueryDto {
  @OptionalQueryTimestampMs({ description: 'Start, ms since epoch (default: 30 days before `to`)', example: 1767225600000 })
  from?: number;

  @OptionalQueryTimestampMs({ description: 'End (exclusive), ms since epoch (default: now)', example: 1767830400000 })
  to?: number;
}

export class ConversionSummaryDto {
  @ApiProperty({ example: 1767225600000 }) from: number;
  @ApiProperty({ example: 1767830400000 }) to: number;
  @ApiProperty({ description: "Credited to a click (they count in the campaigns' `conversions`)", example: 12 })
  attributed: number;
  @ApiProperty({ description: 'No counted click of yours for that user within the window, or that click was already credited', example: 3 })
  unattributed: number;
}
