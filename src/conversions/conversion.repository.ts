import { Inject, Injectable } from '@nestjs/common';
import { CONVERSIONS_CONFIG, ConversionsConfig } from './conversions.config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { DAY_MS } from '../common/clock';
import { newId } from '../common/ids';
import { DayPartitionedTable } from '../database/day-partitions';
import { OwnsEventTables, type EventTablesOwner } from '../retention/event-tables';
import { Conversion } from './entities/conversion.entity';
import { ConversionTransaction } from './entities/conversion-transaction.entity';
import type { EventType } from './event-types';

export interface AttributionCount {
  eventType: EventType;
  attributed: number;
  total: number;
}

/** Every statement on the `conversions` table: conversions and custom events alike. */
@Injectable()
@OwnsEventTables()
export class ConversionRepository implements EventTablesOwner {
  private readonly days: DayPartitionedTable;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(CONVERSIONS_CONFIG) config: ConversionsConfig,
  ) {
    // A row comes up to the attribution window after the click whose day it is kept in.
    const lagMs = () => config.attributionDays * DAY_MS;
    this.days = new DayPartitionedTable(dataSource, { table: 'conversions', partitionColumn: 'partitionAt', timeColumn: 'createdAt', lagMs });
  }

  eventTables(): DayPartitionedTable[] {
    return [this.days];
  }

  /** Fails with a duplicate key (see isDuplicateKey) when the click was credited with this event type already. */
  async insert(
    manager: EntityManager,
    event: { advertiserId: string; messengerUserId: string; eventType: EventType },
    click: { id: string; campaignId: string; createdAt: number } | null,
    now: number,
  ): Promise<void> {
    await manager.insert(Conversion, {
      id: newId(now),
      advertiserId: event.advertiserId,
      messengerUserId: event.messengerUserId,
      eventType: event.eventType,
      clickId: click?.id ?? null,
      campaignId: click?.campaignId ?? null,
      createdAt: now,
      partitionAt: click?.createdAt ?? now,
    });
  }

  /** Fails with a duplicate key (see isDuplicateKey) when this advertiser sent this transaction id for this event type. */
  async insertTransaction(manager: EntityManager, advertiserId: string, eventType: EventType, transactionId: string, now: number): Promise<void> {
    await manager.insert(ConversionTransaction, { advertiserId, eventType, transactionId, createdAt: now });
  }

  /** The advertiser's events in [from, to) per type, attributed and in all; types without any are left out. */
  async countBetween(advertiserId: string, from: number, to: number): Promise<AttributionCount[]> {
    const rows: { eventType: EventType; attributed: number | string | null; total: number | string }[] = await this.dataSource.query(
      `SELECT eventType, COUNT(clickId) AS attributed, COUNT(*) AS total FROM conversions
       WHERE advertiserId = ? AND createdAt >= ? AND createdAt < ? GROUP BY eventType`,
      [advertiserId, from, to],
    );
    return rows.map((row) => ({ eventType: row.eventType, attributed: Number(row.attributed ?? 0), total: Number(row.total) }));
  }
}
