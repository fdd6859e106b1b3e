import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../../database/column-types';

/**
 * Counters per campaign, ad block and UTC hour: the source of the charts and of the totals in list and detail.
 * Exchange and conversion rows use an empty adBlockId.
 */
@Entity('stats_hourly')
@Index('idx_stats_block_hour', ['adBlockId', 'hour'])
export class StatsHourly {
  @PrimaryColumn({ type: 'varchar', length: 26 })
  campaignId: string;

  @PrimaryColumn({ type: 'varchar', length: 26 })
  adBlockId: string;

  /** Start of the UTC hour, ms since epoch. */
  @PrimaryColumn({ type: 'bigint', transformer: bigintToNumber })
  hour: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  impressions: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  clicks: number;

  /** Attributed events per type (docs/CONTRACT.md §13), in the hour they were reported; `conversions` is endpoint 7's. */
  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  conversions: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  onboardEvents: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  registerEvents: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  playEvents: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  paymentEvents: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  withdrawEvents: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  verifiedClicks: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  spendMicros: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  earningsMicros: number;

  /** Clicks on a campaign that was not billable when they arrived (paused, ended, out of its window or budget). */
  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  unbilledClicks: number;

  /** General invalid traffic (docs/TRUST_AND_SAFETY.md): answered as usual, never billed, counted apart. */
  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  invalidClicks: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  invalidImpressions: number;

  /** Views the ton-ai-sdk reported: at most one per served impression, never billed (docs/CONTRACT.md §14). */
  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  views: number;
}
