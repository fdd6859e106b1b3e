import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { Profile } from './entities/profile.entity';
import { ProfileRow, upsertStatement } from './profile-upsert';
import type { StoredProfileColumns } from './store/profile-store';

export type StoredProfile = StoredProfileColumns & { accountId: string; messengerUserId: string };

const SELECT_COLUMNS = 'accountId, messengerUserId, ipAddress, walletAddress, walletClassify, isPremium, isHighValue, walletHasBalance, language';

/** The `profiles` table: every statement on it, and its dialect differences, are here. */
@Injectable()
export class ProfilesRepository {
  private readonly dialect: 'mysql' | 'sqlite';

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
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
