import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { DAY_MS } from '../common/clock';
import { DayPartitionedTable } from '../database/day-partitions';
import { replicaQueryRunner } from '../database/replica-reads';
import { OwnsEventTables, type EventTablesOwner } from '../retention/event-tables';
import { STATS_CONFIG, StatsConfig } from './stats.config';

/** What a report groups by; `hour` and `day` in the zone of the request's offsets. */
export type ReportDimension = 'hour' | 'day' | 'campaign' | 'adBlock' | 'country' | 'platform';

/** The counters a report sums, as the rollup's columns. */
export const REPORT_COUNTERS = [
  'impressions',
  'clicks',
  'unbilledClicks',
  'invalidClicks',
  'invalidImpressions',
  'views',
  'conversions',
  'onboardEvents',
  'registerEvents',
  'playEvents',
  'paymentEvents',
  'withdrawEvents',
  'verifiedClicks',
  'spendMicros',
  'earningsMicros',
  'completions',
] as const;

export type ReportCounter = (typeof REPORT_COUNTERS)[number];

/**
 * The UTC offset (ms) of the report's zone from `since` on; the first applies from the window's start. Offsets are
 * whole minutes; an hourly row counts in the local hour and day its UTC hour starts in.
 */
export interface OffsetChange {
  since: number;
  offsetMs: number;
}

export interface ReportRowsQuery {
  dimensions: readonly ReportDimension[];
  /** UTC hours in [firstHour, toExclusive). */
  firstHour: number;
  toExclusive: number;
  offsets: readonly OffsetChange[];
  /** null: no restriction. An empty list matches nothing. */
  campaignIds: readonly string[] | null;
  adBlockIds: readonly string[] | null;
}

/**
 * One grouped row: `hour` and `day` as the local start of the bucket in "shifted" ms (the local wall time read as
 * UTC), the other dimensions as stored.
 */
export type ReportRawRow = Partial<Record<ReportDimension, string | number>> & Record<ReportCounter, number>;

/** Rows per page on SQLite (MySQL streams from its cursor). */
const SQLITE_PAGE = 2000;

/**
 * The reads of the report rollup (`stats_report_hourly`, written by StatsRepository) and its retention: kept by UTC
 * day of `hour` for REPORT_RETENTION_DAYS (RetentionService; partitions on MySQL, batched deletes on SQLite).
 */
