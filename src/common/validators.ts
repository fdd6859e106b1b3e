import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsNotEmpty, IsNumber, IsOptional, IsString, IsUrl, Matches, Max, MaxLength, Min, ValidateBy, ValidationOptions } from 'class-validator';
import { hasAtMostDecimals, MAX_USDT } from './money';
import { canonicalTimeZone } from './time-zone';

/** A positive USDT amount that converts exactly to micro-USDT (at most 6 decimals). */
export function IsUsdtAmount(options?: ValidationOptions) {
  return applyDecorators(
    IsNumber({ allowNaN: false, allowInfinity: false }, { message: '$property must be a number', ...options }),
    ValidateBy(
      {
        name: 'isUsdtAmount',
        validator: {
          validate: (value: unknown) => typeof value === 'number' && value > 0 && hasAtMostDecimals(value, 6),
          defaultMessage: () => '$property must be greater than 0 with at most 6 decimals',
        },
      },
      options,
    ),
    Max(MAX_USDT, { message: `$property must be at most ${MAX_USDT}`, ...options }),
  );
}

/** An absolute http(s) URL of reasonable length. */
export function IsHttpUrl(options?: ValidationOptions) {
  return applyDecorators(
    IsString({ message: '$property must be a string', ...options }),
    MaxLength(2048, options),
    IsUrl(
      { protocols: ['http', 'https'], require_protocol: true, require_tld: false, require_valid_protocol: true },
      { message: '$property must be an http(s) URL', ...options },
    ),
  );
}

/** An IANA time zone name (`Asia/Tokyo`); the DTO's transform stores its canonical spelling. */
export function IsTimeZone(options?: ValidationOptions) {
  return ValidateBy(
    {
      name: 'isTimeZone',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && canonicalTimeZone(value) !== null,
        defaultMessage: () => '$property must be an IANA time zone name such as Europe/Berlin or UTC',
      },
    },
    options,
  );
}

/** A required, non-blank string with a length cap. */
export function IsText(maxLength: number) {
  return applyDecorators(
    IsString({ message: '$property must be a string' }),
    IsNotEmpty({ message: '$property must not be empty' }),
    Matches(/\S/, { message: '$property must not be blank' }),
    MaxLength(maxLength, { message: `$property must be at most ${maxLength} characters` }),
  );
}

/** Latest time accepted (year 2286): keeps ms timestamps sane. */
export const MAX_TIMESTAMP = 9_999_999_999_999;

/** What the API documents about a field. */
export interface FieldDoc {
  description: string;
  example: number;
}

function timestampChecks() {
  return [
    IsInt({ message: '$property must be an integer timestamp in ms' }),
    Min(0, { message: '$property must not be negative' }),
    Max(MAX_TIMESTAMP, { message: '$property is too far in the future' }),
  ];
}

/** A required instant in a JSON body: whole ms since epoch, from 0 to MAX_TIMESTAMP. */
export function TimestampMs(doc: FieldDoc) {
  return applyDecorators(ApiProperty(doc), ...timestampChecks());
}

/** An optional instant in a query string: whole ms since epoch, converted from its text. */
export function OptionalQueryTimestampMs(doc: FieldDoc) {
  return applyDecorators(
    ApiPropertyOptional(doc),
    IsOptional(),
    Type(() => Number),
    ...timestampChecks(),
  );
}

/** One of these values, its message naming them: "must be a" for one, else "must be one of a, b, c". */
export function IsOneOf(values: readonly (string | number)[], options?: ValidationOptions) {
  const named = values.length === 1 ? String(values[0]) : `one of ${values.join(', ')}`;
  return IsIn(values as unknown[], { message: `${options?.each ? 'each value in ' : ''}$property must be ${named}`, ...options });
}

/** A length cap in characters (code points), its message naming it. */
export function MaxChars(max: number, options?: ValidationOptions) {
  return MaxLength(max, { message: `${options?.each ? 'each value in ' : ''}$property must be at most ${max} characters`, ...options });
}

/** A whole number from `min` to `max`, one message for every way a value misses it. */
export function IsIntInRange(min: number, max: number) {
  const message = `$property must be an integer from ${min} to ${max}`;
  return applyDecorators(IsInt({ message }), Min(min, { message }), Max(max, { message }));
}

/** A required id field (a non-empty string of at most 64 characters), documented with `description`. */
export function IdField(description: string) {
  return applyDecorators(
    ApiProperty({ description, example: '01jd3k5m8q9r2s4t6v8w0x2y4z', maxLength: 64 }),
    IsString(),
    IsNotEmpty({ message: '$property is required' }),
    MaxChars(64),
  );
}

/**
 * For quick checks (FastAccepting): a non-empty string of at most `max` UTF-16 units. MaxLength counts code
 * points, which are never more than UTF-16 units, so this accepts a subset of what the decorators accept.
 */
export function isIdString(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= max;
}
