import type { EnvReader } from '../config/env-reader';

export interface ConversionsConfig {
  /** A conversion is credited to the user's latest click on the advertiser's campaigns within this many days. */
  attributionDays: number;
  /** Postbacks (`GET /postback`) admitted per token and second in each process; more answer 429. */
  postbackRateLimitPerSecond: number;
}

export const CONVERSIONS_CONFIG = Symbol('CONVERSIONS_CONFIG');

export function readConversionsConfig(env: EnvReader): ConversionsConfig {
  return {
    attributionDays: env.integer('ATTRIBUTION_DAYS', 7, 1, 90),
    postbackRateLimitPerSecond: env.integer('POSTBACK_RATE_LIMIT_PER_SECOND', 50, 1, 100_000),
  };
}
