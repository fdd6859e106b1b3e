import { DataSource, type DataSourceOptions } from 'typeorm';
import type { DatabaseTarget } from './database.config';
import { dataSourceOptions } from './data-source-options';
import { KNOWN_SCHEMA_DRIFT } from './known-schema-drift';

/**
 * What TypeORM would still change in a database built by the migrations alone to match the entities: the idea of
 * `migration:generate --check`. The database must be empty (it is built here); `options` lets a test load other
 * entities or migrations than the application's.
 */
export async function schemaDrift(target: DatabaseTarget, options: Pick<DataSourceOptions, 'entities' | 'migrations'> | object = {}): Promise<string[]> {
  const dataSource = new DataSource({ ...dataSourceOptions(target, false), ...options } as DataSourceOptions);
  await dataSource.initialize();
  if (dataSource.driver.options.type === 'mysql' && /mariadb/i.test(await serverVersion(dataSource))) {
    // TypeORM reads MariaDB's column defaults (a nullable column's `NULL`) right only when it knows the server is
    // MariaDB; the application's connection does not need to know, the comparison does.
    await dataSource.destroy();
    return schemaDrift(target, { ...options, type: 'mariadb' });
  }
  try {
    await dataSource.runMigrations({ transaction: 'each' });
    const log = await dataSource.driver.createSchemaBuilder().log();
    return log.upQueries.map((query) => query.query.trim());
  } finally {
    await dataSource.destroy();
  }
}

async function serverVersion(dataSource: DataSource): Promise<string> {
  const [row] = (await dataSource.query('SELECT VERSION() AS version')) as { version: string }[];
  return row.version;
}

export interface DriftReport {
  /** Differences not in the known list: an entity and the migrations disagree. */
  unexpected: string[];
  /** Known differences that are gone: the list must shrink with them (docs/ARCHITECTURE.md, "Schema"). */
  resolved: string[];
}

/** Compares a database's drift with the known differences of its type. */
export function compareWithKnown(type: DatabaseTarget['type'], drift: string[]): DriftReport {
  const known = new Set(KNOWN_SCHEMA_DRIFT[type]);
  const seen = new Set(drift);
  return { unexpected: drift.filter((query) => !known.has(query)), resolved: [...known].filter((query) => !seen.has(query)) };
}
