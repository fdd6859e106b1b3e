import type { IndexedCampaign, MatchContext } from './campaign-matcher';

/**
 * Targeting rules (docs/CONTRACT.md §5, §11): an include list never matches an unknown value, an exclude list does not
 * exclude it; a flag set to true requires the user to have it; platform `All` matches any device. Each rule is
 * defined once, below; matchesTargeting (the hot path: plain calls, nothing allocated) and targetingVerdicts (the
 * delivery diagnosis: which rule let the context through and which did not) both read these definitions.
 */
const passesIncludedRegions = (c: IndexedCampaign, x: MatchContext) => c.includedRegions.size === 0 || (x.country !== null && c.includedRegions.has(x.country));
const passesExcludedRegions = (c: IndexedCampaign, x: MatchContext) => x.country === null || !c.excludedRegions.has(x.country);
const passesIncludedLanguages = (c: IndexedCampaign, x: MatchContext) =>
  c.includedLanguages.size === 0 || (x.language !== null && c.includedLanguages.has(x.language));
const passesExcludedLanguages = (c: IndexedCampaign, x: MatchContext) => x.language === null || !c.excludedLanguages.has(x.language);
const passesPlatform = (c: IndexedCampaign, x: MatchContext) => c.platform === 'All' || c.platform === x.platform;
const passesPremium = (c: IndexedCampaign, x: MatchContext) => !c.messengerPremium || x.premium;
const passesHighValue = (c: IndexedCampaign, x: MatchContext) => !c.isHighValueUser || x.highValue;
const passesLinkedWallet = (c: IndexedCampaign, x: MatchContext) => !c.userLinkedWallet || x.linkedWallet;
const passesLinkedChainWallet = (c: IndexedCampaign, x: MatchContext) => !c.userLinkedChainWallet || x.linkedChainWallet;
const passesWalletBalance = (c: IndexedCampaign, x: MatchContext) => !c.userWalletHasBalanceOnChain || x.walletHasBalance;

/** The targeting rules by the campaign field that sets them, in the order matchesTargeting checks them. */
export const TARGETING_RULES = {
  includedRegions: passesIncludedRegions,
  excludedRegions: passesExcludedRegions,
  includedLanguages: passesIncludedLanguages,
  excludedLanguages: passesExcludedLanguages,
  platform: passesPlatform,
  messengerPremium: passesPremium,
  isHighValueUser: passesHighValue,
  userLinkedWallet: passesLinkedWallet,
  userLinkedChainWallet: passesLinkedChainWallet,
  userWalletHasBalanceOnChain: passesWalletBalance,
} as const;
export type TargetingRule = keyof typeof TARGETING_RULES;

export function matchesTargeting(campaign: IndexedCampaign, context: MatchContext): boolean {
  return (
    passesIncludedRegions(campaign, context) &&
    passesExcludedRegions(campaign, context) &&
    passesIncludedLanguages(campaign, context) &&
    passesExcludedLanguages(campaign, context) &&
    passesPlatform(campaign, context) &&
    passesPremium(campaign, context) &&
    passesHighValue(campaign, context) &&
    passesLinkedWallet(campaign, context) &&
    passesLinkedChainWallet(campaign, context) &&
    passesWalletBalance(campaign, context)
  );
}

/** Every targeting rule of the campaign and whether the context passes it (matchesTargeting is "all passed"). */
export function targetingVerdicts(campaign: IndexedCampaign, context: MatchContext): { rule: TargetingRule; passed: boolean }[] {
  return (Object.keys(TARGETING_RULES) as TargetingRule[]).map((rule) => ({ rule, passed: TARGETING_RULES[rule](campaign, context) }));
}

export function isLive(campaign: IndexedCampaign, now: number): boolean {
  return now >= campaign.startTime && now < campaign.endTime;
}
