import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { ApiProperty, PartialType } from '@nestjs/swagger';
import { ValidationError } from './errors';
import { OpenApiAlias, SWAGGER_PROPERTY_METADATA, withCanonicalNames } from './open-api-aliases';
import { checkInput } from './validation.pipe';

class RecordDto {
  @IsString()
  @OpenApiAlias()
  messengerUserId: string;

  @OpenApiAlias()
  @ApiProperty({ enum: ['primary', 'evm'] })
  @IsOptional()
  @IsIn(['primary', 'evm'])
  walletClassify?: string;
}

class FlagsDto {
  @IsOptional()
  @IsBoolean()
  @OpenApiAlias()
  messengerPremium?: boolean;
}

class PartialFlagsDto extends PartialType(FlagsDto) {}

class BatchDto {
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => RecordDto)
  list: RecordDto[];

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => PartialFlagsDto)
  flags?: PartialFlagsDto;
}

const errorsOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as ValidationError).errors;
  }
  throw new Error('expected a validation error');
};

describe('Open API aliases', () => {
  it('should rewrite field and value aliases to the canonical names, in nested DTOs and arrays, inherited through mapped types', () => {
    const input = { list: [{ telegramUserId: 'u1', walletClassify: 'ton' }, { messengerUserId: 'u2' }], flags: { telegramPremium: true } };
    const snapshot = JSON.stringify(input);
    expect(withCanonicalNames(BatchDto, input).value).toEqual({
      list: [{ messengerUserId: 'u1', walletClassify: 'primary' }, { messengerUserId: 'u2' }],
      flags: { messengerPremium: true },
    });
    expect(JSON.stringify(input)).toBe(snapshot);
  });

  it('should hand back an input without aliases as it is', () => {
    const input = { list: [{ messengerUserId: 'u1' }] };
    expect(withCanonicalNames(BatchDto, input).value).toBe(input);
  });

  it('should accept an alias beside its canonical field with the same value, and refuse another value naming the alias', () => {
    expect(checkInput(RecordDto, { messengerUserId: 'u1', telegramUserId: 'u1' })).toEqual({ messengerUserId: 'u1' });
    expect(errorsOf(() => checkInput(BatchDto, { list: [{ messengerUserId: 'u1' }, { messengerUserId: 'u1', telegramUserId: 'u2' }] }))).toEqual([
      {
        field: 'list.1.telegramUserId',
        message: 'list.1.telegramUserId is an alias of list.1.messengerUserId: send one of them, or both with the same value',
      },
    ]);
  });

  it('should name a bad value sent under an alias by the alias', () => {
    expect(errorsOf(() => checkInput(BatchDto, { list: [{ telegramUserId: 5 }] }))).toEqual([
      { field: 'list.0.telegramUserId', message: 'list.0.telegramUserId must be a string' },
    ]);
  });

  it('should document a field alias as a deprecated property and alias values in the enum', () => {
    const alias = Reflect.getMetadata(SWAGGER_PROPERTY_METADATA, RecordDto.prototype, 'telegramUserId');
    expect(alias).toEqual(expect.objectContaining({ type: String, required: false, deprecated: true }));
    expect(alias.description).toContain('Alias of `messengerUserId` (TON AI Open API)');
    const classify = Reflect.getMetadata(SWAGGER_PROPERTY_METADATA, RecordDto.prototype, 'walletClassify');
    expect(classify.enum).toEqual(['primary', 'evm', 'ton']);
    expect(classify.description).toContain('`ton` is an alias of `primary`');
  });

  it('should refuse to decorate a property the alias table does not know, or alias values below @ApiProperty', () => {
    expect(() => OpenApiAlias()(FlagsDto.prototype, 'name')).toThrow(/no alias of name/);
    expect(() => OpenApiAlias()(class Bare {}.prototype, 'type')).toThrow(/above its @ApiProperty/);
  });
});
