import type { DataSource, QueryRunner } from 'typeorm';
import { DAY_MS } from '../common/clock';

/**
 * The SQL of an event table kept by UTC day (docs/SCALING.md, step 4): on MySQL a `RANGE` partition per day of
 * `partitionColumn` (epoch ms) with a catch-all `pmax`, days added ahead by re-organizing `pmax` and old days dropped
 * whole; on SQLite, rows older than the cut-off deleted in batches. Each owner's repository holds one per table and
 * is its only caller.
 */
export interface DayPartitionedTableSpec {
  table: string;
  /** What the table is partitioned by (part of every unique key on MySQL). */
  partitionColumn: string;
  /** The row's own time: nothing at or after the cut-off by this column is ever deleted. */
  timeColumn: string;
  /**
   * How far `timeColumn` may run ahead of `partitionColumn` (conversions are partitioned by their click's time and
   * come up to the attribution window later): a day is dropped only once this much more has passed.
   */
  lagMs?: () => number;
  /**
   * Whole UTC days the table keeps, when not EVENT_RETENTION_DAYS (the report rollup keeps REPORT_RETENTION_DAYS).
   */
  keepDays?: number;
}

export interface PartitionInfo {
  name: string;
  /** Rows with `partitionColumn` below this are in it; null for `pmax`. */
  lessThan: number | null;
}

export interface MaintenanceOutcome {
  table: string;
  /** MySQL: partitions added ahead. */
  addedPartitions: string[];
  /** MySQL: partitions dropped. */
  droppedPartitions: string[];
  /** SQLite: rows deleted. */
  deletedRows: number;
}

/** Rows per DELETE statement on SQLite: each statement is a short write lock, and serving's writes go in between. */
export const DELETE_BATCH = 5000;

export const MAX_PARTITION = 'pmax';

/** EVENT_PARTITION_DAYS_AHEAD's default. */
export const DEFAULT_DAYS_AHEAD = 7;

/** `pYYYYMMDD` holds the rows of that UTC day: the name is the last day below its bound. */
export function partitionName(lessThan: number): string {
  return `p${new Date(lessThan - 1).toISOString().slice(0, 10).replace(/-/g, '')}`;
}

export function dayStart(ms: number): number {
  return ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
}

/**
 * The partition clause a migration converts a table with: the days so far in one partition ending with `now`'s day,
 * the next `daysAhead` days (so the job's first run at start has nothing to add), then `pmax`.
 */
export function initialPartitionsSql(partitionColumn: string, now: number, daysAhead = DEFAULT_DAYS_AHEAD): string {
  const bounds = Array.from({ length: daysAhead + 1 }, (_, i) => dayStart(now) + (i + 1) * DAY_MS);
  const days = bounds.map((bound) => `PARTITION \`${partitionName(bound)}\` VALUES LESS THAN (${bound})`);
  return `PARTITION BY RANGE (\`${partitionColumn}\`) (${days.join(', ')}, PARTITION \`${MAX_PARTITION}\` VALUES LESS THAN MAXVALUE)`;
}

export class DayPartitionedTable {
  constructor(
    private readonly dataSource: DataSource,
    readonly spec: DayPartitionedTableSpec,
  ) {}

  private get mysql(): boolean {
    return this.dataSource.options.type === 'mysql';
  }

  get table(): string {
    return this.spec.table;
  }

  /** The spec's keepDays: undefined, the job's EVENT_RETENTION_DAYS. */
  get keepDays(): number | undefined {
    return this.spec.keepDays;
  }

