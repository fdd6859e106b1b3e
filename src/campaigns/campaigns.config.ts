import type { EnvReader } from '../config/env-reader';

export interface CampaignsConfig {
  /** New campaigns, and edits of an approved campaign's creative, wait for an admin's approval (docs/CONTRACT.md §18). */
  campaignReview: boolean;
}

export const CAMPAIGNS_CONFIG = Symbol('CAMPAIGNS_CONFIG');

export function readCampaignsConfig(env: EnvReader): CampaignsConfig {
  return { campaignReview: env.boolean('CAMPAIGN_REVIEW', false) };
}
