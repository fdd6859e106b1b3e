import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../../database/column-types';

/** A publisher's ad spot: ads are fetched for it and its share of the spend is earned on it. */
@Entity('ad_blocks')
@Index('idx_ad_blocks_account', ['accountId', 'id'])
export class AdBlock {
  @PrimaryColumn({ type: 'varchar', length: 26 })
  id: string;

  @Column({ type: 'varchar', length: 26 })
  accountId: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  /** Ad requests need a viewer token signed by the publisher's server (x-adnet-viewer, docs/SIGNED_VIEWERS.md). */
  @Column({ type: 'boolean', default: false })
  requireSignedViewer: boolean;

  /** Running totals kept by the event pipeline, like the campaign's. */
  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  impressions: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  clicks: number;

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

  @Column({ type: 'bigint', transformer: bigintToNumber })
  createdAt: number;
}
