import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../../database/column-types';

/**
 * The `transactionId`s advertisers sent with conversions and custom events (docs/CONTRACT.md §20): a second event
 * with the same (advertiser, event type, transactionId) is answered `duplicate` and counts nothing. Written in the
 * transaction of the event it came with.
 */
@Entity('conversion_transactions')
export class ConversionTransaction {
  @PrimaryColumn({ type: 'varchar', length: 26 })
  advertiserId: string;

  @PrimaryColumn({ type: 'varchar', length: 16 })
  eventType: string;

  @PrimaryColumn({ type: 'varchar', length: 128 })
  transactionId: string;

  @Column({ type: 'bigint', transformer: bigintToNumber })
  createdAt: number;
}
