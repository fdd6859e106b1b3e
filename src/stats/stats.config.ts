import type { EnvReader } from '../config/env-reader';

export interface StatsConfig {
  /** How often buffered impression counters are written (clicks are group-committed as they come). */
  statsFlushMs: number;
  /** Whole UTC days the report rollup (`stats_report_hourly`) is kept; `stats_hourly` is kept forever. */
  reportRetentionDays: number;
}

export const STATS_CONFIG = Symbol('STATS_CONFIG');

export function readStatsConfig(env: EnvReader): StatsConfig {
  return {
    statsFlushMs: env.integer('STATS_FLUSH_MS', 1000, 10, 60_000),
    reportRetentionDays: env.integer('REPORT_RETENTION_DAYS', 400, 2, 36_500),
  };
}
