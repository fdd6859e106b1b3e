import { PACING_MARGIN } from '../campaigns/pacing';
import { PRIOR_CLICKS } from '../campaigns/event-rate';
import { smoothedCtr } from './campaign-ranking';

/**
 * Optimization toward the campaign's event (docs/CONTRACT.md §13, "Where the budget goes"): per (campaign, ad block)
 * estimates of the campaign's optimization event per impression, and from them the pacing margin of each block. A
 * campaign that paces evenly and must hold back holds back first where its event is least likely: on a block whose
 * estimate is below the campaign's best, the pacing line runs a smaller share ahead of the elapsed fraction.
 *
 * The estimates, per impression:
 *   campaign  rate_c  = (events_c  + PRIOR_CLICKS * prior) / (impressions_c + PRIOR_CLICKS / ctr_c)
 *   block     rate_cb = (events_cb + BLOCK_PRIOR_EVENTS) / (impressions_cb + BLOCK_PRIOR_EVENTS / rate_c)
 * The campaign's rate is smoothed toward the network's prior per click (§13's estimatedEventRate: worth PRIOR_CLICKS
 * clicks, that is PRIOR_CLICKS / ctr_c impressions at the campaign's smoothed CTR), each block's toward the
 * campaign's: a new block starts at the campaign's rate, a new campaign at the prior, and only the campaign's own
 * counts enter its blocks' estimates.
 */

/** A block's estimate starts as this many events' worth of the campaign's rate. */
export const BLOCK_PRIOR_EVENTS = 1;
/**
 * A block whose estimate is at least this share of the campaign's best block keeps the full margin: estimates that
 * close are noise, and holding back on them would only move spend about.
 */
export const PREFERRED_SHARE = 0.8;
/**
 * Events a campaign needs over the window before its blocks are told apart: with fewer, the blocks that served most
 * would look worst only for having had more chances, so every block keeps the full margin.
 */
export const MIN_CAMPAIGN_EVENTS = 10;
/** Blocks listed in detail per side (preferred, held back first). */
export const MAX_LISTED_BLOCKS = 50;

/** What the stats hold for one campaign on one ad block over the optimization window. */
export interface BlockEventTotals {
  adBlockId: string;
  impressions: number;
  clicks: number;
  /** Attributed events of the campaign's optimization event, credited to clicks on this block. */
  events: number;
}

export interface BlockEstimate extends BlockEventTotals {
  /** The campaign's optimization event per impression on this block, smoothed (see above). */
  estimatedEventRate: number;
}

export interface CampaignBlockPlan {
  /** The campaign's own estimate per impression, over all its blocks. */
  campaignEventRate: number;
  /** Blocks that keep the full pacing margin, best first. */
  preferred: BlockEstimate[];
  /** Blocks whose line runs closer to the elapsed fraction: held back first, worst first. */
  heldBack: BlockEstimate[];
  /** The pacing margin of each block with data (PACING_MARGIN for a preferred one). */
  margins: Map<string, number>;
  /** The margin of a block with no data yet (at the campaign's own rate). */
  unseenMargin: number;
}

export function campaignEventRate(totals: readonly BlockEventTotals[], priorPerClick: number): number {
  let events = 0;
  let impressions = 0;
  let clicks = 0;
  for (const block of totals) {
    events += block.events;
    impressions += block.impressions;
    clicks += block.clicks;
  }
  return (events + PRIOR_CLICKS * priorPerClick) / (impressions + PRIOR_CLICKS / smoothedCtr(clicks, impressions));
}

export function blockEventRate(block: Pick<BlockEventTotals, 'events' | 'impressions'>, campaignRate: number): number {
  return (block.events + BLOCK_PRIOR_EVENTS) / (block.impressions + BLOCK_PRIOR_EVENTS / campaignRate);
}

/**
 * The margin of a block whose estimate is `rate` when the campaign's best is `best`: the full one near the best,
 * else the margin in proportion to the estimate, so the worse a block the sooner it is held back.
 */
export function marginFor(rate: number, best: number): number {
  if (best <= 0 || rate >= PREFERRED_SHARE * best) return PACING_MARGIN;
  return PACING_MARGIN * (rate / best);
}

/**
 * The campaign's blocks sorted into preferred and held back first, with the margins serving uses. With no events on
 * any block (fewer than MIN_CAMPAIGN_EVENTS) every block keeps the full margin: delivery as without data.
 */
export function planBlocks(totals: readonly BlockEventTotals[], priorPerClick: number): CampaignBlockPlan {
  const campaignRate = campaignEventRate(totals, priorPerClick);
  const estimates = totals
    .filter((block) => block.impressions > 0 || block.events > 0)
    .map((block) => ({
      adBlockId: block.adBlockId,
      impressions: block.impressions,
      clicks: block.clicks,
      events: block.events,
      estimatedEventRate: blockEventRate(block, campaignRate),
    }))
    .sort((a, b) => b.estimatedEventRate - a.estimatedEventRate || (a.adBlockId < b.adBlockId ? -1 : 1));
  const events = totals.reduce((sum, block) => sum + block.events, 0);
  // too few events to tell blocks apart: each is as good as the best
  const best = events < MIN_CAMPAIGN_EVENTS ? 0 : Math.max(campaignRate, estimates[0]?.estimatedEventRate ?? 0);
  const margins = new Map<string, number>();
  const preferred: BlockEstimate[] = [];
  const heldBack: BlockEstimate[] = [];
  for (const estimate of estimates) {
    const margin = marginFor(estimate.estimatedEventRate, best);
    margins.set(estimate.adBlockId, margin);
    if (margin < PACING_MARGIN) heldBack.push(estimate);
    else preferred.push(estimate);
  }
  heldBack.reverse();
  return {
    campaignEventRate: campaignRate,
    preferred: preferred.slice(0, MAX_LISTED_BLOCKS),
    heldBack: heldBack.slice(0, MAX_LISTED_BLOCKS),
    margins,
    unseenMargin: marginFor(campaignRate, best),
  };
}

/** The margin the plan gives an ad block (PACING_MARGIN when it holds back nowhere first). */
export function marginOfPlan(plan: Pick<CampaignBlockPlan, 'margins' | 'unseenMargin'>, adBlockId: string): number {
  return plan.margins.get(adBlockId) ?? plan.unseenMargin;
}
