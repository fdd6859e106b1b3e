import type { BudgetDay } from '../common/time-zone';
import type { Campaign } from './entities/campaign.entity';

/**
 * Delivery pacing (docs/CONTRACT.md §16): how a campaign spends its daily budget over its day. `even` keeps the
 * spend of the pacing period under a line that rises with the time elapsed; `asap` spends as fast as traffic allows.
 */
export const PACINGS = ['even', 'asap'] as const;
export type Pacing = (typeof PACINGS)[number];
export const DEFAULT_PACING: Pacing = 'even';

/** The line runs this share of the period's budget ahead of the elapsed fraction: room for bursts of traffic. */
export const PACING_MARGIN = 0.05;

/**
 * A campaign found ahead of its line is not offered to the serving state again for this long: the line has to move
 * on before it serves again, and asking sooner would cost a Redis round trip per request for nothing.
 */
export const PACING_RECHECK_MS = 1000;

/** `behind`: the spend is this share of the period's budget (or more) below the elapsed fraction. */
export const BEHIND_MARGIN = 0.1;

export const PACING_STATUSES = ['onPace', 'ahead', 'behind', 'notPaced'] as const;
export type PacingStatus = (typeof PACING_STATUSES)[number];

/** The part of the budget day inside the campaign's [startTime, endTime): the period an even campaign paces over. */
export interface PacingPeriod {
  start: number;
  end: number;
  /**
   * How far ahead of the elapsed fraction the line runs on this request's ad block: PACING_MARGIN when absent. A block
   * where the campaign's optimization event is less likely gets less (src/serving/block-optimization.ts), so a
   * campaign that must hold back holds back there first (docs/CONTRACT.md §13).
   */
  margin?: number;
}

/** The pacing period holding `now` for an `even` campaign, or null (asap, or outside the campaign's window). */
export function pacingPeriod(pacing: Pacing, day: Pick<BudgetDay, 'start' | 'end'>, startTime: number, endTime: number, now: number): PacingPeriod | null {
  if (pacing !== 'even') return null;
  const start = Math.max(day.start, startTime);
  const end = Math.min(day.end, endTime);
  if (now < start || now >= end) return null;
  return { start, end };
}

/** The share of the period's budget the period's spend may reach at `now`: the elapsed fraction plus the margin (≤ 1). */
export function paceShare(period: PacingPeriod, now: number): number {
  return Math.min(1, (now - period.start) / (period.end - period.start) + (period.margin ?? PACING_MARGIN));
}

/**
 * The period's budget: the daily amount, or what the total had left when the day began if that is smaller. `spent`
 * and `daySpent` are the counters (all days, and this day): what was spent before the day is their difference.
 */
export function periodBudget(totalBudgetMicros: number, dailyBudgetMicros: number, spentMicros: number, daySpentMicros: number): number {
  return Math.max(0, Math.min(dailyBudgetMicros, totalBudgetMicros - (spentMicros - daySpentMicros)));
}

/** The pacing line in micro-USDT: what the period's spend may reach at this share before the campaign is held back. */
export function pacingLine(budgetMicros: number, share: number): number {
  return Math.floor(budgetMicros * share);
}

/**
 * How the day's spend stands against the line: `ahead` at or past it (held back until the line moves on), `behind` a
 * tenth of the budget or more below the elapsed fraction (too little traffic for the budget), else `onPace`.
 */
export function pacingStatusOf(period: PacingPeriod | null, budgetMicros: number, daySpentMicros: number, now: number): PacingStatus {
  if (period === null || budgetMicros <= 0) return 'notPaced';
  const share = paceShare(period, now);
  if (daySpentMicros >= pacingLine(budgetMicros, share)) return 'ahead';
  const elapsed = (now - period.start) / (period.end - period.start);
  if (daySpentMicros < budgetMicros * (elapsed - BEHIND_MARGIN)) return 'behind';
  return 'onPace';
}

/** The campaign's pacing status and the end of its budget day at `now`, from the spend the database holds. */
export function pacingOf(
  campaign: Pick<Campaign, 'pacing' | 'startTime' | 'endTime' | 'status' | 'approved' | 'totalBudgetMicros' | 'dailyBudgetMicros' | 'spentMicros'>,
  day: BudgetDay,
  daySpentMicros: number,
  now: number,
): { pacingStatus: PacingStatus; budgetResetsAt: number } {
  const period = campaign.status === 'onGoing' && campaign.approved ? pacingPeriod(campaign.pacing, day, campaign.startTime, campaign.endTime, now) : null;
  const budget = periodBudget(campaign.totalBudgetMicros, campaign.dailyBudgetMicros, campaign.spentMicros, daySpentMicros);
  return { pacingStatus: pacingStatusOf(period, budget, daySpentMicros, now), budgetResetsAt: day.end };
}
