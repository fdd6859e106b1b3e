import type { EnvReader } from '../config/env-reader';

/** Keys, the admin key, the key caches and the per-key and per-client rate limits. */
export interface AccountsConfig {
  adminApiKey: string | null;
  testApiKey: string | null;
  rateLimitPerSecond: number;
  keyCacheTtlMs: number;
  /**
   * Requests with a missing or unknown key, per client IP and second (429 above it); unknown keys remembered so
   * repeats skip the database (a bounded LRU, apart from the valid keys' cache).
   */
  unknownKeyRateLimitPerSecond: number;
  unknownKeyCacheMax: number;
}

export const ACCOUNTS_CONFIG = Symbol('ACCOUNTS_CONFIG');

export function readAccountsConfig(env: EnvReader): AccountsConfig {
  return {
    adminApiKey: env.secret('ADMIN_API_KEY'),
    testApiKey: env.secret('TEST_API_KEY'),
    rateLimitPerSecond: env.integer('RATE_LIMIT_PER_SECOND', 2000, 0, 1_000_000),
    keyCacheTtlMs: env.integer('KEY_CACHE_TTL_MS', 10_000, 0, 3_600_000),
    unknownKeyRateLimitPerSecond: env.integer('UNKNOWN_KEY_RATE_LIMIT_PER_SECOND', 50, 0, 1_000_000),
    unknownKeyCacheMax: env.integer('UNKNOWN_KEY_CACHE_MAX', 10_000, 0, 10_000_000),
  };
}
