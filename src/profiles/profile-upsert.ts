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
const BOOLEAN_COLUMNS = new Set<ProfileColumn>(['isPremium', 'isHighValue', 'walletHasBalance']);

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

/**
 * One multi-row INSERT … ON DUPLICATE KEY UPDATE (MySQL) or INSERT … ON CONFLICT DO UPDATE (SQLite) for a chunk of
 * records of any shapes, all of one publisher (`accountId`): another publisher's profile of the same user is a
 * different row and is never touched. Each row carries its field mask (`lastFields`); an existing profile takes only the
 * columns the mask names and keeps the others, a new one gets null for the absent ones. Rows apply in order, so
 * a later record of the same user wins.
 */
export function upsertStatement(dialect: 'mysql' | 'sqlite', accountId: string, rows: ProfileRow[], now: number): { sql: string; params: unknown[] } {
  const q = (name: string) => (dialect === 'mysql' ? `\`${name}\`` : `"${name}"`);
  const columns = ['accountId', 'messengerUserId', ...PROFILE_COLUMNS, 'lastFields', 'updatedAt'];
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const params: unknown[] = [];
  for (const row of rows) {
    params.push(accountId, row.messengerUserId);
    for (const column of PROFILE_COLUMNS) {
      const value = row[column] ?? null;
      params.push(BOOLEAN_COLUMNS.has(column) && value !== null ? (value ? 1 : 0) : value);
    }
    params.push(fieldMask(row), now);
  }
  const incoming = (column: string) => (dialect === 'mysql' ? `VALUES(${q(column)})` : `excluded.${q(column)}`);
  const assignments = PROFILE_COLUMNS.map(
    (column, i) => `${q(column)} = CASE WHEN (${incoming('lastFields')} & ${1 << i}) <> 0 THEN ${incoming(column)} ELSE ${q(column)} END`,
  );
  assignments.push(`${q('lastFields')} = ${incoming('lastFields')}`, `${q('updatedAt')} = ${incoming('updatedAt')}`);
  const head = `INSERT INTO ${q('profiles')} (${columns.map(q).join(', ')}) VALUES ${rows.map(() => tuple).join(', ')}`;
  const sql =
    dialect === 'mysql'
      ? `${head} ON DUPLICATE KEY UPDATE ${assignments.join(', ')}`
      : `${head} ON CONFLICT(${q('accountId')}, ${q('messengerUserId')}) DO UPDATE SET ${assignments.join(', ')}`;
  return { sql, params };
}
