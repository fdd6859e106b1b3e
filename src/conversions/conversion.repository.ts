import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { newId } from '../common/ids';
import { Conversion } from './entities/conversion.entity';
import type { EventType } from './event-types';

export interface AttributionCount {
  eventType: EventType;
  attributed: number;
  total: number;
}

/** Every statement on the `conversions` table: conversions and custom events alike. */
@Injectable()
export class ConversionRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Fails with a duplicate key (see isDuplicateKey) when the click was credited with this event type already. */
  async insert(
    manager: EntityManager,
    event: { advertiserId: string; messengerUserId: string; eventType: EventType },
    click: { id: string; campaignId: string } | null,
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
    });
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
