import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../../database/column-types';
import { TrafficCounters } from '../../database/counter-columns';
import type { AdBlockFormat } from '../reward-settings';

/** A publisher's ad spot: ads are fetched for it and its share of the spend is earned on it. */
@Entity('ad_blocks')
@Index('idx_ad_blocks_account', ['accountId', 'id'])
export class AdBlock extends TrafficCounters {
  @PrimaryColumn({ type: 'varchar', length: 26 })
  id: string;

  @Column({ type: 'varchar', length: 26 })
  accountId: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  /** Ad requests need a viewer token signed by the publisher's server (x-adnet-viewer, docs/SIGNED_VIEWERS.md). */
  @Column({ type: 'boolean', default: false })
  requireSignedViewer: boolean;

  /** Floor prices in micro-USDT (docs/CONTRACT.md §18): lower CPM (per 1000) / CPC bids are not served here; 0: none. */
  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  floorCpmMicros: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  floorCpcMicros: number;

  /** Campaign categories not served here; null: none. */
  @Column({ type: 'simple-json', nullable: true })
  blockedCategories: string[] | null;

  /** Destination host names (and their subdomains) not served here, lower-case; null: none. */
  @Column({ type: 'simple-json', nullable: true })
  blockedDomains: string[] | null;
  /** Rewarded-ad settings (docs/REWARDED_ADS.md). */
  @Column({ type: 'varchar', length: 16, default: 'banner' }) format: AdBlockFormat;
  @Column({ type: 'varchar', length: 2048, nullable: true }) rewardUrl: string | null;
  @Column({ type: 'int', default: 10000 }) minViewMs: number;
  @Column({ type: 'int', default: 20 }) dailyRewardCap: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  earningsMicros: number;

  @Column({ type: 'bigint', transformer: bigintToNumber })
  createdAt: number;
}
