import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../../database/column-types';

/**
 * One conversion a partner reported for a user its exchange campaigns received (docs/CONTRACT.md §14). Attributed
 * ones name the exchange click (and its promoted campaign) they were credited to, each click at most once (unique
 * exchangeClickId, with the click's time, which one click always gives the same); unattributed ones keep both null.
 * On MySQL the primary key is (id, partitionAt) and the table is partitioned by day of partitionAt (docs/SCALING.md).
 */
@Entity('exchange_conversions')
@Index('uq_exchange_conversions_click', ['exchangeClickId', 'partitionAt'], { unique: true })
@Index('idx_exchange_conversions_partner_time', ['partnerId', 'createdAt'])
export class ExchangeConversion {
  @PrimaryColumn({ type: 'varchar', length: 26 })
  id: string;

  /** The reporting partner: the owner of the campaign that received the user. */
  @Column({ type: 'varchar', length: 26 })
  partnerId: string;

  @Column({ type: 'varchar', length: 128 })
  messengerUserId: string;

  @Column({ type: 'varchar', length: 26, nullable: true })
  exchangeClickId: string | null;

  /** The promoted (in) campaign of the credited click. */
  @Column({ type: 'varchar', length: 26, nullable: true })
  exchangeCampaignId: string | null;

  @Column({ type: 'bigint', transformer: bigintToNumber })
  createdAt: number;

  /** The credited exchange click's createdAt, else this row's own: the day partition it lives in. */
  @Column({ type: 'bigint', transformer: bigintToNumber })
  partitionAt: number;
}
