import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import type { DatabaseTarget } from './database.config';
import { ENTITIES } from './entities';
import { MYSQL_MIGRATIONS } from './migrations/mysql';
import { SQLITE_MIGRATIONS } from './migrations/sqlite';

/**
 * The one description of the database, used by the application and by the TypeORM CLI (ormconfig.ts). `replicas`
 * (MySQL URLs, DATABASE_REPLICA_URLS) adds read replicas: only reads that ask for one go there
 * (src/database/replica-reads.ts); every other statement, reads outside transactions included, runs on the primary.
 */
export function dataSourceOptions(target: DatabaseTarget, runMigrations: boolean, replicas: readonly string[] = []): DataSourceOptions {
  if (target.type === 'mysql') {
    return {
      type: 'mysql',
      ...(replicas.length === 0
        ? { url: target.location }
        : {
            replication: {
              master: { url: target.location },
              slaves: replicas.map((url) => ({ url })),
              // TypeORM sends a find() outside a transaction to a replica unless told otherwise: the money paths
              // (serving, clicks, budgets, leases, attribution) read that way, and must see the primary's rows.
              defaultMode: 'master',
              // mysql2's pool cluster drops a node for good after 5 failed connections unless this is set: a primary
              // restarted would then never be used again by this process. Offline for a second, then tried again.
              restoreNodeTimeout: 1000,
            },
          }),
      entities: ENTITIES,
      migrations: MYSQL_MIGRATIONS,
      migrationsRun: runMigrations,
      migrationsTransactionMode: 'each',
      synchronize: false,
      supportBigNumbers: true,
      bigNumberStrings: false,
      charset: 'utf8mb4_unicode_ci',
      timezone: 'Z',
      poolSize: 20,
      connectTimeout: 5000,
      // The counter writer sends a transaction's statements in one round trip (StatementBatch); every query of the
      // application is parameterized.
      multipleStatements: true,
      extra: {
        // mysql2 gives every connection a prepared-statement cache sized up front: 16,000 slots by default, about
        // half a megabyte of arrays per connection, made again for every connection the pool opens (after an idle
        // close, a restart of the database, each refused attempt). That garbage lived long enough to be copied by
        // the young-generation collector, whose pauses held the ad path. TypeORM sends text queries, never
        // `execute()`, so the cache stays empty anyway.
        maxPreparedStatements: 16,
      },
    };
  }
  if (target.location !== ':memory:') mkdirSync(dirname(target.location), { recursive: true });
  return {
    type: 'better-sqlite3',
    database: target.location,
    entities: ENTITIES,
    migrations: SQLITE_MIGRATIONS,
    migrationsRun: runMigrations,
    migrationsTransactionMode: 'each',
    synchronize: false,
    // WAL lets readers go on while a writer commits.
    enableWAL: true,
    // Every commit synced to disk, so an answered click survives a power loss too (docs/OPERATIONS.md). Set before
    // WAL is: better-sqlite3 is built to default to NORMAL on a database already in WAL mode, so without this the
    // first start ran FULL and every restart NORMAL. Group commits pay one sync per group (docs/PERFORMANCE.md#clicks-group-commits).
    prepareDatabase: (db: { pragma(source: string): unknown }) => {
      db.pragma('synchronous = FULL');
    },
    timeout: 5000,
  };
}
