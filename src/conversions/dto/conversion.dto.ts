import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsNotEmpty, IsObject, IsOptional, IsString, Matches, ValidateIf, ValidateNested } from 'class-validator';
import { IsOneOf, MaxChars, OptionalQueryTimestampMs } from '../../common/validators';
import { OpenApiAlias } from '../../common/open-api-aliases';
import { CUSTOM_EVENT_TYPES, type CustomEventType } from '../event-types';
import { CONVERSION_MESSAGE_VALUES, CONVERSION_MESSAGES, type ConversionMessage } from '../conversion-messages';

export class ConversionEventDataDto {
  @ApiPropertyOptional({ description: "The converting user's id on the messaging platform (required without `clickId`)", example: '5512345678' })
  @ValidateIf((data: ConversionEventDataDto) => data.clickId === undefined || data.messengerUserId !== undefined)
  @IsString()
  @IsNotEmpty({ message: '$property is required (or clickId)' })
  @MaxChars(128)
  @OpenApiAlias()
  messengerUserId?: string;

  @ApiPropertyOptional({
    description:
      'Instead of messengerUserId: the `{click_id}` your landing URL received. Credited to that click if it is a counted click on your campaigns within `ATTRIBUTION_DAYS`',
    example: 'mip4x2k0a3Qe1Zr8VtL0pXy7BnC5dFgHjK',
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty({ message: '$property must not be empty' })
  @MaxChars(64)
  clickId?: string;

  @ApiPropertyOptional({
    description: "Your id of the event (an order id): a second event of this type with the same transactionId answers msg 'duplicate' and counts nothing",
    example: 'order-10452',
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty({ message: '$property must not be empty' })
  @MaxChars(128)
  @Matches(/^[\x20-\x7e]+$/, { message: '$property must be printable ASCII' })
  transactionId?: string;
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

export class CustomEventReportDto {
  @ApiProperty({ enum: CUSTOM_EVENT_TYPES, description: 'The custom event (interface rule 7)', example: 'register' })
  @IsOneOf(CUSTOM_EVENT_TYPES)
  eventType: CustomEventType;

  @ApiProperty({ type: ConversionEventDataDto })
  @IsDefined({ message: '$property is required' })
  @IsObject()
  @ValidateNested()
  @Type(() => ConversionEventDataDto)
  eventData: ConversionEventDataDto;
}

/** Endpoint 7 (and the custom event report, like it) answers without the envelope (interface). */
export class ConversionResultDto {
  @ApiProperty({ example: 'success' })
  status: 'success';

  @ApiProperty({
    description:
      "Beside the interface's `status`, what became of the report: credited to the user's latest counted click on your " +
      'campaigns, or stored unattributed (no such click within `ATTRIBUTION_DAYS`, or that click already credited with ' +
      'this event type).',
    enum: CONVERSION_MESSAGE_VALUES,
    enumName: 'ConversionMessage',
    example: CONVERSION_MESSAGES.attributed,
  })
  msg: ConversionMessage;
}

export class ConversionSummaryQueryDto {
  @OptionalQueryTimestampMs({ description: 'Start, ms since epoch (default: 30 days before `to`)', example: 1767225600000 })
  from?: number;

  @OptionalQueryTimestampMs({
    description: 'End (exclusive), ms since epoch (default: just after now: every event reported so far counts)',
    example: 1767830400000,
  })
  to?: number;
}

export class AttributionSummaryDto {
  @ApiProperty({ description: "Credited to a click (they count in the campaigns' `events`)", example: 12 })
  attributed: number;
  @ApiProperty({ description: 'No counted click of yours for that user within the window, or that click was already credited with this type', example: 3 })
  unattributed: number;
}

export class EventAttributionSummariesDto {
  @ApiProperty({ type: AttributionSummaryDto }) conversion: AttributionSummaryDto;
  @ApiProperty({ type: AttributionSummaryDto }) onboard: AttributionSummaryDto;
  @ApiProperty({ type: AttributionSummaryDto }) register: AttributionSummaryDto;
  @ApiProperty({ type: AttributionSummaryDto }) play: AttributionSummaryDto;
  @ApiProperty({ type: AttributionSummaryDto }) payment: AttributionSummaryDto;
  @ApiProperty({ type: AttributionSummaryDto }) withdraw: AttributionSummaryDto;
}

export class ConversionSummaryDto {
  @ApiProperty({ example: 1767225600000 }) from: number;
  @ApiProperty({ example: 1767830400000 }) to: number;
  @ApiProperty({ description: "Conversions credited to a click (they count in the campaigns' `events.conversion`)", example: 12 })
  attributed: number;
  @ApiProperty({ description: 'Conversions with no counted click of yours for that user within the window, or whose click was already credited', example: 3 })
  unattributed: number;
  @ApiProperty({ type: EventAttributionSummariesDto, description: 'The same for conversions and every custom event type' })
  events: EventAttributionSummariesDto;
}
