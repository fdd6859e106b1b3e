import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DiscoveryService, Reflector } from '@nestjs/core';
import { Clock, DAY_MS, HOUR_MS } from '../common/clock';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { dayStart, type DayPartitionedTable, type MaintenanceOutcome } from '../database/day-partitions';
import { EVENT_TABLES_OWNER, type EventTablesOwner } from './event-tables';

/** Partitions ahead are made well before they are needed, so an hourly run that fails a few times costs nothing. */
const RUN_EVERY_MS = HOUR_MS;

/**
 * Keeps the raw event tables by UTC day: every API process runs it at start (after the migrations) and hourly; on
 * MySQL a named lock per table lets one process work and the others skip. Each run adds the day partitions through
 * EVENT_PARTITION_DAYS_AHEAD and removes the whole days older than EVENT_RETENTION_DAYS (MySQL: DROP PARTITION;
 * SQLite: batched DELETEs). Running it again changes nothing. Hourly stats and counters are aggregates: kept forever.
 */
@Injectable()
export class RetentionService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RetentionService.name);
  private timer: NodeJS.Timeout | undefined;
  private tables: DayPartitionedTable[] = [];
  private running: Promise<MaintenanceOutcome[]> | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
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
    await this.runLogged();
    this.timer = setInterval(() => void this.runLogged(), RUN_EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** The tables kept, by name. */
  get tableNames(): string[] {
    return this.tables.map((table) => table.table).sort();
  }

  /** Rows whose time is before this are removed: the start of the UTC day EVENT_RETENTION_DAYS ago. */
  cutoff(now = this.clock.now()): number {
    return dayStart(now - this.config.eventRetentionDays * DAY_MS);
  }

  /** One run over every table (a run already going is joined, not doubled); tables another process holds are left out. */
  run(): Promise<MaintenanceOutcome[]> {
    this.running ??= this.runOnce().finally(() => (this.running = null));
    return this.running;
  }

  private async runOnce(): Promise<MaintenanceOutcome[]> {
    const now = this.clock.now();
    const cutoff = this.cutoff(now);
    const outcomes: MaintenanceOutcome[] = [];
    for (const table of this.tables) {
      const outcome = await table.maintain(now, this.config.eventPartitionDaysAhead, cutoff);
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
