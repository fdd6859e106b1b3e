import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../../database/column-types';

/**
 * The report rollup (docs/CONTRACT.md §19): the counters of `stats_hourly` split further by the viewer's country and
 * platform, per campaign, ad block and UTC hour. Written by StatsRepository in the same statement batch as the
 * `stats_hourly` rows it splits, so for any campaign, block and hour the sums over country and platform equal the
 * `stats_hourly` row. Conversions, custom events and verified clicks (reported by the advertiser's server) carry no
 * country or platform: `''`, reported as `unknown`. Kept REPORT_RETENTION_DAYS (on MySQL partitioned by day of
 * `hour`, docs/SCALING.md).
 *
 * The counter columns are declared here one by one (not inherited from `EventCounters`), so a counter added to the
 * other counter tables comes here only with a migration of its own.
 */
@Entity('stats_report_hourly')
@Index('idx_report_block_hour', ['adBlockId', 'hour'])
@Index('idx_report_hour', ['hour'])
export class StatsReportHourly {
  @PrimaryColumn({ type: 'varchar', length: 26 })
  campaignId: string;

  /** Empty for events reported off the publisher's app (conversions, custom events). */
  @PrimaryColumn({ type: 'varchar', length: 26 })
  adBlockId: string;

  /** Start of the UTC hour, ms since epoch. */
  @PrimaryColumn({ type: 'bigint', transformer: bigintToNumber })
  hour: number;

  /** ISO 3166-1 alpha-2 code of the viewer's country, `''` when unknown. */
  @PrimaryColumn({ type: 'varchar', length: 2 })
  country: string;

  /** `iOS`, `Android`, `Desktop`, `''` when unknown. */
  @PrimaryColumn({ type: 'varchar', length: 8 })
  platform: string;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  impressions: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  clicks: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  unbilledClicks: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  invalidClicks: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  invalidImpressions: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  views: number;

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

  /** Rewarded ads watched to the end: reported by the app without the viewer's facts, so under `''` (unknown). */
  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  completions: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  spendMicros: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  earningsMicros: number;
}
