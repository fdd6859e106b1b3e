import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { newId } from '../common/ids';
import { Conversion } from './entities/conversion.entity';

const DUPLICATE_KEY_CODES = new Set(['ER_DUP_ENTRY', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT']);

/** Every statement on the `conversions` table. */
@Injectable()
export class ConversionRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Fails with a duplicate key (see isDuplicateKey) when the click was credited already. */
  async insert(
    manager: EntityManager,
    advertiserId: string,
    messengerUserId: string,
    click: { id: string; campaignId: string } | null,
    now: number,
  ): Promise<void> {
    await manager.insert(Conversion, {
      id: newId(now),
      advertiserId,
      messengerUserId,
      clickId: click?.id ?? null,
      campaignId: click?.campaignId ?? null,
      createdAt: now,
    });
  }

  async countBetween(advertiserId: string, from: number, to: number): Promise<{ attributed: number; total: number }> {
    const rows: { attributed: number | string | null; total: number | string }[] = await this.dataSource.query(
      `SELECT COUNT(clickId) AS attributed, COUNT(*) AS total FROM conversions
       WHERE advertiserId = ? AND createdAt >= ? AND createdAt < ?`,
      [advertiserId, from, to],
    );
    return { attributed: Number(rows[0]?.attributed ?? 0), total: Number(rows[0]?.total ?? 0) };
  }
}

export function isDuplicateKey(error: unknown): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const code = (error as QueryFailedError & { driverError?: { code?: string } }).driverError?.code;
  return code !== undefined && DUPLICATE_KEY_CODES.has(code);
}
