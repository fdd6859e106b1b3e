import { Create } from 'react-admin';
import { DAY_MS } from '../time';
import { CampaignForm } from './CampaignForm';

const defaults = () => {
  const start = Math.ceil(Date.now() / 3_600_000) * 3_600_000;
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
    budget: { strategy: 'daily', startTime: start, endTime: start + 30 * DAY_MS },
    bidding: { billingType: 'CPM' },
    optimizationEvent: 'conversion',
    ad: { adFormat: 'image', destination: { actionType: 'visit.website' } },
  };
};

export const CampaignCreate = () => (
  <Create redirect="show">
    <CampaignForm defaultValues={defaults()} />
  </Create>
);
