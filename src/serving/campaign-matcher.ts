import type { Pacing } from '../campaigns/pacing';
import type { EventType } from '../conversions/event-types';
/**
 * The pure heart of ad serving: an index of active campaigns and a request context in, ranked ads out.
 * No I/O here; budgets, exclusions and counting happen at the edges (serving state, stats writer). Its parts:
 * campaign-ranking.ts (the order), targeting-rules.ts (who may see a campaign), match-cache.ts (the answers per
 * targeting context over bitsets); this file holds the shapes and the plain scan, and is what the rest imports.
 */
import type { BlockControls } from '../ad-blocks/ad-blocks.service';
import { refusedBy } from './block-controls';
import { isLive, matchesTargeting } from './targeting-rules';

export { expectedRevenuePerMille, rankCampaigns, rerankCampaigns, rerankCampaignsInSlices, smoothedCtr } from './campaign-ranking';
export { isLive, matchesTargeting, TARGETING_RULES, targetingVerdicts, type TargetingRule } from './targeting-rules';
export { MatchCache, targetingKey } from './match-cache';
export { SkipSet } from './skip-set';

export type Platform = 'iOS' | 'Android' | 'Desktop';

export interface IndexedCampaign {
  id: string;
  adId: string;
  accountId: string;
  includedRegions: Set<string>;
  excludedRegions: Set<string>;
  includedLanguages: Set<string>;
  excludedLanguages: Set<string>;
  platform: string;
  messengerPremium: boolean;
  isHighValueUser: boolean;
  userLinkedChainWallet: boolean;
  userLinkedWallet: boolean;
  userWalletHasBalanceOnChain: boolean;
  billingType: 'CPM' | 'CPC';
  costPerMicros: number;
  startTime: number;
  endTime: number;
  totalBudgetMicros: number;
  dailyBudgetMicros: number;
  spentMicros: number;
  daySpentMicros: number;
  spentDay: string;
  /** How its daily budget is spent over the day (src/campaigns/pacing.ts). */
  pacing: Pacing;
  /** The event whose estimates per ad block steer where an even campaign holds back (src/serving/block-optimization.ts). */
  optimizationEvent: EventType;
  /** Its account's zone schedule: which budget day a moment is in (src/common/time-zone.ts). */
  timeZone: string;
  nextTimeZone: string | null;
  timeZoneChangesAt: number | null;
  /** What it advertises (a block may refuse it); absent: `other`. */
  category?: string;
  /** The lower-case host of the destination URL (a block may refuse it and its parents). */
  destinationHost?: string;
  /** Expected revenue per 1000 impressions in micro-USDT: the ranking key. */
  ecpmMicros: number;
  /** The advertiser's verification endpoint: counted clicks on this campaign are verified through it. */
  verificationUrl?: string | null;
  /** At most `impressions` to one user within any `windowMs`; null: no frequency cap. */
  frequencyCap?: { impressions: number; windowMs: number } | null;
  creative: {
    icon: string;
    image: string;
    text: string;
    brandName: string;
    buttonText: string;
    destination: { actionType: string; url: string };
  };
}

export interface MatchContext {
  now: number;
  country: string | null;
  language: string | null;
  platform: Platform | null;
  premium: boolean;
  highValue: boolean;
  linkedWallet: boolean;
  linkedChainWallet: boolean;
  walletHasBalance: boolean;
}

/**
 * The best `max` campaigns for this request, in rank order, one per campaign. `ranked` must come from
 * rankCampaigns; a block's `controls` refuse campaigns as the serving index does. The scan stops as soon as it has enough, so its cost follows the answer, not the index size.
 */
export function selectCandidates(
  ranked: readonly IndexedCampaign[],
  context: MatchContext,
  max: number,
  skip?: ReadonlySet<string>,
  controls?: BlockControls | null,
): IndexedCampaign[] {
  const picked: IndexedCampaign[] = [];
  for (const campaign of ranked) {
    if (picked.length >= max) break;
    if (skip?.has(campaign.id)) continue;
    if (controls && refusedBy(controls, campaign) !== null) continue;
    if (isLive(campaign, context.now) && matchesTargeting(campaign, context)) picked.push(campaign);
  }
  return picked;
}
