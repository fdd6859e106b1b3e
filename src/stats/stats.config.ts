import type { EnvReader } from '../config/env-reader';

export interface StatsConfig {
  /** How often buffered impression counters are written (clicks are group-committed as they come). */
  statsFlushMs: number;
}

export const STATS_CONFIG = Symbol('STATS_CONFIG');

export function readStatsConfig(env: EnvReader): StatsConfig {
  return { statsFlushMs: env.integer('STATS_FLUSH_MS', 1000, 10, 60_000) };
}
