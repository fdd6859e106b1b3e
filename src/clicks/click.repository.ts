import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { DayPartitionedTable } from '../database/day-partitions';
import type { Queryable } from '../database/queryable';
import { OwnsEventTables, type EventTablesOwner } from '../retention/event-tables';
import type { ClickStore, ClickToVerify } from './click-store';
import { Click } from './entities/click.entity';

const CLICK_COLUMNS = [
  'id',
  'campaignId',
  'advertiserId',
  'adBlockId',
  'adId',
  'messengerUserId',
  'costMicros',
  'earningsMicros',
  'createdAt',
  'verificationStatus',
  'status',
  'invalidReason',
  'clickToken',
] as const;

/** Ids per `IN (...)` list. */
const ID_SLICE = 500;

/** Every statement on the `clicks` table. */
@Injectable()
@OwnsEventTables()
export class ClickRepository implements ClickStore, EventTablesOwner {
  private readonly days: DayPartitionedTable;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.days = new DayPartitionedTable(dataSource, { table: 'clicks', partitionColumn: 'createdAt', timeColumn: 'createdAt' });
  }

  eventTables(): DayPartitionedTable[] {
    return [this.days];
  }

  /** One multi-row INSERT: the ORM's per-entity insert cost more than the rest of a click's write. */
  async insertMany(into: Queryable, clicks: Click[]): Promise<void> {
    const row = `(${CLICK_COLUMNS.map(() => '?').join(', ')})`;
    await into.query(
      `INSERT INTO clicks (${CLICK_COLUMNS.join(', ')}) VALUES ${clicks.map(() => row).join(', ')}`,
      clicks.flatMap((click) => CLICK_COLUMNS.map((column) => click[column] ?? defaultOf(column))),
    );
  }

  async committedIds(ids: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (let i = 0; i < ids.length; i += ID_SLICE) {
      const slice = ids.slice(i, i + ID_SLICE);
      const rows: { id: string }[] = await this.dataSource.query(`SELECT id FROM clicks WHERE id IN (${slice.map(() => '?').join(', ')})`, slice);
      for (const row of rows) found.add(row.id);
    }
    return found;
  }

  /**
   * The click that kept this click id, if it is a counted click of this advertiser made since `since` (the id's serve
   * time bounds the days read).
   */
  async countedByToken(
    manager: EntityManager,
    clickToken: string,
    servedAt: number,
    advertiserId: string,
    since: number,
  ): Promise<Pick<Click, 'id' | 'campaignId' | 'adBlockId' | 'createdAt' | 'messengerUserId'> | null> {
    return manager
      .getRepository(Click)
      .createQueryBuilder('click')
      .select(['click.id', 'click.campaignId', 'click.adBlockId', 'click.createdAt', 'click.messengerUserId'])
      .where('click.clickToken = :clickToken AND click.createdAt >= :from AND click.advertiserId = :advertiserId', {
        clickToken,
        from: Math.max(servedAt, since),
        advertiserId,
      })
      .andWhere("click.status = 'counted'")
      .getOne();
  }

  async latestCounted(
    manager: EntityManager,
    messengerUserId: string,
    advertiserId: string,
    since: number,
  ): Promise<Pick<Click, 'id' | 'campaignId' | 'adBlockId' | 'createdAt'> | null> {
    return (
      manager
        .getRepository(Click)
        .createQueryBuilder('click')
        .select(['click.id', 'click.campaignId', 'click.adBlockId', 'click.createdAt'])
        .where('click.messengerUserId = :messengerUserId AND click.advertiserId = :advertiserId AND click.createdAt >= :since', {
          messengerUserId,
          advertiserId,
          since,
        })
        // unbilled and invalid clicks are never credited (docs/TRUST_AND_SAFETY.md)
        .andWhere("click.status = 'counted'")
        .orderBy('click.createdAt', 'DESC')
        .addOrderBy('click.id', 'DESC')
        .getOne()
    );
  }

  async latestVerificationStatus(campaignId: string, messengerUserId: string, publisherId: string | null): Promise<string | null> {
    const rows: { verificationStatus: string }[] = await this.dataSource.query(
      `SELECT c.verificationStatus FROM clicks c JOIN ad_blocks b ON b.id = c.adBlockId
       WHERE c.campaignId = ? AND c.messengerUserId = ? AND c.status = 'counted' ${publisherId === null ? '' : 'AND b.accountId = ?'}
       ORDER BY c.createdAt DESC, c.id DESC LIMIT 1`,
      publisherId === null ? [campaignId, messengerUserId] : [campaignId, messengerUserId, publisherId],
    );
    return rows[0]?.verificationStatus ?? null;
  }

  /** The campaign's verification URL and the advertiser's webhook secret come along: the call needs both. */
  async findToVerify(clickId: string): Promise<ClickToVerify | undefined> {
    const rows: ClickToVerify[] = await this.dataSource.query(
      `SELECT c.id, c.campaignId, c.adBlockId, c.messengerUserId, c.createdAt, c.verificationStatus,
              p.verificationUrl, a.webhookSecret
       FROM clicks c JOIN campaigns p ON p.id = c.campaignId JOIN accounts a ON a.id = c.advertiserId
       WHERE c.id = ?`,
      [clickId],
    );
    return rows[0];
  }

  async recordVerificationTry(clickId: string, attempts: number, error: string | null): Promise<void> {
    await this.dataSource
      .createQueryBuilder()
      .update(Click)
      .set({ verificationAttempts: attempts, verificationError: error })
      .where('id = :id AND verificationStatus = :pending', { id: clickId, pending: 'pending' })
      .execute();
  }

  async settleVerification(
    manager: EntityManager,
    clickId: string,
    outcome: { status: string; attempts: number; error: string | null; verifiedAt: number },
  ): Promise<boolean> {
    const updated = await manager
      .createQueryBuilder()
      .update(Click)
      .set({ verificationStatus: outcome.status, verificationAttempts: outcome.attempts, verificationError: outcome.error, verifiedAt: outcome.verifiedAt })
      .where('id = :id AND verificationStatus = :pending', { id: clickId, pending: 'pending' })
      .execute();
    return Boolean(updated.affected);
  }

  async pendingSince(before: number, limit: number): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT id FROM clicks WHERE verificationStatus = 'pending' AND createdAt < ? ORDER BY createdAt LIMIT ${Math.trunc(limit)}`,
      [before],
    );
    return rows.map((row) => row.id);
  }

  async verificationStatusCounts(campaignId: string): Promise<Map<string, number>> {
    const rows: { verificationStatus: string; count: number | string }[] = await this.dataSource.query(
      'SELECT verificationStatus, COUNT(*) AS count FROM clicks WHERE campaignId = ? GROUP BY verificationStatus',
      [campaignId],
    );
    return new Map(rows.map((row) => [row.verificationStatus, Number(row.count)]));
  }
}

function defaultOf(column: (typeof CLICK_COLUMNS)[number]): string | number | null {
  if (column === 'verificationStatus') return 'none';
  if (column === 'status') return 'counted';
  if (column === 'invalidReason' || column === 'clickToken') return null;
  return 0;
}
