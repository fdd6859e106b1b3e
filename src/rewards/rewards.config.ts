import type { EnvReader } from '../config/env-reader';

/**
 * Reward callbacks (docs/REWARDED_ADS.md): the whole-call timeout, the tries and the first retry delay (each further
 * one waits twice as long, less up to a fifth at random). The defaults spread 10 tries over about 24 hours.
 * Private targets follow VERIFICATION_ALLOW_PRIVATE, the guard the verification calls use.
 */
export interface RewardsConfig {
  rewardTimeoutMs: number;
  rewardAttempts: number;
  rewardBackoffMs: number;
}

export const REWARDS_CONFIG = Symbol('REWARDS_CONFIG');

export function readRewardsConfig(env: EnvReader): RewardsConfig {
  return {
    rewardTimeoutMs: env.integer('REWARD_TIMEOUT_MS', 5000, 100, 60_000),
    rewardAttempts: env.integer('REWARD_ATTEMPTS', 10, 1, 30),
    rewardBackoffMs: env.integer('REWARD_BACKOFF_MS', 170_000, 10, 3_600_000),
  };
}
