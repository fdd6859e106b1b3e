import { applyDecorators } from '@nestjs/common';
import { IsNotEmpty, IsNumber, IsString, IsUrl, Matches, Max, MaxLength, ValidateBy, ValidationOptions } from 'class-validator';
import { hasAtMostDecimals, MAX_USDT } from './money';

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

/** A required, non-blank string with a length cap. */
export function IsText(maxLength: number) {
  return applyDecorators(
    IsString({ message: '$property must be a string' }),
    IsNotEmpty({ message: '$property must not be empty' }),
    Matches(/\S/, { message: '$property must not be blank' }),
    MaxLength(maxLength, { message: `$property must be at most ${maxLength} characters` }),
  );
}

/**
 * For quick checks (FastAccepting): a non-empty string of at most `max` UTF-16 units. MaxLength counts code
 * points, which are never more than UTF-16 units, so this accepts a subset of what the decorators accept.
 */
export function isIdString(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= max;
}
