import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, Matches } from 'class-validator';
import { IsOneOf, MaxChars } from '../../common/validators';
import { EVENT_TYPES, type EventType } from '../event-types';

/** `GET /postback`: a conversion or custom event from an attribution tool's server (docs/CONTRACT.md §20). */
export class PostbackQueryDto {
  @ApiProperty({ description: 'Your postback token (`account/me`); never an API key', example: 'pbt_Zx3kq0a8VtL0pXy7BnC5dFgHjKr2Ws1e' })
  @IsString()
  @IsNotEmpty({ message: '$property is required' })
  @MaxChars(100)
  token: string;

  @ApiProperty({ description: 'The `{click_id}` your landing URL received', example: 'mip4x2k0a3Qe1Zr8VtL0pXy7BnC5dFgHjK' })
  @IsString()
  @IsNotEmpty({ message: '$property is required' })
  @MaxChars(64)
  clickId: string;

  @ApiPropertyOptional({ enum: EVENT_TYPES, default: 'conversion', description: 'The event: a conversion (default) or a custom event' })
  @IsOptional()
  @IsOneOf(EVENT_TYPES)
  event?: EventType;

  @ApiPropertyOptional({
    description: "Your id of the event: a repeat of it for the same event answers msg 'duplicate' and counts nothing",
    example: 'order-10452',
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty({ message: '$property must not be empty' })
  @MaxChars(128)
  @Matches(/^[\x20-\x7e]+$/, { message: '$property must be printable ASCII' })
  transactionId?: string;
}
