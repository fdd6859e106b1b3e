import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../../database/column-types';

/** How a click bound to an impression was counted (docs/TRUST_AND_SAFETY.md). */
export type ClickStatus = 'counted' | 'unbilled' | 'invalid';

/**
 * One click bound to an impression: the durable ledger behind click counts, CPC spend and attribution. Only
 * `counted` clicks are billed, in `clicks`, verified and attributable; the others are counted apart.
 */
@Entity('clicks')
@Index('idx_clicks_campaign_time', ['campaignId', 'createdAt'])
@Index('idx_clicks_user_time', ['messengerUserId', 'createdAt'])
// The workers' sweep for verifications whose job was lost reads pending clicks by age.
@Index('idx_clicks_verification_time', ['verificationStatus', 'createdAt'])
// A conversion or postback naming a click id finds its click (docs/CONTRACT.md §20).
@Index('idx_clicks_click_token', ['clickToken'])
export class Click {
  // MySQL's primary key is (id, createdAt): the table is partitioned by day of createdAt (docs/SCALING.md).
  @PrimaryColumn({ type: 'varchar', length: 26 })
  id: string;

  @Column({ type: 'varchar', length: 26 })
  campaignId: string;

  @Column({ type: 'varchar', length: 26 })
  advertiserId: string;

  @Column({ type: 'varchar', length: 26 })
  adBlockId: string;

  @Column({ type: 'varchar', length: 40 })
  adId: string;

  @Column({ type: 'varchar', length: 128 })
  messengerUserId: string;

  /** What this click cost the advertiser (CPC; 0 for CPM or once the budget is spent). */
  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  costMicros: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  earningsMicros: number;

  @Column({ type: 'bigint', transformer: bigintToNumber })
  createdAt: number;

  /** `counted` (billable campaign, valid traffic), `unbilled` (campaign not billable) or `invalid`. */
  @Column({ type: 'varchar', length: 16, default: 'counted' })
  status: ClickStatus;

  /** Why an `invalid` click is invalid: an invalid request's reason, `invalidImpression` or `tooSoon`. */
  @Column({ type: 'varchar', length: 32, nullable: true })
  invalidReason: string | null;

  /** `none` (campaign without verification URL), `pending`, `verified`, `unverified` or `error` (docs/CONTRACT.md §7). */
  @Column({ type: 'varchar', length: 16, default: 'none' })
  verificationStatus: string;

  @Column({ type: 'int', default: 0 })
  verificationAttempts: number;

  @Column({ type: 'varchar', length: 500, nullable: true })
  verificationError: string | null;

  @Column({ type: 'bigint', nullable: true, transformer: bigintToNumber })
  verifiedAt: number | null;

  /** The click id of the clicked impression (`{click_id}` in its destination URL), null when the URL had none. */
  @Column({ type: 'varchar', length: 40, nullable: true })
  clickToken: string | null;
}