  /**
   * Adds the days ahead and drops (deletes) the rows older than `cutoff`, under a MySQL named lock per table so
   * processes running it at once take turns (one works, the others skip: null). Idempotent: a second run right
   * after the first changes nothing.
   */
  async maintain(now: number, daysAhead: number, cutoff: number): Promise<MaintenanceOutcome | null> {
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.connect();
      if (!this.mysql) {
        const deletedRows = await this.deleteBefore(runner, cutoff);
        return { table: this.table, addedPartitions: [], droppedPartitions: [], deletedRows };
      }
      // MySQL's named locks are server-wide: the name carries the database, so services on other databases of the
      // same server never take this table's turn (hashed, as lock names are limited to 64 characters).
      const [{ lockName: lock }] = await runner.query("SELECT CONCAT('adnet:day-partitions:', SHA1(CONCAT(DATABASE(), '.', ?))) AS lockName", [this.table]);
      const [{ got }] = await runner.query('SELECT GET_LOCK(?, 0) AS got', [lock]);
      if (Number(got) !== 1) return null;
      try {
        const addedPartitions = await this.addDaysAhead(runner, now, daysAhead, cutoff);
        const droppedPartitions = await this.dropBefore(runner, cutoff);
        return { table: this.table, addedPartitions, droppedPartitions, deletedRows: 0 };
      } finally {
        await runner.query('SELECT RELEASE_LOCK(?)', [lock]);
      }
    } finally {
      await runner.release();
    }
  }

  /** The table's partitions in order (MySQL; none on SQLite). */
  async partitions(on: QueryRunner | DataSource = this.dataSource): Promise<PartitionInfo[]> {
    if (!this.mysql) return [];
    const rows: { name: string | null; description: string | null }[] = await on.query(
      `SELECT PARTITION_NAME AS name, PARTITION_DESCRIPTION AS description FROM information_schema.PARTITIONS
       WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY PARTITION_ORDINAL_POSITION`,
      [this.spec.table],
    );
    return rows
      .filter((row): row is { name: string; description: string | null } => row.name !== null)
      .map((row) => ({ name: row.name, lessThan: row.description === null || row.description === 'MAXVALUE' ? null : Number(row.description) }));
  }

  /**
   * Makes sure a partition exists for every day through `daysAhead` days after `now`'s, splitting them off `pmax`
   * (nothing to do when they exist: running it again changes nothing). Answers the partitions added. Days the job
   * missed get their own partitions too, back to `from` (the retention cut-off); older ones, due to go anyway, share
   * the first.
   */
  private async addDaysAhead(on: QueryRunner, now: number, daysAhead: number, from: number): Promise<string[]> {
    const partitions = await this.partitions(on);
    const last = partitions[partitions.length - 1];
    if (!last || last.name !== MAX_PARTITION || last.lessThan !== null) {
      throw new Error(`${this.spec.table} is not partitioned by day with a ${MAX_PARTITION} partition`);
    }
    const highest = partitions.reduce((max, partition) => (partition.lessThan === null ? max : Math.max(max, partition.lessThan)), 0);
    const until = dayStart(now) + (daysAhead + 1) * DAY_MS;
    const bounds: number[] = [];
    for (let bound = Math.max(highest, dayStart(from)) + DAY_MS; bound <= until; bound += DAY_MS) bounds.push(bound);
    if (bounds.length === 0) return [];
    const added = bounds.map((bound) => `PARTITION \`${partitionName(bound)}\` VALUES LESS THAN (${bound})`);
    await on.query(
      `ALTER TABLE \`${this.spec.table}\` REORGANIZE PARTITION \`${MAX_PARTITION}\` INTO (${added.join(', ')}, PARTITION \`${MAX_PARTITION}\` VALUES LESS THAN MAXVALUE)`,
    );
    return bounds.map(partitionName);
  }

  /**
   * MySQL: drops each partition whose every row is before `cutoff`: its bound (plus the spec's lag) is at or before
   * the cut-off, and, with a lag, its newest row confirms it.
   */
  private async dropBefore(on: QueryRunner, cutoff: number): Promise<string[]> {
    const { table, timeColumn } = this.spec;
    const lag = this.spec.lagMs?.() ?? 0;
    const droppable: string[] = [];
    for (const partition of await this.partitions(on)) {
      if (partition.lessThan === null || partition.lessThan + lag > cutoff) continue;
      if (lag > 0) {
        const [{ newest }] = await on.query(`SELECT MAX(\`${timeColumn}\`) AS newest FROM \`${table}\` PARTITION (\`${partition.name}\`)`);
        if (newest !== null && Number(newest) >= cutoff) continue;
      }
      droppable.push(partition.name);
    }
    if (droppable.length > 0) await on.query(`ALTER TABLE \`${table}\` DROP PARTITION ${droppable.map((name) => `\`${name}\``).join(', ')}`);
    return droppable;
  }

  /** SQLite: deletes the rows before `cutoff` in batches of DELETE_BATCH. */
  private async deleteBefore(on: QueryRunner, cutoff: number): Promise<number> {
    const { table, timeColumn } = this.spec;
    let deleted = 0;
    for (;;) {
      const result = await on.query(
        `DELETE FROM "${table}" WHERE rowid IN (SELECT rowid FROM "${table}" WHERE "${timeColumn}" < ? LIMIT ${DELETE_BATCH})`,
        [cutoff],
        true,
      );
      const changed = result.affected ?? 0;
      deleted += changed;
      if (changed < DELETE_BATCH) return deleted;
    }
  }
}
