import { Inject, Injectable } from '@nestjs/common';
import { DATABASE_CONFIG, DatabaseConfig } from '../database/database.config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Profile } from './entities/profile.entity';
import { BOOLEAN_COLUMNS, fieldMask, PROFILE_COLUMNS, ProfileRow } from './profile-upsert';
import type { StoredProfileColumns } from './store/profile-store';

export type StoredProfile = StoredProfileColumns & { accountId: string; messengerUserId: string };

const SELECT_COLUMNS = 'accountId, messengerUserId, ipAddress, walletAddress, walletClassify, isPremium, isHighValue, walletHasBalance, language';

/** The `profiles` table: every statement on it, and its dialect differences, are here. */
@Injectable()
export class ProfilesRepository {
  private readonly dialect: 'mysql' | 'sqlite';

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(DATABASE_CONFIG) config: DatabaseConfig,
  ) {
    this.dialect = config.database.type;
  }

  /** Writes one chunk of one publisher's records with one multi-row upsert statement. */
  async upsertChunk(accountId: string, rows: ProfileRow[], now: number): Promise<void> {
    const { sql, params } = upsertStatement(this.dialect, accountId, rows, now);
    await this.dataSource.query(sql, params);
  }

  /** The merged profiles of these users as this publisher uploaded them (one query). */
  findMerged(accountId: string, messengerUserIds: string[]): Promise<StoredProfile[]> {
    return this.dataSource.query(
      `SELECT ${SELECT_COLUMNS} FROM profiles WHERE accountId = ? AND messengerUserId IN (${messengerUserIds.map(() => '?').join(', ')})`,
      [accountId, ...messengerUserIds],
    );
  }

  /** Every profile in key order, one page after `after` (keyset paging: no OFFSET scan on a big table). */
  page(after: { accountId: string; messengerUserId: string } | null, size: number): Promise<StoredProfile[]> {
    const from = after ?? { accountId: '', messengerUserId: '' };
    return this.dataSource.query(
      `SELECT ${SELECT_COLUMNS} FROM profiles WHERE accountId > ? OR (accountId = ? AND messengerUserId > ?) ` +
        `ORDER BY accountId, messengerUserId LIMIT ${Number(size)}`,
      [from.accountId, from.accountId, from.messengerUserId],
    );
  }

  findOne(accountId: string, messengerUserId: string): Promise<Profile | null> {
    return this.dataSource.getRepository(Profile).findOne({ where: { accountId, messengerUserId } });
  }
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
