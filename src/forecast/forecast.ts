/**
 * The forecast's arithmetic, pure: a draft campaign, the sampled request contexts and the live campaigns in, a day's
 * expected delivery out (docs/CONTRACT.md "Forecast"). A sampled request is won when the draft matches its targeting
 * and fewer than the request's `limit` live campaigns that also match it rank above the draft (a tie counts as lost).
 * What each competitor spends, and frequency caps, are not replayed: the figures are for a day on which the other
 * campaigns keep competing.
 */
import { isLive, matchesTargeting, smoothedCtr, type IndexedCampaign } from '../serving/campaign-matcher';
import type { BlockControls } from '../ad-blocks/ad-blocks.service';
import { refusedBy } from '../serving/block-controls';
import { matchContextOf, type ContextWeight } from './forecast-sample';

const DAY_MS = 86_400_000;
/** A sample shorter than this is scaled as if it covered this long, so a few minutes of traffic are not multiplied by thousands. */
export const MIN_SAMPLE_SPAN_MS = 3_600_000;

export const FORECAST_LIMITS = ['budget', 'inventory', 'bid', 'schedule'] as const;
export type ForecastLimit = (typeof FORECAST_LIMITS)[number];

export interface ForecastFigures {
  dailyRequests: number;
  dailyImpressions: number;
  dailyClicks: number;
  dailySpendMicros: number;
  /** Whole days until the total budget is spent at the daily figure; null when nothing would be spent */
  daysToSpendTotal: number | null;
  limitedBy: ForecastLimit;
}

export interface ForecastInput {
  draft: IndexedCampaign;
  contexts: readonly ContextWeight[];
  /** How long the sample covers (ms): the window of the last 7 days, or since the first request kept if later */
  sampleSpanMs: number;
  /** The live campaigns, best first (the serving index's ranking) */
  competitors: readonly IndexedCampaign[];
  now: number;
  /** A block's floors and blocked categories and domains (null: none), applied to the draft and its competitors alike */
  controlsOf?: (adBlockId: string) => BlockControls | null;
}

export function forecastDelivery(input: ForecastInput): ForecastFigures {
  const { draft, contexts, competitors, now } = input;
  const scale = DAY_MS / Math.max(input.sampleSpanMs, MIN_SAMPLE_SPAN_MS);
  // the day the draft would first run: from its start when that is later than now
  const at = Math.max(now, draft.startTime);
  let requests = 0;
  let eligible = 0;
  let won = 0;
  for (const sample of contexts) {
    requests += sample.requests;
    const controls = input.controlsOf?.(sample.adBlockId) ?? null;
    if (controls !== null && refusedBy(controls, draft) !== null) continue;
    const context = matchContextOf(sample, at);
    if (!matchesTargeting(draft, context)) continue;
    eligible += sample.requests;
    if (ranksAbove(competitors, draft, context, at, sample.adLimit, controls) < sample.adLimit) won += sample.requests;
  }
  const ctr = smoothedCtr(0, 0);
  const priceOf = (impressions: number) => (draft.billingType === 'CPM' ? (impressions * draft.costPerMicros) / 1000 : impressions * ctr * draft.costPerMicros);
  const dayBudget = Math.min(draft.dailyBudgetMicros, draft.totalBudgetMicros);
  // a window shorter than a day runs for that part of it only
  const dayShare = Math.min(1, Math.max(0, draft.endTime - at) / DAY_MS);
  let impressions = won * scale * dayShare;
  let spend = priceOf(impressions);
  const budgetBound = spend >= dayBudget && spend > 0;
  if (budgetBound) {
    impressions = (impressions * dayBudget) / spend;
    spend = dayBudget;
  }
  const dailySpendMicros = Math.floor(spend);
  const daysToSpendTotal = dailySpendMicros > 0 ? Math.ceil(draft.totalBudgetMicros / dailySpendMicros) : null;
  let limitedBy: ForecastLimit;
  if (draft.endTime <= now) limitedBy = 'schedule';
  else if (budgetBound) limitedBy = 'budget';
  else if (eligible === 0) limitedBy = 'inventory';
  else if (dayShare < 1 && priceOf(won * scale) >= dayBudget) limitedBy = 'schedule';
  // losing auctions holds it back when winning every matching request would fill the day's budget, or when it
  // loses most of them
  else if (won < eligible && (priceOf(eligible * scale * dayShare) >= dayBudget || won < eligible / 2)) limitedBy = 'bid';
  else limitedBy = 'inventory';
  const live = draft.endTime > now;
  return {
    dailyRequests: Math.round(requests * scale),
    dailyImpressions: live ? Math.round(impressions) : 0,
    dailyClicks: live ? Math.round(impressions * ctr) : 0,
    dailySpendMicros: live ? dailySpendMicros : 0,
    daysToSpendTotal: live ? daysToSpendTotal : null,
    limitedBy,
  };
}

/** How many live campaigns matching `context` rank above the draft, counting no further than `limit`. */
function ranksAbove(
  competitors: readonly IndexedCampaign[],
  draft: IndexedCampaign,
  context: ReturnType<typeof matchContextOf>,
  now: number,
  limit: number,
  controls: BlockControls | null,
): number {
  let above = 0;
  for (const campaign of competitors) {
    if (campaign.ecpmMicros < draft.ecpmMicros || above >= limit) break;
    if (campaign.id === draft.id) continue;
    if (isLive(campaign, now) && matchesTargeting(campaign, context) && (controls === null || refusedBy(controls, campaign) === null)) above += 1;
  }
  return above;
}
