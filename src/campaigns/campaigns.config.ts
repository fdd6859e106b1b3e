import type { EnvReader } from '../config/env-reader';

export interface CampaignsConfig {
  /** New campaigns wait for an admin's approval before they serve (docs/CONTRACT.md §11). */
  campaignReview: boolean;
}

export const CAMPAIGNS_CONFIG = Symbol('CAMPAIGNS_CONFIG');

export function readCampaignsConfig(env: EnvReader): CampaignsConfig {
  return { campaignReview: env.boolean('CAMPAIGN_REVIEW', false) };
}
