import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../../database/column-types';

export const REWARD_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type RewardStatus = (typeof REWARD_STATUSES)[number];

/**
 * One reward a counted completion on a rewarded block earned, and the delivery of its callback
 * (docs/REWARDED_ADS.md). Its id is the callback's `eventId`, derived from the impression: one impression can never
 * hold two rows, whichever process counts it.
 */
@Entity('reward_deliveries')
@Index('idx_reward_deliveries_block', ['adBlockId', 'createdAt'])
@Index('idx_reward_deliveries_status', ['status', 'createdAt'])
export class RewardDelivery {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  eventId: string;

  @Column({ type: 'varchar', length: 26 })
  adBlockId: string;

  /** The block's owner, whose webhook secret signs the callback. */
  @Column({ type: 'varchar', length: 26 })
  publisherId: string;

  @Column({ type: 'varchar', length: 128 })
  messengerUserId: string;

  @Column({ type: 'varchar', length: 26 })
  campaignId: string;

  @Column({ type: 'varchar', length: 64 })
  adId: string;

  @Column({ type: 'varchar', length: 16 })
  status: RewardStatus;

  @Column({ type: 'int', default: 0 })
  attempts: number;

  @Column({ type: 'int', nullable: true })
  lastStatusCode: number | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  lastError: string | null;

  /** When the completion was counted: the callback's `rewardedAt`. */
  @Column({ type: 'bigint', transformer: bigintToNumber })
  createdAt: number;

  @Column({ type: 'bigint', nullable: true, transformer: bigintToNumber })
  deliveredAt: number | null;

  /** Replays asked for: each is a job of its own (its id carries the count). */
  @Column({ type: 'int', default: 0 })
  replays: number;
}

/** Rewards granted per (block, user, UTC day): the daily cap's counter, raised only while under the cap. */
@Entity('reward_day_counts')
export class RewardDayCount {
  @PrimaryColumn({ type: 'varchar', length: 26 })
  adBlockId: string;

  @PrimaryColumn({ type: 'varchar', length: 128 })
  messengerUserId: string;

  @PrimaryColumn({ type: 'varchar', length: 10 })
  day: string;

  @Column({ type: 'int', default: 0 })
  rewards: number;
}
