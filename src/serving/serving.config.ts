import type { EnvReader } from '../config/env-reader';
import { LEASE_IDLE_MS } from './state/budget-leases';

/** Endpoint 5 and the budgets behind it: the publisher's share, the index refresh, leases and the per-user cap. */
export interface ServingConfig {
  /** The publisher's share of what an impression or click costs the advertiser. */
  publisherShare: number;
  indexRefreshMs: number;
  /**
   * Life of a serving process's lease-holder heartbeat (MySQL + Redis profile): once a killed process's heartbeat
   * has lapsed this long, the other processes give its unused budget leases back to the counters.
   */
  leaseHolderTtlMs: number;
  /**
   * MySQL + Redis: how long a process keeps a budget lease nobody bills from before it goes back to the counters
   * (a scarce one at most 5 s). Longer keeps leases through a lull in traffic; shorter hands idle budget back sooner.
   */
  leaseIdleMs: number;
  /** Most impressions one (ad block, user) pair is served within any hour, across campaigns; 0: no cap. */
  userImpressionsPerHour: number;
  /** How often the per-block estimates of even-paced campaigns are read again (src/serving/block-optimization.ts). */
  optimizationRefreshMs: number;
  /** How many days of hourly stats those estimates are drawn from. */
  optimizationWindowDays: number;
}

export const SERVING_CONFIG = Symbol('SERVING_CONFIG');

export function readServingConfig(env: EnvReader): ServingConfig {
  return {
    publisherShare: parseShare(env),
    indexRefreshMs: env.integer('INDEX_REFRESH_MS', 10_000, 100, 3_600_000),
    leaseHolderTtlMs: env.integer('LEASE_HOLDER_TTL_MS', 30_000, 3_000, 600_000),
    leaseIdleMs: env.integer('LEASE_IDLE_MS', LEASE_IDLE_MS, 1_000, 600_000),
    userImpressionsPerHour: env.integer('USER_IMPRESSIONS_PER_HOUR', 60, 0, 100_000),
    optimizationRefreshMs: env.integer('OPTIMIZATION_REFRESH_MS', 300_000, 1_000, 86_400_000),
    optimizationWindowDays: env.integer('OPTIMIZATION_WINDOW_DAYS', 14, 1, 90),
  };
}

function parseShare(env: EnvReader): number {
  const raw = env.read('PUBLISHER_SHARE');
  if (raw === undefined) return 0.7;
  const share = Number(raw);
  if (Number.isFinite(share) && share >= 0 && share <= 1) return share;
  env.problem(`PUBLISHER_SHARE must be a number from 0 to 1 (got "${raw}")`);
  return 0.7;
}
