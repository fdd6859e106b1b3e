import { Type } from 'class-transformer';
import { IsInt, IsNotEmpty, IsObject, IsString, Min, ValidateNested } from 'class-validator';
import { ValidationError } from './errors';
import { RequestValidationPipe } from './validation.pipe';

class InnerDto {
  @IsInt()
  @Min(1)
  count: number;
}

class OuterDto {
  @IsString()
  @IsNotEmpty()
  name: string;

  @IsObject()
  @ValidateNested()
  @Type(() => InnerDto)
  inner: InnerDto;
}

describe(RequestValidationPipe.name, () => {
  const pipe = new RequestValidationPipe();
  const run = (value: unknown) => pipe.transform(value, { type: 'body', metatype: OuterDto });
  const errorsOf = (value: unknown) => {
    try {
      run(value);
    } catch (error) {
      return (error as ValidationError).errors;
    }
    throw new Error('expected a validation error');
  };

  it('should report nested failures with their dotted path', () => {
    expect(errorsOf({ name: 'x', inner: { count: 0 } })).toEqual([{ field: 'inner.count', message: 'inner.count must not be less than 1' }]);
  });

  it('should say an object is expected without the nested-validation noise', () => {
    expect(errorsOf({ name: 'x', inner: 'nope' })).toEqual([{ field: 'inner', message: 'inner must be an object' }]);
  });

  it('should refuse a body that is not a JSON object', () => {
    expect(errorsOf([1, 2])).toEqual([{ field: 'body', message: 'body must be a JSON object' }]);
    expect(errorsOf(null)).toEqual([{ field: 'body', message: 'body must be a JSON object' }]);
  });

  it('should drop unknown fields', () => {
    const result = run({ name: 'x', inner: { count: 2, extra: 1 }, other: true }) as OuterDto;
    expect(result).toBeInstanceOf(OuterDto);
    expect(result).toEqual({ name: 'x', inner: { count: 2 } });
  });
});
