import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../../database/column-types';
import { EventCounters } from '../../database/counter-columns';

/**
 * Counters per campaign, ad block and UTC hour: the source of the charts and of the totals in list and detail.
 * Exchange and conversion rows use an empty adBlockId.
 */
@Entity('stats_hourly')
@Index('idx_stats_block_hour', ['adBlockId', 'hour'])
export class StatsHourly extends EventCounters {
  @PrimaryColumn({ type: 'varchar', length: 26 })
  campaignId: string;

  @PrimaryColumn({ type: 'varchar', length: 26 })
  adBlockId: string;

  /** Start of the UTC hour, ms since epoch. */
  @PrimaryColumn({ type: 'bigint', transformer: bigintToNumber })
  hour: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  spendMicros: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  earningsMicros: number;
}
