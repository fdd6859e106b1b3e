import type { EnvReader } from '../config/env-reader';

export interface ConversionsConfig {
  /** A conversion is credited to the user's latest click on the advertiser's campaigns within this many days. */
  attributionDays: number;
}

export const CONVERSIONS_CONFIG = Symbol('CONVERSIONS_CONFIG');

export function readConversionsConfig(env: EnvReader): ConversionsConfig {
  return { attributionDays: env.integer('ATTRIBUTION_DAYS', 7, 1, 90) };
}
