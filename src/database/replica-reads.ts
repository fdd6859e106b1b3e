import { Logger } from '@nestjs/common';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';

const logger = new Logger('ReplicaReads');
/** At most one warning per this time: while a replica is down every report, list and series would log one. */
const WARN_EVERY_MS = 10_000;
let warnedAt = -Infinity;

/**
 * Runs a read that may lag behind the writes on a read replica (DATABASE_REPLICA_URLS): reports, lists and series,
 * whose answers may trail the primary by the replicas' lag (docs/SCALING.md, "Read replicas"). Every other statement
 * runs on the primary (data-source-options.ts makes it TypeORM's default), so the money paths never read a copy.
 * Without replicas it reads the primary through the data source's own manager.
 */
export async function readFromReplica<T>(dataSource: DataSource, read: (manager: EntityManager) => Promise<T>): Promise<T> {
  if (!dataSource.driver.isReplicated) return read(dataSource.manager);
  const runner = await replicaQueryRunner(dataSource);
  try {
    return await read(runner.manager);
  } finally {
    await runner.release();
  }
}

/**
 * A query runner for a read that may lag (a streamed report): a replica's, or the primary's when there is none or
 * no replica gives a connection (a report is then read from the primary, never refused). The caller releases it.
 */
export async function replicaQueryRunner(dataSource: DataSource): Promise<QueryRunner> {
  if (dataSource.driver.isReplicated) {
    const runner = dataSource.createQueryRunner('slave');
    try {
      await runner.connect();
      return runner;
    } catch (error) {
      await runner.release();
      if (Date.now() - warnedAt >= WARN_EVERY_MS) {
        warnedAt = Date.now();
        logger.warn({ err: error }, 'no read replica gave a connection: this read goes to the primary (said once per 10 s)');
      }
    }
  }
  return dataSource.createQueryRunner('master');
}
