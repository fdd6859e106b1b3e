import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsIn, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, Max, MaxLength, Min, ValidateNested } from 'class-validator';

const MAX_TIMESTAMP = 9_999_999_999_999;

export class ConversionEventDataDto {
  @ApiProperty({ description: "The converting user's id on the messaging platform", example: '5512345678' })
  @IsString({ message: '$property must be a string' })
  @IsNotEmpty({ message: '$property is required' })
  @MaxLength(128, { message: '$property must be at most 128 characters' })
  messengerUserId: string;
}

export class ConversionReportDto {
  @ApiProperty({ enum: ['conversion'], example: 'conversion' })
  @IsIn(['conversion'], { message: '$property must be conversion' })
  eventType: string;

  @ApiProperty({ type: ConversionEventDataDto })
  @IsDefined({ message: '$property is required' })
  @IsObject({ message: '$property must be an object' })
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
  @ApiPropertyOptional({ description: 'Start, ms since epoch (default: 30 days before `to`)', example: 1767225600000 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: '$property must be an integer timestamp in ms' })
  @Min(0, { message: '$property must not be negative' })
  @Max(MAX_TIMESTAMP, { message: '$property is too far in the future' })
  from?: number;

  @ApiPropertyOptional({ description: 'End (exclusive), ms since epoch (default: now)', example: 1767830400000 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: '$property must be an integer timestamp in ms' })
  @Min(0, { message: '$property must not be negative' })
  @Max(MAX_TIMESTAMP, { message: '$property is too far in the future' })
  to?: number;
}

export class ConversionSummaryDto {
  @ApiProperty({ example: 1767225600000 }) from: number;
  @ApiProperty({ example: 1767830400000 }) to: number;
  @ApiProperty({ description: 'Credited to a click (they count in the campaigns\' `conversions`)', example: 12 })
  attributed: number;
  @ApiProperty({ description: 'No counted click of yours for that user within the window, or that click was already credited', example: 3 })
  unattributed: number;
}
