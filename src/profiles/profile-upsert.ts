import type { ProfileRecordDto, WalletClass } from './dto/profile.dto';

/**
 * A record as stored in the batch and upserted: a key that is absent keeps the stored value, a key set to null
 * clears it. `walletClassify` travels with `walletAddress` (validation makes sure of it).
 */
export interface ProfileRow {
  messengerUserId: string;
  ipAddress?: string | null;
  walletAddress?: string | null;
  walletClassify?: WalletClass | null;
  isPremium?: boolean | null;
  isHighValue?: boolean | null;
  walletHasBalance?: boolean | null;
  language?: string | null;
}

export const PROFILE_COLUMNS = ['ipAddress', 'walletAddress', 'walletClassify', 'isPremium', 'isHighValue', 'walletHasBalance', 'language'] as const;
export type ProfileColumn = (typeof PROFILE_COLUMNS)[number];
export const BOOLEAN_COLUMNS = new Set<ProfileColumn>(['isPremium', 'isHighValue', 'walletHasBalance']);

export function toProfileRow(record: ProfileRecordDto): ProfileRow {
  const row: ProfileRow = { messengerUserId: record.messengerUserId };
  if (record.ipAddress !== undefined) row.ipAddress = record.ipAddress;
  if (record.walletAddress !== undefined) {
    row.walletAddress = record.walletAddress;
    // removing the wallet removes its class; giving one requires it (validated)
    row.walletClassify = record.walletAddress === null ? null : (record.walletClassify ?? null);
  }
  if (record.isPremium !== undefined) row.isPremium = record.isPremium;
  if (record.isHighValue !== undefined) row.isHighValue = record.isHighValue;
  if (record.walletHasBalance !== undefined) row.walletHasBalance = record.walletHasBalance;
  if (record.language !== undefined) row.language = record.language === null ? null : record.language.toLowerCase();
  return row;
}

/** Bit of each optional column in `lastFields`: which fields the row's last upload carried. */
export function fieldMask(row: ProfileRow): number {
  let mask = 0;
  PROFILE_COLUMNS.forEach((column, i) => {
    if (row[column] !== undefined) mask |= 1 << i;
  });
  return mask;
}
