/**
 * The pure heart of the exchange: active exchange campaigns and the traffic ledger in, ranked entries out.
 * No I/O here; impressions, click binding and exclusions happen at the edges (serving state, stats writer).
 */
import { withFields } from '../common/with-fields';

export interface IndexedExchangeCampaign {
  id: string;
  /** The id the serving state knows the entry by; `ex_` keeps it apart from publisher ads. */
  entryId: string;
  accountId: string;
  includedRegions: ReadonlySet<string>;
  excludedRegions: ReadonlySet<string>;
  includedLanguages: ReadonlySet<string>;
  excludedLanguages: ReadonlySet<string>;
  /** This campaign's clicksSent - clicksReceived. */
  balance: number;
  creative: {
    icon: string;
    image: string | null;
    text: string;
    destination: { actionType: string; url: string };
  };
}

export interface RankedExchangeCampaign extends IndexedExchangeCampaign {
  /** The owner's balance over all its exchange campaigns: the ranking key. */
  partnerBalance: number;
  /** The owner's balance is below -debtLimit: ranked last and given at most DEBTOR_SLOTS per answer. */
  farInDebt: boolean;
}

export interface ExchangeContext {
  /** The account owning the campaign the entries are shown in: its own campaigns are never offered. */
  callerAccountId: string;
  country: string | null;
  language: string | null;
}

/** How many entries of far-in-debt partners one answer may hold, and only after every other entry. */
export const DEBTOR_SLOTS = 1;

export function entryIdOf(exchangeCampaignId: string): string {
  return `ex_${exchangeCampaignId}`;
}

export function isFarInDebt(partnerBalance: number, debtLimit: number): boolean {
  return partnerBalance < -debtLimit;
}

/**
 * Creditors first: by the owner's balance (sent minus received, over all its campaigns), then by the campaign's
 * own balance, then oldest first (ids are time-ordered) so the order is stable. Far-in-debt partners have the
 * lowest balances, so they come last.
 */
export function rankExchangeCampaigns(
  campaigns: readonly IndexedExchangeCampaign[],
  partnerBalances: ReadonlyMap<string, number>,
  debtLimit: number,
): RankedExchangeCampaign[] {
  return campaigns
    .map((campaign) => {
      const partnerBalance = partnerBalances.get(campaign.accountId) ?? campaign.balance;
      return withFields(campaign, { partnerBalance, farInDebt: isFarInDebt(partnerBalance, debtLimit) });
    })
    .sort((a, b) => b.partnerBalance - a.partnerBalance || b.balance - a.balance || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Include lists never match an unknown value; exclude lists do not exclude it (docs/CONTRACT.md §11). */
export function matchesExchangeTargeting(campaign: IndexedExchangeCampaign, context: ExchangeContext): boolean {
  const { country, language } = context;
  if (campaign.includedRegions.size > 0 && (country === null || !campaign.includedRegions.has(country))) return false;
  if (country !== null && campaign.excludedRegions.has(country)) return false;
  if (campaign.includedLanguages.size > 0 && (language === null || !campaign.includedLanguages.has(language))) return false;
  if (language !== null && campaign.excludedLanguages.has(language)) return false;
  return true;
}

export interface ExchangeCandidates {
  /** Partners not far in debt, best first. */
  regular: RankedExchangeCampaign[];
  /** Far-in-debt partners, best first; an answer takes at most DEBTOR_SLOTS of them. */
  debtors: RankedExchangeCampaign[];
}

/**
 * Up to `max` matching campaigns of each group, in rank order, never the caller's own. The scan stops once both
 * groups are full, so its cost follows the answer, not the index size.
 */
export function selectExchangeCandidates(
  ranked: readonly RankedExchangeCampaign[],
  context: ExchangeContext,
  max: number,
  skip?: ReadonlySet<string>,
): ExchangeCandidates {
  const regular: RankedExchangeCampaign[] = [];
  const debtors: RankedExchangeCampaign[] = [];
  for (const campaign of ranked) {
    if (regular.length >= max && debtors.length >= max) break;
    if (campaign.accountId === context.callerAccountId || skip?.has(campaign.id)) continue;
    if (!matchesExchangeTargeting(campaign, context)) continue;
    const group = campaign.farInDebt ? debtors : regular;
    if (group.length < max) group.push(campaign);
  }
  return { regular, debtors };
}
