import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsText } from '../../common/validators';
import { Account, Role, ROLES } from '../entities/account.entity';
import { ApiKey } from '../entities/api-key.entity';

export class AccountCreateDto {
  @ApiProperty({ description: 'Display name of the account', example: 'Acme Games', maxLength: 200 })
  @IsText(200)
  name: string;

  @ApiProperty({ description: 'Roles of the account', enum: ROLES, isArray: true, example: ['advertiser'] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(ROLES.length)
  @IsIn(ROLES, { each: true, message: `each value in $property must be one of ${ROLES.join(', ')}` })
  roles: Role[];
}

export class KeyCreateDto {
  @ApiPropertyOptional({ description: 'A label to tell keys apart', example: 'production frontend', maxLength: 100 })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  label?: string;
}

export class AccountCreatedDto {
  @ApiProperty({ example: '01jd3k5m8q9r2s4t6v8w0x2y4z' })
  accountId: string;

  @ApiProperty({ description: 'The first API key: shown this once, stored only as a hash', example: 'adn_3q2…' })
  apiKey: string;
}

export class KeyCreatedDto {
  @ApiProperty({ example: '01jd3k5m8q9r2s4t6v8w0x2y4z' })
  keyId: string;

  @ApiProperty({ description: 'The key: shown this once, stored only as a hash', example: 'adn_3q2…' })
  apiKey: string;
}

export class AccountResponseDto {
  @ApiProperty({ example: '01jd3k5m8q9r2s4t6v8w0x2y4z' })
  accountId: string;

  @ApiProperty({ example: 'Acme Games' })
  name: string;

  @ApiProperty({ enum: ROLES, isArray: true, example: ['advertiser'] })
  roles: Role[];

  @ApiProperty({ description: 'Creation time, ms since epoch', example: 1767225600000 })
  createdAt: number;

  static from(account: Account): AccountResponseDto {
    return { accountId: account.id, name: account.name, roles: account.roleList, createdAt: account.createdAt };
  }
}

export class AccountMeDto extends AccountResponseDto {
  @ApiPropertyOptional({
    description:
      'For advertisers it signs the verification calls to your verification URL; for publishers it signs viewer tokens ' +
      '(`x-adnet-viewer`, ad blocks with requireSignedViewer). Keep it on your server. Only for advertiser, publisher (and admin) accounts',
    example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  })
  webhookSecret?: string;

  static fromAccount(account: Account): AccountMeDto {
    const roles = account.roleList;
    const showSecret = roles.includes('advertiser') || roles.includes('publisher') || roles.includes('admin');
    return { ...AccountResponseDto.from(account), ...(showSecret ? { webhookSecret: account.webhookSecret } : {}) };
  }
}

export class AccountListDto {
  @ApiProperty({ type: [AccountResponseDto] })
  accounts: AccountResponseDto[];

  @ApiProperty({ example: 1 })
  total: number;

  @ApiProperty({ example: 1 })
  current: number;

  @ApiProperty({ example: 20 })
  pageSize: number;
}

export class KeyResponseDto {
  @ApiProperty({ example: '01jd3k5m8q9r2s4t6v8w0x2y4z' })
  keyId: string;

  @ApiProperty({ description: 'First characters of the key, to recognise it', example: 'adn_3q2Xk9Zp' })
  prefix: string;

  @ApiProperty({ example: 'production frontend' })
  label: string;

  @ApiProperty({ example: 1767225600000 })
  createdAt: number;

  @ApiProperty({ nullable: true, type: Number, example: null, description: 'Revocation time, ms; null while active' })
  revokedAt: number | null;

  static from(key: ApiKey): KeyResponseDto {
    return { keyId: key.id, prefix: key.prefix, label: key.label, createdAt: key.createdAt, revokedAt: key.revokedAt };
  }
}

export class KeyListDto {
  @ApiProperty({ type: [KeyResponseDto] })
  keys: KeyResponseDto[];
}

export class ResultDto {
  @ApiProperty({ example: 'success' })
  result: string;
}
