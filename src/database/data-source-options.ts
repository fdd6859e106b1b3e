import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import type { DatabaseTarget } from './database.config';
import { ENTITIES } from './entities';
import { MYSQL_MIGRATIONS } from './migrations/mysql';
import { SQLITE_MIGRATIONS } from './migrations/sqlite';

/** The one description of the database, used by the application and by the TypeORM CLI (ormconfig.ts). */
export function dataSourceOptions(target: DatabaseTarget, runMigrations: boolean): DataSourceOptions {
  if (target.type === 'mysql') {
    return {
      type: 'mysql',
      url: target.location,
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
