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
