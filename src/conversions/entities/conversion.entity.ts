import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../../database/column-types';
import type { EventType } from '../event-types';

/**
 * One reported conversion or custom event (docs/CONTRACT.md §13). Attributed ones name the click (and its campaign)
 * they were credited to; a click is credited at most once per event type (unique clickId, eventType and the click's
 * time, which one click always gives the same). Unattributed ones keep clickId and campaignId null and are shown apart.
 * On MySQL the primary key is (id, partitionAt) and the table is partitioned by day of partitionAt (docs/SCALING.md).
 */
@Entity('conversions')
@Index('uq_conversions_click_event', ['clickId', 'eventType', 'partitionAt'], { unique: true })
@Index('idx_conversions_advertiser_time', ['advertiserId', 'createdAt'])
export class Conversion {
  @PrimaryColumn({ type: 'varchar', length: 26 })
  id: string;

  @Column({ type: 'varchar', length: 26 })
  advertiserId: string;

  @Column({ type: 'varchar', length: 16, default: 'conversion' })
  eventType: EventType;

  @Column({ type: 'varchar', length: 128 })
  messengerUserId: string;

  @Column({ type: 'varchar', length: 26, nullable: true })
  clickId: string | null;

  @Column({ type: 'varchar', length: 26, nullable: true })
  campaignId: string | null;

  @Column({ type: 'bigint', transformer: bigintToNumber })
  createdAt: number;

  /** The credited click's createdAt, else this row's own: the day partition it lives in. */
  @Column({ type: 'bigint', transformer: bigintToNumber })
  partitionAt: number;
}
