import { SetMetadata } from '@nestjs/common';
import type { DayPartitionedTable } from '../database/day-partitions';

export const EVENT_TABLES_OWNER = 'adnet:event-tables-owner';

/**
 * Marks the repository owning raw event tables: RetentionService finds it and keeps its tables by day (partitions
 * ahead, old days dropped). Aggregates (`stats_hourly`, `exchange_stats_hourly`) and counters are never marked; the
 * report rollup is, with its own `keepDays` (REPORT_RETENTION_DAYS).
 */
export const OwnsEventTables = () => SetMetadata(EVENT_TABLES_OWNER, true);

export interface EventTablesOwner {
  eventTables(): DayPartitionedTable[];
}
