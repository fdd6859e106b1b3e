import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../../database/column-types';

/** Exchange counters per campaign and UTC hour: the source of the series; their sums equal the campaign totals. */
@Entity('exchange_stats_hourly')
export class ExchangeStatsHourly {
  @PrimaryColumn({ type: 'varchar', length: 26 })
  exchangeCampaignId: string;

  /** Start of the UTC hour, ms since epoch. */
  @PrimaryColumn({ type: 'bigint', transformer: bigintToNumber })
  hour: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  impressions: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  impressionsSent: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  clicksSent: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  clicksReceived: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  conversions: number;
}
