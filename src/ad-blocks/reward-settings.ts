/** A block's format: `rewarded` blocks grant the user a reward for a completed view (docs/REWARDED_ADS.md). */
export const AD_BLOCK_FORMATS = ['banner', 'rewarded'] as const;
export type AdBlockFormat = (typeof AD_BLOCK_FORMATS)[number];

/** The rewarded-ad settings of a block, as stored and answered. */
export interface RewardSettings {
  format: AdBlockFormat;
  rewardUrl: string | null;
  minViewMs: number;
  dailyRewardCap: number;
}

export const REWARD_DEFAULTS: RewardSettings = { format: 'banner', rewardUrl: null, minViewMs: 10_000, dailyRewardCap: 20 };

/** The settings given (undefined: keep) applied over the current ones. */
export function mergeRewardSettings(current: RewardSettings, given: Partial<RewardSettings>): RewardSettings {
  return {
    format: given.format ?? current.format,
    rewardUrl: given.rewardUrl === undefined ? current.rewardUrl : given.rewardUrl,
    minViewMs: given.minViewMs ?? current.minViewMs,
    dailyRewardCap: given.dailyRewardCap ?? current.dailyRewardCap,
  };
}

export function rewardSettingsOf(block: RewardSettings): RewardSettings {
  return { format: block.format, rewardUrl: block.rewardUrl, minViewMs: block.minViewMs, dailyRewardCap: block.dailyRewardCap };
}
