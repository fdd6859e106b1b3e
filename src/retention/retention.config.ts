import type { EnvReader } from '../config/env-reader';
import { DEFAULT_DAYS_AHEAD } from '../database/day-partitions';

export interface RetentionConfig {
  /**
   * Raw event rows (clicks, conversions and custom events, exchange clicks and conversions, verification calls) are
   * removed once older than this many whole UTC days; hourly stats and counters are kept forever (docs/SCALING.md).
   */
  eventRetentionDays: number;
  /** Day partitions of the event tables made ahead of time (MySQL). */
  eventPartitionDaysAhead: number;
}

export const RETENTION_CONFIG = Symbol('RETENTION_CONFIG');

export function readRetentionConfig(env: EnvReader): RetentionConfig {
  return {
    eventRetentionDays: env.integer('EVENT_RETENTION_DAYS', 90, 2, 36_500),
    eventPartitionDaysAhead: env.integer('EVENT_PARTITION_DAYS_AHEAD', DEFAULT_DAYS_AHEAD, 1, 365),
  };
}
