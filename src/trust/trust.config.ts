import type { EnvReader } from '../config/env-reader';

export interface TrustConfig {
  /** A click sooner than this after its impression is invalid traffic (docs/TRUST_AND_SAFETY.md). */
  minClickDelayMs: number;
}

export const TRUST_CONFIG = Symbol('TRUST_CONFIG');

export function readTrustConfig(env: EnvReader): TrustConfig {
  return { minClickDelayMs: env.integer('MIN_CLICK_DELAY_MS', 300, 0, 60_000) };
}
