import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { ValidationError } from '../../common/errors';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  isIP,
  isISO6391,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  ValidateBy,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { IsOneOf, MaxChars, IdField } from '../../common/validators';
import { OpenApiAlias } from '../../common/open-api-aliases';

export const WALLET_CLASSES = ['primary', 'evm', 'alt'] as const;
export type WalletClass = (typeof WALLET_CLASSES)[number];
export const MAX_BATCH_RECORDS = 5000;
const MAX_USER_ID = 128;
const MAX_WALLET = 128;

/** The optional fields of a record; absent keeps the stored value, null clears it (docs/CONTRACT.md §8). */
export const OPTIONAL_PROFILE_FIELDS = ['ipAddress', 'walletAddress', 'isPremium', 'isHighValue', 'walletHasBalance', 'language'] as const;
export type OptionalProfileField = (typeof OPTIONAL_PROFILE_FIELDS)[number];

const isLanguage = (value: unknown) => typeof value === 'string' && isISO6391(value.toLowerCase());

/** One user profile record (interface: user profile record; docs/CONTRACT.md §8 extra booleans; `language` for serving). */
export class ProfileRecordDto {
  @ApiProperty({ description: "The user's unique id on the messaging platform (required)", example: '5012345678', maxLength: MAX_USER_ID })
  @IsString()
  @IsNotEmpty({ message: '$property must not be empty' })
  @Matches(/\S/, { message: '$property must not be blank' })
  @MaxChars(MAX_USER_ID)
  @OpenApiAlias()
  messengerUserId: string;

  @ApiPropertyOptional({
    description: 'IPv4 or IPv6 address; its country is used for the region only when the ad request itself yields none. null clears it',
    example: '203.0.113.7',
    nullable: true,
    type: String,
  })
  @IsOptional()
  @IsString()
  @ValidateBy(
    { name: 'isIpAddress', validator: { validate: (value: unknown) => typeof value === 'string' && isIP(value) } },
    {
      message: '$property must be a valid IPv4 or IPv6 address',
    },
  )
  ipAddress?: string | null;

