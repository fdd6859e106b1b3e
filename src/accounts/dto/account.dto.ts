import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsOptional, IsString, Matches } from 'class-validator';
import { IsOneOf, IsText, IsTimeZone, MaxChars, IdField } from '../../common/validators';
import { Account, Role, ROLES } from '../entities/account.entity';
import { ApiKey } from '../entities/api-key.entity';
import { KEY_SCOPES, KeyScope, MAX_ALLOWED_ORIGINS, ORIGIN_PATTERN } from '../key-access';
import { PageDto } from '../../common/paging.dto';
import { withFields } from '../../common/with-fields';
import { currentSchedule } from '../../common/time-zone';

const TIME_ZONE_DESCRIPTION =
  "IANA time zone of the account's days: daily budgets, spentToday and day series run from local midnight to local " +
  'midnight (23 or 25 hours across a daylight-saving change)';

export class AccountCreateDto {
  @ApiProperty({ description: 'Display name of the account', example: 'Acme Games', maxLength: 200 })
  @IsText(200)
  name: string;

  @ApiProperty({ description: 'Roles of the account', enum: ROLES, isArray: true, example: ['advertiser'] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(ROLES.length)
  @IsOneOf(ROLES, { each: true })
  roles: Role[];

  @ApiPropertyOptional({ description: TIME_ZONE_DESCRIPTION, example: 'Europe/Berlin', default: 'UTC' })
  @IsOptional()
  @IsTimeZone()
  timeZone?: string;
}

export class AccountUpdateDto {
  @ApiProperty({
    description: `${TIME_ZONE_DESCRIPTION}. A change applies from the next local midnight of the zone in force (answered as \`nextTimeZone\` and \`timeZoneChangesAt\` until then), so today keeps its budget`,
    example: 'Asia/Tokyo',
  })
  @IsTimeZone()
  timeZone: string;
}

export class KeyCreateDto {
  @ApiPropertyOptional({
    description:
      '`full` (default): everything the account may do. `serve`: a publishable key, safe to embed in a frontend: it may only ' +
      "fetch ads and report clicks (matching/ad, ad/event/report, matching/exchange, exchange/event/report) on the account's " +
      'own blocks and exchange campaigns; anything else answers 403',
    enum: KEY_SCOPES,
    default: 'full',
    example: 'serve',
  })
  @IsOptional()
  @IsOneOf(KEY_SCOPES)
  scope?: KeyScope;

  @ApiPropertyOptional({ description: 'A label to tell keys apart', example: 'production frontend', maxLength: 100 })
  @IsOptional()
  @IsString()
  @MaxChars(100)
  label?: string;

  @ApiPropertyOptional({
    description:
      `Exact browser origins (\`http(s)://host[:port]\`, no path; at most ${MAX_ALLOWED_ORIGINS}) the key may be used from: a ` +
      'request whose `Origin` header is another answers 403; a request without `Origin` (not from a browser) is allowed. ' +
      'Absent or empty: any origin',
    type: [String],
    example: ['https://app.example.com'],
  })
  @IsOptional()
  @IsArray({ message: '$property must be an array of origins' })
  @ArrayMaxSize(MAX_ALLOWED_ORIGINS, { message: `$property must hold at most ${MAX_ALLOWED_ORIGINS} origins` })
  @IsString({ each: true })
  @MaxChars(200, { each: true })
  @Matches(ORIGIN_PATTERN, {
    each: true,
    message: 'each value in $property must be an origin like https://app.example.com (scheme, host and optional port, no path)',
  })
  allowedOrigins?: string[];
}

export class KeyRevokeDto {
  @IdField('The id of one of your keys')
  keyId: string;
}

export class AccountCreatedDto {
  @ApiProperty({ example: '01jd3k5m8q9r2s4t6v8w0x2y4z' })
  accountId: string;

  @ApiProperty({ description: 'The first API key: shown this once, stored only as a hash', example: 'adn_3q2…' })
  apiKey: string;
}

export class KeyCreatedDto {
  @ApiProperty({ description: 'Not secret: the key is listed and revoked by this id', example: '01jd3k5m8q9r2s4t6v8w0x2y4z' })
  keyId: string;

  @ApiProperty({ description: 'The key: shown this once, stored only as a hash', example: 'adn_3q2…' })
  apiKey: string;

  @ApiProperty({ enum: KEY_SCOPES, example: 'serve' })
  scope: KeyScope;
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

  @ApiProperty({ description: 'The IANA time zone whose days are in force now', example: 'Europe/Berlin' })
  timeZone: string;

  @ApiProperty({ nullable: true, type: String, description: 'A zone asked for that applies from `timeZoneChangesAt`; null when none waits', example: null })
  nextTimeZone: string | null;

  @ApiProperty({ nullable: true, type: Number, description: 'When `nextTimeZone` applies (ms): a local midnight of `timeZone`', example: null })
  timeZoneChangesAt: number | null;

  static from(account: Account, now = Date.now()): AccountResponseDto {
    const schedule = currentSchedule(account, now);
    return { accountId: account.id, name: account.name, roles: account.roleList, createdAt: account.createdAt, ...schedule };
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

  @ApiPropertyOptional({
    description:
      'Advertisers: names your account in server-to-server postback URLs (`GET /api/v2/openapi/postback?token=…&clickId=…`); it can only report ' +
      'conversions. Rotate it with `POST account/postback-token/rotate`',
    example: 'pbt_Zx3kq0a8VtL0pXy7BnC5dFgHjKr2Ws1e',
  })
  postbackToken?: string;

  static fromAccount(account: Account): AccountMeDto {
    const roles = account.roleList;
    const showSecret = roles.includes('advertiser') || roles.includes('publisher') || roles.includes('admin');
    const me: AccountMeDto = withFields(AccountResponseDto.from(account), showSecret ? { webhookSecret: account.webhookSecret } : {});
    return account.postbackToken ? withFields(me, { postbackToken: account.postbackToken }) : me;
  }
}

export class AccountListDto extends PageDto {
  @ApiProperty({ type: [AccountResponseDto] })
  accounts: AccountResponseDto[];
}

export class KeyResponseDto {
  @ApiProperty({ description: 'Not secret; no part of the key itself is stored in the clear', example: '01jd3k5m8q9r2s4t6v8w0x2y4z' })
  keyId: string;

  @ApiProperty({ enum: KEY_SCOPES, example: 'full' })
  scope: KeyScope;

  @ApiProperty({ example: 'production frontend' })
  label: string;

  @ApiProperty({ nullable: true, type: [String], example: ['https://app.example.com'], description: 'null: any origin' })
  allowedOrigins: string[] | null;

  @ApiProperty({ example: 1767225600000 })
  createdAt: number;

  @ApiProperty({ nullable: true, type: Number, example: null, description: 'Revocation time, ms; null while active' })
  revokedAt: number | null;

  @ApiProperty({ example: true })
  active: boolean;

  static from(key: ApiKey): KeyResponseDto {
    return {
      keyId: key.id,
      scope: key.scope,
      label: key.label,
      allowedOrigins: key.originList,
      createdAt: key.createdAt,
      revokedAt: key.revokedAt,
      active: key.revokedAt === null,
    };
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
