/**
 * The pure heart of ad serving: an index of active campaigns and a request context in, ranked ads out.
 * No I/O here; budgets, exclusions and counting happen at the edges (serving state, stats writer).
 */

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
  /** Expected revenue per 1000 impressions in micro-USDT: the ranking key. */
  ecpmMicros: number;
  /** The advertiser's verification endpoint: counted clicks on this campaign are verified through it. */
  verificationUrl?: string | null;
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

/** Prior of the CTR estimate: a new CPC campaign is assumed to get 1 click per 100 impressions. */
const PRIOR_CLICKS = 1;
const PRIOR_IMPRESSIONS = 100;

/** CTR smoothed towards the prior, so a campaign with few impressions is neither buried nor overrated. */
export function smoothedCtr(clicks: number, impressions: number): number {
  return (clicks + PRIOR_CLICKS) / (impressions + PRIOR_IMPRESSIONS);
}

/** Expected revenue per 1000 impressions: the CPM bid, or the CPC bid times the estimated CTR times 1000. */
export function expectedRevenuePerMille(billingType: 'CPM' | 'CPC', costPerMicros: number, ctr: number): number {
  return billingType === 'CPM' ? costPerMicros : costPerMicros * ctr * 1000;
}

/** Highest expected revenue first; the id breaks ties so the order is stable. */
export function rankCampaigns(campaigns: IndexedCampaign[]): IndexedCampaign[] {
  return [...campaigns].sort((a, b) => b.ecpmMicros - a.ecpmMicros || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Targeting rules (DESIGN §5, §11): an include list never matches an unknown value, an exclude list does not
 * exclude it; a flag set to true requires the user to have it; platform `All` matches any device.
 */
export function matchesTargeting(campaign: IndexedCampaign, context: MatchContext): boolean {
  if (campaign.includedRegions.size > 0 && (context.country === null || !campaign.includedRegions.has(context.country))) {
    return false;
  }
  if (context.country !== null && campaign.excludedRegions.has(context.country)) return false;
  if (
    campaign.includedLanguages.size > 0 &&
    (context.language === null || !campaign.includedLanguages.has(context.language))
  ) {
    return false;
  }
  if (context.language !== null && campaign.excludedLanguages.has(context.language)) return false;
  if (campaign.platform !== 'All' && campaign.platform !== context.platform) return false;
  if (campaign.messengerPremium && !context.premium) return false;
  if (campaign.isHighValueUser && !context.highValue) return false;
  if (campaign.userLinkedWallet && !context.linkedWallet) return false;
  if (campaign.userLinkedChainWallet && !context.linkedChainWallet) return false;
  if (campaign.userWalletHasBalanceOnChain && !context.walletHasBalance) return false;
  return true;
}

export function isLive(campaign: IndexedCampaign, now: number): boolean {
  return now >= campaign.startTime && now < campaign.endTime;
}

/**
 * The best `max` campaigns for this request, in rank order, one per campaign. `ranked` must come from
 * rankCampaigns; the scan stops as soon as it has enough, so its cost follows the answer, not the index size.
 */
export function selectCandidates(
  ranked: readonly IndexedCampaign[],
  context: MatchContext,
  max: number,
  skip?: ReadonlySet<string>,
): IndexedCampaign[] {
  const picked: IndexedCampaign[] = [];
  for (const campaign of ranked) {
    if (picked.length >= max) break;
    if (skip?.has(campaign.id)) continue;
    if (isLive(campaign, context.now) && matchesTargeting(campaign, context)) picked.push(campaign);
  }
  return picked;
}

/** How many matching campaigns a cached entry keeps: enough for the first rounds of any request (limit 9 + spares). */
const CACHED_DEPTH = 32;
const MAX_CACHED_CONTEXTS = 10_000;

interface CachedMatch {
  /** The best live, matching campaigns for the context, in rank order. */
  campaigns: IndexedCampaign[];
  /** True when these are all of them (the scan reached the end of the ranked list). */
  complete: boolean;
  /** The times for which the answer holds: no scanned campaign starts or ends inside [validFrom, validUntil). */
  validFrom: number;
  validUntil: number;
}

/** What targeting sees of a context: requests with equal keys match the same campaigns. */
export function targetingKey(context: MatchContext): string {
  const flags =
    (context.premium ? 1 : 0) |
    (context.highValue ? 2 : 0) |
    (context.linkedWallet ? 4 : 0) |
    (context.linkedChainWallet ? 8 : 0) |
    (context.walletHasBalance ? 16 : 0);
  return `${context.country ?? ''}|${context.language ?? ''}|${context.platform ?? ''}|${flags}`;
}

/**
 * selectCandidates with memory: thousands of requests a second share a few hundred targeting contexts, so the
 * scan of the ranked list is done once per context and ranked list (a new list, after any change, starts afresh)
 * and reused while the request's time is inside the window in which no scanned campaign starts or ends.
 * Same answers as selectCandidates, which it falls back to when the kept entries do not reach `max`.
 */
export class MatchCache {
  private ranked: readonly IndexedCampaign[] | null = null;
  private entries = new Map<string, CachedMatch>();

  select(ranked: readonly IndexedCampaign[], context: MatchContext, max: number, skip?: ReadonlySet<string>): IndexedCampaign[] {
    if (ranked !== this.ranked || this.entries.size >= MAX_CACHED_CONTEXTS) {
      this.ranked = ranked;
      this.entries = new Map();
    }
    const key = targetingKey(context);
    let entry = this.entries.get(key);
    if (entry === undefined || context.now < entry.validFrom || context.now >= entry.validUntil) {
      entry = scanForCache(ranked, context);
      this.entries.set(key, entry);
    }
    const picked: IndexedCampaign[] = [];
    for (const campaign of entry.campaigns) {
      if (picked.length >= max) break;
      if (!skip?.has(campaign.id)) picked.push(campaign);
    }
    if (picked.length < max && !entry.complete) return selectCandidates(ranked, context, max, skip);
    return picked;
  }
}

function scanForCache(ranked: readonly IndexedCampaign[], context: MatchContext): CachedMatch {
  const campaigns: IndexedCampaign[] = [];
  let validFrom = -Infinity;
  let validUntil = Infinity;
  for (const campaign of ranked) {
    if (!matchesTargeting(campaign, context)) continue;
    if (context.now < campaign.startTime) {
      validUntil = Math.min(validUntil, campaign.startTime);
      continue;
    }
    if (context.now >= campaign.endTime) {
      validFrom = Math.max(validFrom, campaign.endTime);
      continue;
    }
    validFrom = Math.max(validFrom, campaign.startTime);
    validUntil = Math.min(validUntil, campaign.endTime);
    campaigns.push(campaign);
    if (campaigns.length >= CACHED_DEPTH) return { campaigns, complete: false, validFrom, validUntil };
  }
  return { campaigns, complete: true, validFrom, validUntil };
}