@Injectable()
@OwnsEventTables()
export class ReportRowsRepository implements EventTablesOwner {
  private readonly days: DayPartitionedTable;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(STATS_CONFIG) config: StatsConfig,
  ) {
    this.days = new DayPartitionedTable(dataSource, {
      table: 'stats_report_hourly',
      partitionColumn: 'hour',
      timeColumn: 'hour',
      keepDays: config.reportRetentionDays,
    });
  }

  eventTables(): DayPartitionedTable[] {
    return [this.days];
  }

  private get mysql(): boolean {
    return this.dataSource.options.type === 'mysql';
  }

  /**
   * The grouped rows in the order of their dimensions, one at a time: on MySQL from the server's cursor (the
   * connection pauses while the consumer is slow) on a read replica when there are some, on SQLite in pages after the
   * last row's keys. Never the whole result in memory.
   */
  async *rows(query: ReportRowsQuery): AsyncGenerator<ReportRawRow> {
    const keys = query.dimensions.map((dimension) => this.keyExpression(dimension, query.offsets));
    const sums = REPORT_COUNTERS.map((column) => `SUM(${column}) AS ${column}`).join(', ');
    // aliased apart from the columns: SQLite would read an alias `hour` inside the HAVING's `hour + offset`
    const selectKeys = keys.map((expression, i) => `${expression} AS k_${query.dimensions[i]}`);
    const where = ['hour >= ?', 'hour < ?'];
    const params: (string | number)[] = [query.firstHour, query.toExclusive];
    for (const [column, ids] of [
      ['campaignId', query.campaignIds],
      ['adBlockId', query.adBlockIds],
    ] as const) {
      if (ids === null) continue;
      if (ids.length === 0) return;
      where.push(`${column} IN (${ids.map(() => '?').join(', ')})`);
      params.push(...ids);
    }
    const groupBy = keys.length > 0 ? ` GROUP BY ${keys.join(', ')}` : '';
    const orderBy = keys.length > 0 ? ` ORDER BY ${keys.join(', ')}` : '';
    const select = `SELECT ${[...selectKeys, sums].join(', ')} FROM stats_report_hourly WHERE ${where.join(' AND ')}${groupBy}`;
    if (this.mysql) {
      yield* this.streamed(`${select}${orderBy}`, params, query.dimensions);
      return;
    }
    // SQLite: pages after the last row's keys (a row value comparison on the group's keys).
    let after: (string | number)[] | null = null;
    for (;;) {
      const having: string = after === null || keys.length === 0 ? '' : ` HAVING (${keys.join(', ')}) > (${keys.map(() => '?').join(', ')})`;
      const page: Record<string, unknown>[] = await this.dataSource.query(
        `${select}${having}${orderBy} LIMIT ${SQLITE_PAGE}`,
        after === null ? params : [...params, ...after],
      );
      for (const row of page) {
        const parsed = parseRow(row, query.dimensions);
        if (parsed !== null) yield parsed;
      }
      if (page.length < SQLITE_PAGE || keys.length === 0) return;
      const last = page[page.length - 1];
      after = query.dimensions.map((dimension) => last[`k_${dimension}`] as string | number);
    }
  }

  private async *streamed(sql: string, params: (string | number)[], dimensions: readonly ReportDimension[]): AsyncGenerator<ReportRawRow> {
    const runner = await replicaQueryRunner(this.dataSource);
    try {
      const stream = await runner.stream(sql, params);
      try {
        for await (const row of stream as AsyncIterable<Record<string, unknown>>) {
          const parsed = parseRow(row, dimensions);
          if (parsed !== null) yield parsed;
        }
      } finally {
        // a consumer that stops early (the client went away) leaves the cursor: destroying the stream ends it
        (stream as unknown as { destroy?: () => void }).destroy?.();
      }
    } finally {
      await runner.release();
    }
  }

  /** The SQL of a dimension's key: local hour or day starts from the zone's offsets, else the column. */
  private keyExpression(dimension: ReportDimension, offsets: readonly OffsetChange[]): string {
    switch (dimension) {
      case 'campaign':
        return 'campaignId';
      case 'adBlock':
        return 'adBlockId';
      case 'country':
        return 'country';
      case 'platform':
        return 'platform';
      case 'hour':
      case 'day': {
        // numbers this service computed (never the caller's text): inlined so the statement text stays small
        let local = `(hour + ${offsets[offsets.length - 1].offsetMs})`;
        for (let i = offsets.length - 2; i >= 0; i--) {
          local = `CASE WHEN hour < ${offsets[i + 1].since} THEN (hour + ${offsets[i].offsetMs}) ELSE ${local} END`;
        }
        if (dimension === 'hour') return `(${local})`;
        return `((${local}) - ((${local}) % ${DAY_MS}))`;
      }
    }
  }
}

function parseRow(row: Record<string, unknown>, dimensions: readonly ReportDimension[]): ReportRawRow | null {
  // an aggregate over no rows (no dimension, nothing in the window) is one row of NULL sums
  if (row.impressions === null || row.impressions === undefined) return null;
  const parsed: Record<string, string | number> = {};
  for (const dimension of dimensions) {
    const value = row[`k_${dimension}`];
    parsed[dimension] = dimension === 'hour' || dimension === 'day' ? Number(value) : String(value);
  }
  for (const column of REPORT_COUNTERS) parsed[column] = Number(row[column]);
  return parsed as ReportRawRow;
}
