/** What a campaign advertises (docs/CONTRACT.md §18): ad blocks may refuse whole categories. */
export const CAMPAIGN_CATEGORIES = ['games', 'apps', 'finance', 'crypto', 'gambling', 'dating', 'shopping', 'education', 'entertainment', 'other'] as const;
export type CampaignCategory = (typeof CAMPAIGN_CATEGORIES)[number];
export const DEFAULT_CATEGORY: CampaignCategory = 'other';
