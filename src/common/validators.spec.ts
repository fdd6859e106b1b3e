import { IsIntInRange, IsOneOf, MaxChars, OptionalQueryTimestampMs, TimestampMs } from './validators';
import { validateWithDecorators } from './validation.pipe';
import { ValidationError } from './errors';

class Sample {
  @IsOneOf(['click'])
  type: string;

  @IsOneOf(['start', 'paused', 'end'])
  action: string;

  @IsOneOf(['a', 'b'], { each: true })
  roles: string[];

  @MaxChars(3)
  code: string;

  @MaxChars(2, { each: true })
  tags: string[];

  @IsIntInRange(1, 9)
  limit: number;

  @TimestampMs({ description: 'Start', example: 1767225600000 })
  startTime: number;
}

class SampleQuery {
  @OptionalQueryTimestampMs({ description: 'From', example: 1767225600000 })
  from?: number;
}

const valid = { type: 'click', action: 'end', roles: ['a'], code: 'abc', tags: ['x'], limit: 9, startTime: 0 };

function messagesOf(metatype: new () => unknown, value: object): string[] {
  try {
    validateWithDecorators(metatype, value);
  } catch (error) {
    if (error instanceof ValidationError) return error.errors.map((e) => e.message);
    throw error;
  }
  return [];
}

describe('DTO decorators with generated messages', () => {
  it('should accept valid values', () => {
    expect(messagesOf(Sample, valid)).toEqual([]);
    expect(messagesOf(SampleQuery, {})).toEqual([]);
  });

  it('should name the allowed values: one alone, else "one of"', () => {
    expect(messagesOf(Sample, { ...valid, type: 'view', action: 'go', roles: ['c'] })).toEqual([
      'type must be click',
      'action must be one of start, paused, end',
      'each value in roles must be one of a, b',
    ]);
  });

  it('should name the length cap, also for each value', () => {
    expect(messagesOf(Sample, { ...valid, code: 'abcd', tags: ['xyz'] })).toEqual([
      'code must be at most 3 characters',
      'each value in tags must be at most 2 characters',
    ]);
  });

  it('should give one message for every way an integer misses its range', () => {
    for (const limit of [0, 10, 1.5]) expect(messagesOf(Sample, { ...valid, limit })).toEqual(['limit must be an integer from 1 to 9']);
  });

  it('should take ms timestamps from 0 to year 2286, from a query as text', () => {
    expect(messagesOf(Sample, { ...valid, startTime: -1 })).toEqual(['startTime must not be negative']);
    expect(messagesOf(Sample, { ...valid, startTime: 10_000_000_000_000 })).toEqual(['startTime is too far in the future']);
    expect(messagesOf(Sample, { ...valid, startTime: '1767225600000' })).toEqual(['startTime must be an integer timestamp in ms']);
    expect(validateWithDecorators(SampleQuery, { from: '1767225600000' })).toEqual({ from: 1767225600000 });
  });
});
