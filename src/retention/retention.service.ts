import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { RETENTION_CONFIG, RetentionConfig } from './retention.config';
import { DiscoveryService, Reflector } from '@nestjs/core';
import { Clock, DAY_MS, HOUR_MS } from '../common/clock';
import { dayStart, type DayPartitionedTable, type MaintenanceOutcome } from '../database/day-partitions';
import { EVENT_TABLES_OWNER, type EventTablesOwner } from './event-tables';

/** Partitions ahead are made well before they are needed, so an hourly run that fails a few times costs nothing. */
const RUN_EVERY_MS = HOUR_MS;

/**
 * Keeps the raw event tables by UTC day: every API process runs it at start (after the migrations, without holding
 * up the start: a day's rows that arrive before their partition is made go to the catch-all one) and hourly; on
 * MySQL a named lock per table lets one process work and the others skip. Each run adds the day partitions through
 * EVENT_PARTITION_DAYS_AHEAD and removes the whole days older than EVENT_RETENTION_DAYS (MySQL: DROP PARTITION;
 * SQLite: batched DELETEs). Running it again changes nothing. Hourly stats and counters are aggregates: kept forever;
 * the report rollup is kept by day like an event table, for its own REPORT_RETENTION_DAYS (its spec's `keepDays`).
 */
@Injectable()
export class RetentionService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(RetentionService.name);
  private timer: NodeJS.Timeout | undefined;
  private tables: DayPartitionedTable[] = [];
  /** The run that callers arriving now share: not started yet, it begins when the one going ends. */
  private pending: Promise<MaintenanceOutcome[]> | null = null;
  /** Settles when every run asked for so far has ended. */
  private idle: Promise<unknown> = Promise.resolve();

  constructor(
    @Inject(RETENTION_CONFIG) private readonly config: RetentionConfig,
    private readonly clock: Clock,
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const byName = new Map<string, DayPartitionedTable>();
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as EventTablesOwner | undefined;
      if (!instance || typeof instance !== 'object' || !wrapper.isDependencyTreeStatic()) continue;
      if (!this.reflector.get<boolean | undefined>(EVENT_TABLES_OWNER, instance.constructor)) continue;
      for (const table of instance.eventTables()) byName.set(table.table, table);
    }
    this.tables = [...byName.values()];
    // Not awaited: after a week without the job, MySQL copies the catch-all partition's rows (seconds per 200,000).
    void this.runLogged();
    this.timer = setInterval(() => void this.runLogged(), RUN_EVERY_MS);
    this.timer.unref();
  }

  /** A run is not cut off by the database connection closing under it. */
  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.idle;
  }

  /** The tables kept, by name. */
  get tableNames(): string[] {
    return this.tables.map((table) => table.table).sort();
  }

  /** Rows whose time is before this are removed: the start of the UTC day EVENT_RETENTION_DAYS ago. */
  cutoff(now = this.clock.now()): number {
    return dayStart(now - this.config.eventRetentionDays * DAY_MS);
  }

  /**
   * One run over every table that begins after this call (a run going now is waited for, callers meanwhile share the
   * next one, so runs are never doubled); tables another process holds are left out.
   */
  run(): Promise<MaintenanceOutcome[]> {
    if (!this.pending) {
      const next = this.idle.then(() => {
        this.pending = null;
        return this.runOnce();
      });
      this.pending = next;
      this.idle = next.catch(() => undefined);
    }
    return this.pending;
  }

  private async runOnce(): Promise<MaintenanceOutcome[]> {
    const now = this.clock.now();
    const cutoff = this.cutoff(now);
    const outcomes: MaintenanceOutcome[] = [];
    for (const table of this.tables) {
      const keepDays = table.keepDays;
      const outcome = await table.maintain(now, this.config.eventPartitionDaysAhead, keepDays === undefined ? cutoff : dayStart(now - keepDays * DAY_MS));
      if (outcome) outcomes.push(outcome);
    }
    return outcomes;
  }

  private async runLogged(): Promise<void> {
    try {
      for (const outcome of await this.run()) {
        const { table, addedPartitions, droppedPartitions, deletedRows } = outcome;
        if (addedPartitions.length + droppedPartitions.length + deletedRows === 0) continue;
        this.logger.log(
          `${table}: ${addedPartitions.length} partition(s) added ahead, ${droppedPartitions.length} dropped, ${deletedRows} row(s) deleted (retention ${this.config.eventRetentionDays} days)`,
        );
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'event retention run failed');
    }
  }
}