  @ApiPropertyOptional({
    description: 'Wallet address, 1 to 128 characters, no per-chain format check; needs walletClassify. null removes the wallet',
    example: 'EQD4FPq-PRDieyQKkizFTRtSDyucUIqrj0v_zXJmqaDp6_0t',
    nullable: true,
    type: String,
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty({ message: '$property must not be empty' })
  @MaxChars(MAX_WALLET)
  walletAddress?: string | null;

  @OpenApiAlias()
  @ApiPropertyOptional({
    description: 'Wallet class; required when walletAddress is given, and only with it',
    enum: WALLET_CLASSES,
    example: 'primary',
  })
  @ValidateIf((record: ProfileRecordDto) => typeof record.walletAddress === 'string' || (record.walletClassify !== undefined && record.walletClassify !== null))
  @IsOneOf(WALLET_CLASSES)
  @ValidateBy(
    { name: 'accompaniesWallet', validator: { validate: (_value, args) => typeof (args?.object as ProfileRecordDto).walletAddress === 'string' } },
    { message: '$property is only allowed with a walletAddress' },
  )
  walletClassify?: WalletClass | null;

  @ApiPropertyOptional({
    description: 'Premium membership on the messaging platform (targeting flag messengerPremium)',
    example: true,
    nullable: true,
    type: Boolean,
  })
  @IsOptional()
  @IsBoolean({ message: '$property must be true or false' })
  isPremium?: boolean | null;

  @ApiPropertyOptional({ description: 'High-value user (targeting flag isHighValueUser)', example: false, nullable: true, type: Boolean })
  @IsOptional()
  @IsBoolean({ message: '$property must be true or false' })
  isHighValue?: boolean | null;

  @ApiPropertyOptional({ description: 'The wallet holds a balance on chain (flag userWalletHasBalanceOnChain)', example: true, nullable: true, type: Boolean })
  @IsOptional()
  @IsBoolean({ message: '$property must be true or false' })
  walletHasBalance?: boolean | null;

  @ApiPropertyOptional({
    description: "The user's language, ISO 639-1 (stored lower-case); serving prefers it to Accept-Language. null clears it",
    example: 'en',
    nullable: true,
    type: String,
  })
  @IsOptional()
  @IsString()
  @ValidateBy({ name: 'isISO6391', validator: { validate: isLanguage } }, { message: '$property must be an ISO 639-1 code such as en' })
  language?: string | null;

  /**
   * Quick check (see FastAccepting): the record when it is plainly valid, built as class-transformer would
   * (unknown keys dropped), else null and the decorators word the errors.
   */
  static acceptFast(value: unknown): ProfileRecordDto | null {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
    const input = value as Record<string, unknown>;
    const { messengerUserId, ipAddress, walletAddress, walletClassify, isPremium, isHighValue, walletHasBalance, language } = input;
    if (typeof messengerUserId !== 'string' || messengerUserId.length === 0 || messengerUserId.length > MAX_USER_ID) return null;
    if (!/\S/.test(messengerUserId)) return null;
    if (ipAddress != null && !(typeof ipAddress === 'string' && isIP(ipAddress))) return null;
    if (walletAddress != null && !(typeof walletAddress === 'string' && walletAddress.length > 0 && walletAddress.length <= MAX_WALLET)) return null;
    if (typeof walletAddress === 'string') {
      if (!WALLET_CLASSES.includes(walletClassify as WalletClass)) return null;
    } else if (walletClassify != null) return null;
    for (const flag of [isPremium, isHighValue, walletHasBalance]) if (flag != null && typeof flag !== 'boolean') return null;
    if (language != null && !isLanguage(language)) return null;
    const record = new ProfileRecordDto();
    record.messengerUserId = messengerUserId;
    // Keys present in the input stay present (also with null): absent and null mean different things here.
    if ('ipAddress' in input) record.ipAddress = ipAddress as string | null | undefined;
    if ('walletAddress' in input) record.walletAddress = walletAddress as string | null | undefined;
    if ('walletClassify' in input) record.walletClassify = walletClassify as WalletClass | null | undefined;
    if ('isPremium' in input) record.isPremium = isPremium as boolean | null | undefined;
    if ('isHighValue' in input) record.isHighValue = isHighValue as boolean | null | undefined;
    if ('walletHasBalance' in input) record.walletHasBalance = walletHasBalance as boolean | null | undefined;
    if ('language' in input) record.language = language as string | null | undefined;
    return record;
  }
}

/** Body of endpoint 10. */
export class ProfileBatchDto {
  @ApiProperty({ type: [ProfileRecordDto], description: `1 to ${MAX_BATCH_RECORDS} profile records`, minItems: 1, maxItems: MAX_BATCH_RECORDS })
  @IsArray({ message: '$property must be an array of profile records' })
  @ArrayMinSize(1, { message: `$property must hold 1 to ${MAX_BATCH_RECORDS} records` })
  @ArrayMaxSize(MAX_BATCH_RECORDS, { message: `$property must hold 1 to ${MAX_BATCH_RECORDS} records` })
  @ValidateNested({ each: true })
  @Type(() => ProfileRecordDto)
  // class-validator would validate an array element as a list of records; refused here, naming its index
  @Transform(({ value }) => {
    const index = Array.isArray(value) ? value.findIndex((item) => Array.isArray(item)) : -1;
    if (index >= 0) throw ValidationError.of(`list.${index}`, 'must be an object');
    return value;
  })
  list: ProfileRecordDto[];

  /** Quick check of the whole batch: every record plainly valid, or null (the decorators then name the bad ones). */
  static acceptFast(value: unknown): ProfileBatchDto | null {
    if (typeof value !== 'object' || value === null) return null;
    const list = (value as Record<string, unknown>).list;
    if (!Array.isArray(list) || list.length < 1 || list.length > MAX_BATCH_RECORDS) return null;
    const records: ProfileRecordDto[] = new Array(list.length);
    for (let i = 0; i < list.length; i++) {
      const record = ProfileRecordDto.acceptFast(list[i]);
      if (record === null) return null;
      records[i] = record;
    }
    const batch = new ProfileBatchDto();
    batch.list = records;
    return batch;
  }
}

/** Query of the upload routes (JSON batch and CSV import). */
export class ProfileUploadQueryDto {
  @ApiPropertyOptional({
    description:
      "Admins only: the publisher account whose profiles the upload writes (they then target only that account's ad blocks). " +
      "Without it an upload writes the caller's own profiles; a publisher naming another account gets 403",
    example: '01jd3k5m8q9r2s4t6v8w0x2y4a',
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty({ message: '$property must not be empty' })
  @MaxChars(64)
  publisherId?: string;
}

export class ProfileBatchAcceptedDto {
  @ApiProperty({ description: 'Id of the batch; ask for its progress at user/profile/batch/status', example: '01jd3k5m8q9r2s4t6v8w0x2y4z' })
  batchId: string;
}

export class ProfileBatchStatusQueryDto {
  @IdField('The batchId answered by user/profile/batch')
  batchId: string;
}

export class ProfileBatchStatusDto {
  @ApiProperty({ example: '01jd3k5m8q9r2s4t6v8w0x2y4z' })
  batchId: string;

  @ApiProperty({
    enum: ['queued', 'processing', 'done', 'failed'],
    description: '`queued` also while waiting for a retry (see `attempts` and `error`); `failed` after the last try',
    example: 'done',
  })
  status: 'queued' | 'processing' | 'done' | 'failed';

  @ApiProperty({ description: 'Records in the batch', example: 5000 })
  total: number;

  @ApiProperty({ description: 'Records applied by the current (or last) try', example: 5000 })
  processed: number;

  @ApiProperty({ description: 'Tries started so far', example: 1 })
  attempts: number;

  @ApiProperty({ description: "The last try's error, null if none failed", example: null, nullable: true, type: String })
  error: string | null;

  @ApiProperty({ description: 'ms since epoch', example: 1767225600000 })
  createdAt: number;

  @ApiProperty({ description: 'When it became done or failed, ms since epoch', example: 1767225601000, nullable: true, type: Number })
  finishedAt: number | null;
}

export class ProfileCsvImportedDto {
  @ApiProperty({ description: `One batch per ${MAX_BATCH_RECORDS} rows, in file order`, type: [String], example: ['01jd3k5m8q9r2s4t6v8w0x2y4z'] })
  batchIds: string[];

  @ApiProperty({ description: 'Records read from the file', example: 12000 })
  total: number;
}

export class ProfileStoreRebuiltDto {
  @ApiProperty({ description: 'Profiles written to the serving store', example: 100000 })
  profiles: number;
}
