import { DAY_MS } from '../time';

const MINUTE_MS = 60_000;

/**
 * A new campaign's form values. It starts now (the minute the form opened, as the start field shows minutes), so it
 * serves as soon as it is saved, as the empty list promises; it runs 30 days.
 */
export function campaignDefaults(now: number) {
  const start = Math.floor(now / MINUTE_MS) * MINUTE_MS;
  return {
    targeting: {
      includedRegions: [],
      excludedRegions: [],
      includedLanguages: [],
      excludedLanguages: [],
      platform: 'All',
      messengerPremium: false,
      isHighValueUser: false,
      userLinkedChainWallet: false,
      userLinkedWallet: false,
      userWalletHasBalanceOnChain: false,
    },
    budget: { strategy: 'daily', startTime: start, endTime: start + 30 * DAY_MS, pacing: 'even' },
    bidding: { billingType: 'CPM' },
    optimizationEvent: 'conversion',
    category: 'other',
    ad: { adFormat: 'image', destination: { actionType: 'visit.website' } },
  };
}
