import { api } from '../api';

/** One verdict of GET /api/v2/openapi/ad/delivery/diagnose (docs/CONTRACT.md §15). */
export interface DeliveryCheck {
  check: string;
  passed: boolean;
  detail: string;
}

export interface DeliveryDiagnosis {
  campaignId: string | null;
  adBlockId: string | null;
  servable: boolean;
  facts: {
    ip: string;
    country: string | null;
    language: string | null;
    platform: string | null;
    openId: string | null;
    profile: boolean;
    invalidTraffic: string | null;
  };
  checks: DeliveryCheck[];
  rank: { position: number | null; servableCampaigns: number; limit: number; served: boolean } | null;
  ads: { campaignId: string; adId: string; brandName: string }[] | null;
}

/** What the form asks: empty fields are left out, so the API takes them from this browser's request. */
export interface DeliveryTestInput {
  campaignId?: string;
  adBlockId?: string;
  country?: string;
  language?: string;
  platform?: string;
  openId?: string;
  limit?: number;
}

export function diagnoseDelivery(input: DeliveryTestInput): Promise<DeliveryDiagnosis> {
  const query: Record<string, string | number | undefined> = {};
  for (const [name, value] of Object.entries(input)) {
    const trimmed = typeof value === 'string' ? value.trim() : value;
    if (trimmed !== undefined && trimmed !== '') query[name] = trimmed;
  }
  return api<DeliveryDiagnosis>('/api/v2/openapi/ad/delivery/diagnose', { query });
}

/** Words for the checks' names, in the panel's language. */
const LABELS: Record<string, string> = {
  status: 'Status',
  schedule: 'Schedule',
  'budget.total': 'Total budget',
  'budget.daily': 'Daily budget',
  'budget.serving': 'Budget being served',
  index: 'Ready to serve',
  'targeting.includedRegions': 'Regions',
  'targeting.excludedRegions': 'Excluded regions',
  'targeting.includedLanguages': 'Languages',
  'targeting.excludedLanguages': 'Excluded languages',
  'targeting.platform': 'Platform',
  'targeting.messengerPremium': 'Premium users only',
  'targeting.isHighValueUser': 'High-value users only',
  'targeting.userLinkedWallet': 'Users with a linked wallet',
  'targeting.userLinkedChainWallet': 'Users with a primary wallet',
  'targeting.userWalletHasBalanceOnChain': 'Wallets with a balance',
  frequencyCap: 'Frequency cap',
  exclusion: 'Hidden after a click',
  'block.signedViewer': 'Signed viewers',
  userCap: 'Hourly cap per user',
  country: 'Country',
  language: 'Language',
  platform: 'Platform',
  traffic: 'Traffic quality',
  rank: 'Rank',
};

export function checkLabel(check: string): string {
  return LABELS[check] ?? check;
}

/** One sentence for the whole answer: whether it serves, else the first reason why not. */
export function verdictOf(diagnosis: DeliveryDiagnosis): string {
  const firstFailing = diagnosis.checks.find((check) => !check.passed && check.check !== 'traffic');
  if (diagnosis.campaignId === null) {
    const count = diagnosis.ads?.length ?? 0;
    if (!diagnosis.servable) return firstFailing ? `No ads would be shown: ${firstFailing.detail}` : 'No ads would be shown: no campaign matches these facts';
    return `${count} ${count === 1 ? 'ad' : 'ads'} would be shown`;
  }
  if (diagnosis.servable) return 'This ad would be shown';
  return firstFailing ? `Not shown — ${checkLabel(firstFailing.check)}: ${firstFailing.detail}` : 'Not shown';
}

/** The campaign's place among those that would serve, or why it has none. */
export function rankText(rank: { position: number | null; servableCampaigns: number; limit: number }): string {
  const competing = `${rank.servableCampaigns} servable campaign${rank.servableCampaigns === 1 ? '' : 's'}`;
  const asked = `${rank.limit} ad${rank.limit === 1 ? '' : 's'} asked`;
  if (rank.position === null) return `not ranked (it would not serve); ${competing} for ${asked}`;
  return `rank ${rank.position} of ${competing} for ${asked}`;
}
