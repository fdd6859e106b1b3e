export const CAMPAIGN_STATUSES = ['inReview', 'onGoing', 'paused', 'ended'].map((id) => ({ id, name: id }));
export const DELIVERY_STATUSES = ['delivering', 'scheduled', 'finished', 'budgetSpent', 'dailyBudgetSpent', 'paused', 'inReview', 'ended'].map((id) => ({
  id,
  name: id,
}));
export const BILLING_TYPES = [
  { id: 'CPM', name: 'CPM (per 1000 impressions)' },
  { id: 'CPC', name: 'CPC (per click)' },
];
export const CATEGORIES = ['games', 'apps', 'finance', 'crypto', 'gambling', 'dating', 'shopping', 'education', 'entertainment', 'other'].map((id) => ({
  id,
  name: id,
}));
export const PLATFORMS = ['All', 'iOS', 'Android', 'Desktop'].map((id) => ({ id, name: id }));
export const ACTION_TYPES = [
  { id: 'visit.website', name: 'Visit website' },
  { id: 'open.miniapp', name: 'Open mini app' },
];
export const TARGETING_FLAGS = [
  { source: 'messengerPremium', label: 'Premium members only' },
  { source: 'isHighValueUser', label: 'High-value users only' },
  { source: 'userLinkedChainWallet', label: 'Linked a primary-chain wallet' },
  { source: 'userLinkedWallet', label: 'Linked any wallet' },
  { source: 'userWalletHasBalanceOnChain', label: 'Wallet holds a balance on chain' },
];

/** How the daily budget is spent over the day (docs/CONTRACT.md §16); even is the API's default. */
export const PACINGS = [
  { id: 'even', name: 'Even (spread over the day)' },
  { id: 'asap', name: 'ASAP (as fast as traffic allows)' },
];
