import type { Pacing } from '../pacing';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../../database/column-types';
import { EventCounters } from '../../database/counter-columns';
import type { EventType } from '../../conversions/event-types';
import type { CampaignCategory } from '../categories';

export const CAMPAIGN_STATUSES = ['inReview', 'onGoing', 'paused', 'ended'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const REVIEW_STATUSES = ['approved', 'pending', 'rejected'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** A creative as the ad columns hold it: a revision waiting for review keeps its own (docs/CONTRACT.md §18). */
export interface CampaignCreative {
  adFormat: string;
  popupImage: string;
  icon: string;
  actionType: string;
  destinationUrl: string;
  text: string;
  brandName: string;
  buttonText: string;
  /**
   * Reviewed with the creative: a block's blocked categories rely on it, so an approved campaign cannot leave a
   * category by an edit nobody saw. Absent in revisions stored before it was reviewed (then: unchanged).
   */
  category?: CampaignCategory;
}

export interface CampaignTargeting {
  includedRegions: string[];
  excludedRegions: string[];
  includedLanguages: string[];
  excludedLanguages: string[];
  platform: string;
  messengerPremium: boolean;
  isHighValueUser: boolean;
  userLinkedChainWallet: boolean;
  userLinkedWallet: boolean;
  userWalletHasBalanceOnChain: boolean;
}

@Entity('campaigns')
@Index('idx_campaigns_account', ['accountId', 'id'])
@Index('idx_campaigns_status_id', ['status', 'id'])
@Index('idx_campaigns_review', ['reviewStatus', 'reviewRequestedAt'])
export class Campaign extends EventCounters {
  /** Time-ordered, so `ORDER BY id DESC` is newest first. */
  @PrimaryColumn({ type: 'varchar', length: 26 })
  id: string;

  @Column({ type: 'varchar', length: 26 })
  accountId: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 16 })
  status: CampaignStatus;

  /** Set when the campaign may serve without review: at creation, or when an admin approves it. */
  @Column({ type: 'boolean', default: true })
  approved: boolean;

  @Column({ type: 'simple-json' })
  targeting: CampaignTargeting;

  @Column({ type: 'bigint', transformer: bigintToNumber })
  dailyBudgetMicros: number;

  @Column({ type: 'bigint', transformer: bigintToNumber })
  totalBudgetMicros: number;

  @Column({ type: 'varchar', length: 16 })
  budgetStrategy: string;

  @Column({ type: 'bigint', transformer: bigintToNumber })
  startTime: number;

  @Column({ type: 'bigint', transformer: bigintToNumber })
  endTime: number;

  @Column({ type: 'varchar', length: 8 })
  billingType: 'CPM' | 'CPC';

  /** The bid in micro-USDT: per 1000 impressions for CPM, per click for CPC. */
  @Column({ type: 'bigint', transformer: bigintToNumber })
  costPerMicros: number;

  @Column({ type: 'varchar', length: 16 })
  adFormat: string;

  @Column({ type: 'varchar', length: 2048 })
  popupImage: string;

  @Column({ type: 'varchar', length: 2048 })
  icon: string;

  @Column({ type: 'varchar', length: 32 })
  actionType: string;

  @Column({ type: 'varchar', length: 2048 })
  destinationUrl: string;

  @Column({ type: 'varchar', length: 1000 })
  text: string;

  @Column({ type: 'varchar', length: 100 })
  brandName: string;

  @Column({ type: 'varchar', length: 50 })
  buttonText: string;

  /** What it advertises: ad blocks may refuse a category (docs/CONTRACT.md §18). */
  @Column({ type: 'varchar', length: 16, default: 'other' })
  category: CampaignCategory;

  /** Creative review (docs/CONTRACT.md §18): a new campaign or a revision `pending`, the last decision otherwise. */
  @Column({ type: 'varchar', length: 16, default: 'approved' })
  reviewStatus: ReviewStatus;

  /** The admin's note on the last rejection; '' when none. */
  @Column({ type: 'varchar', length: 1000, default: '' })
  reviewNote: string;

  /** A revision's creative waiting for review, while the ad columns keep serving the approved one; null: none. */
  @Column({ type: 'simple-json', nullable: true })
  pendingAd: CampaignCreative | null;

  /** Since when it waits for review (ms); 0 when nothing waits. */
  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  reviewRequestedAt: number;

  /** The event the campaign's `conversions` and `cr` show, and its event-rate estimate is about. */
  @Column({ type: 'varchar', length: 16, default: 'conversion' })
  optimizationEvent: EventType;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  spentMicros: number;

  /** Spend of the budget day `spentDay` (its key, see BudgetDay); a different day means nothing spent today yet. */
  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  daySpentMicros: number;

  @Column({ type: 'varchar', length: 10, default: '' })
  spentDay: string;

  /** How the daily budget is spent over the day (src/campaigns/pacing.ts). */
  @Column({ type: 'varchar', length: 8, default: 'even' })
  pacing: Pacing;

  /**
   * The owner account's zone schedule, copied from it (at create and at every change of it) so that every reader of
   * a campaign row knows its budget day without reading the account (src/common/time-zone.ts).
   */
  @Column({ type: 'varchar', length: 64, default: 'UTC' })
  timeZone: string;

  @Column({ type: 'varchar', length: 64, nullable: true })
  nextTimeZone: string | null;

  @Column({ type: 'bigint', nullable: true, transformer: bigintToNumber })
  timeZoneChangesAt: number | null;

  /** Bumped by every edit and status change: concurrent writers compare it, so none overwrites another. */
  @Column({ type: 'int', default: 1 })
  version: number;

  /** Advertiser-hosted endpoint 11, called after each counted click (docs/CONTRACT.md §7); null when not set. */
  @Column({ type: 'varchar', length: 2048, nullable: true })
  verificationUrl: string | null;

  /** Frequency cap: at most this many impressions per user within any `frequencyCapHours`; both null when uncapped. */
  @Column({ type: 'int', nullable: true })
  frequencyCapImpressions: number | null;

  @Column({ type: 'int', nullable: true })
  frequencyCapHours: number | null;

  @Column({ type: 'bigint', transformer: bigintToNumber })
  createdAt: number;

  @Column({ type: 'bigint', transformer: bigintToNumber })
  updatedAt: number;
}
