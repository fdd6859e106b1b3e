import { ConflictError, FieldError, ValidationError } from '../common/errors';
import { BudgetDay, budgetDayAt, ZoneSchedule } from '../common/time-zone';
import { hasAtMostDecimals } from '../common/money';
import type { Campaign, CampaignStatus } from './entities/campaign.entity';

export const STATUS_ACTIONS = ['start', 'paused', 'end'] as const;
export type StatusAction = (typeof STATUS_ACTIONS)[number];

export const DELIVERY_STATUSES = ['delivering', 'scheduled', 'finished', 'dailyBudgetSpent', 'budgetSpent', 'paused', 'inReview', 'ended'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface StatusState {
  status: CampaignStatus;
  approved: boolean;
}

/**
 * The campaign state machine of docs/CONTRACT.md §3 and §11. `start` resumes a paused campaign; only an admin's
 * `start` approves a campaign that has not passed review; `end` is final and idempotent. Answers the two fields
 * only, never the rest of what it was given: a whole campaign row spread back into the status change wrote its
 * counters back as they were read, undoing the counter writes committed in between.
 */
export function applyStatusAction(state: StatusState, action: StatusAction, byAdmin: boolean): StatusState {
  if (action === 'end') return { status: 'ended', approved: state.approved };
  if (state.status === 'ended') throw new ConflictError(`status: campaign has ended; it cannot ${action === 'start' ? 'start' : 'pause'} again`);
  if (action === 'paused') return { status: 'paused', approved: state.approved };
  if (!state.approved && !byAdmin) {
    throw new ConflictError('status: campaign is waiting for review; an admin must approve it before it starts');
  }
  return { status: 'onGoing', approved: true };
}

type ZoneFacts = Pick<Campaign, 'timeZone' | 'nextTimeZone' | 'timeZoneChangesAt'>;

/** The campaign's budget day holding `now`: a day of its account's zone (docs/CONTRACT.md §16). */
export function budgetDayOf(campaign: ZoneFacts, now: number): BudgetDay {
  return budgetDayAt(campaign as ZoneSchedule, now);
}

/** Spend of the campaign's budget day holding `now`: the stored day total only counts when it is that day's. */
export function spentToday(campaign: Pick<Campaign, 'daySpentMicros' | 'spentDay'> & ZoneFacts, now: number): number {
  return campaign.spentDay === budgetDayOf(campaign, now).key ? campaign.daySpentMicros : 0;
}

type DeliveryFacts = Pick<
  Campaign,
  'status' | 'startTime' | 'endTime' | 'spentMicros' | 'totalBudgetMicros' | 'dailyBudgetMicros' | 'daySpentMicros' | 'spentDay'
> &
  ZoneFacts;
type BudgetFacts = Pick<Campaign, 'spentMicros' | 'totalBudgetMicros' | 'daySpentMicros' | 'spentDay' | 'dailyBudgetMicros'> & ZoneFacts;

/**
 * The rules of whether a campaign may serve, each defined once: the delivery status, the serving index (which
 * campaigns it holds) and the delivery diagnosis read them.
 */
export function isRunning(campaign: Pick<Campaign, 'status' | 'approved'>): boolean {
  return campaign.status === 'onGoing' && campaign.approved;
}

export function hasTotalBudgetLeft(campaign: Pick<Campaign, 'spentMicros' | 'totalBudgetMicros'>): boolean {
  return campaign.spentMicros < campaign.totalBudgetMicros;
}

export function hasDailyBudgetLeft(campaign: Pick<Campaign, 'daySpentMicros' | 'spentDay' | 'dailyBudgetMicros'> & ZoneFacts, now: number): boolean {
  return spentToday(campaign, now) < campaign.dailyBudgetMicros;
}

export function hasBudgetLeft(campaign: BudgetFacts, now: number): boolean {
  return hasTotalBudgetLeft(campaign) && hasDailyBudgetLeft(campaign, now);
}

/** Why a campaign is (not) serving right now. */
export function deliveryStatus(campaign: DeliveryFacts, now: number): DeliveryStatus {
  if (campaign.status !== 'onGoing') return campaign.status;
  if (now < campaign.startTime) return 'scheduled';
  if (now >= campaign.endTime) return 'finished';
  if (!hasTotalBudgetLeft(campaign)) return 'budgetSpent';
  if (!hasDailyBudgetLeft(campaign, now)) return 'dailyBudgetSpent';
  return 'delivering';
}

export interface CampaignNumbers {
  amount: number;
  total: number;
  startTime: number;
  endTime: number;
  billingType: string;
  costPer: number;
}

/** Rules that span fields, checked on the whole campaign after a create or a merged update. */
export function checkCampaignNumbers(numbers: CampaignNumbers): void {
  const errors: FieldError[] = [];
  if (!(numbers.endTime > numbers.startTime)) {
    errors.push({ field: 'budget.endTime', message: 'budget.endTime must be after budget.startTime' });
  }
  if (!(numbers.amount <= numbers.total)) {
    errors.push({ field: 'budget.amount', message: 'budget.amount (daily) must not exceed budget.total' });
  }
  // A CPM impression costs costPer/1000; three decimals keep it a whole number of micro-USDT.
  if (numbers.billingType === 'CPM' && !hasAtMostDecimals(numbers.costPer, 3)) {
    errors.push({ field: 'bidding.costPer', message: 'bidding.costPer must have at most 3 decimals for CPM' });
  }
  if (errors.length > 0) throw new ValidationError(errors);
}

export interface GeoLists {
  includedRegions: string[];
  excludedRegions: string[];
  includedLanguages: string[];
  excludedLanguages: string[];
}

/** Region and language lists as stored: every list present, regions upper-case, languages lower-case, no repeats. */
export function normalizeGeoLists(given: Partial<GeoLists>): GeoLists {
  const upper = (codes?: string[]) => [...new Set((codes ?? []).map((code) => code.toUpperCase()))];
  const lower = (codes?: string[]) => [...new Set((codes ?? []).map((code) => code.toLowerCase()))];
  return {
    includedRegions: upper(given.includedRegions),
    excludedRegions: upper(given.excludedRegions),
    includedLanguages: lower(given.includedLanguages),
    excludedLanguages: lower(given.excludedLanguages),
  };
}
