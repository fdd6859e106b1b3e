import { Column } from 'typeorm';
import { bigintToNumber } from './column-types';

/**
 * The traffic counters of campaigns, ad blocks and hourly stats, declared once. They are running totals of the event
 * pipeline, written only by the stats writer (the one writer of every counter column, docs/ARCHITECTURE.md, "Who owns
 * which table"); a feature's own edits never write them.
 */
export abstract class TrafficCounters {
  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  impressions: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  clicks: number;

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

  /** Completed views of served impressions (endpoint 6's `complete`, docs/REWARDED_ADS.md): one per impression. */
  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  completions: number;

  /** Counted completions on rewarded blocks past the block's dailyRewardCap for that user: no reward was sent. */
  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  rewardsCapped: number;
}

/** The traffic counters and the attributed events (campaigns and hourly stats; blocks count no events). */
export abstract class EventCounters extends TrafficCounters {
  /** Attributed events per type (docs/CONTRACT.md §13); `conversions` counts the conversions of endpoint 7. */
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

  /** Clicks the advertiser's verification URL confirmed (docs/CONTRACT.md §7). */
  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  verifiedClicks: number;
}

type Counts<T> = { [K in keyof T]: number };

/** Every traffic counter at zero: a new row's totals. */
export function zeroTrafficCounters(): Counts<TrafficCounters> {
  return { impressions: 0, clicks: 0, unbilledClicks: 0, invalidClicks: 0, invalidImpressions: 0, views: 0, completions: 0, rewardsCapped: 0 };
}

/** Every traffic and event counter at zero. */
export function zeroEventCounters(): Counts<EventCounters> {
  return {
    ...zeroTrafficCounters(),
    conversions: 0,
    onboardEvents: 0,
    registerEvents: 0,
    playEvents: 0,
    paymentEvents: 0,
    withdrawEvents: 0,
    verifiedClicks: 0,
  };
}
