/**
 * `npm run schema:check`: builds an empty database of each type with the migrations alone and asks TypeORM what it
 * would still change to match the entities (src/database/schema-drift.ts). Fails (exit 1) on any difference not in
 * src/database/known-schema-drift.ts, and on a known one that is gone. SQLite: a temporary file. MySQL: the throw-away
 * database SCHEMA_CHECK_DATABASE (default `adnet_schema_check`, so checkouts side by side can each have one) on the
 * server of SCHEMA_CHECK_DATABASE_URL (default mysql://root@127.0.0.1:3306), dropped and made again; without CI=true
 * an unreachable server skips the MySQL half, saying so.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { compareWithKnown, schemaDrift } from '../src/database/schema-drift';
import type { DatabaseTarget } from '../src/database/database.config';

const SERVER = (process.env.SCHEMA_CHECK_DATABASE_URL || 'mysql://root@127.0.0.1:3306').replace(/\/[^/@]*$/, '');
const DATABASE = process.env.SCHEMA_CHECK_DATABASE || 'adnet_schema_check';

async function check(target: DatabaseTarget): Promise<boolean> {
  const { unexpected, resolved } = compareWithKnown(target.type, await schemaDrift(target));
  if (unexpected.length === 0 && resolved.length === 0) {
    process.stdout.write(`${target.type}: the migrations build what the entities declare (besides the known differences listed in known-schema-drift.ts)\n`);
    return true;
  }
  if (unexpected.length > 0) {
    process.stderr.write(`${target.type}: the entities and the migrations differ; TypeORM would still run:\n  ${unexpected.join('\n  ')}\n`);
    process.stderr.write('Write a migration for each database (npm run migration:generate, see docs/ARCHITECTURE.md "Schema").\n');
  }
  if (resolved.length > 0) {
    process.stderr.write(
      `${target.type}: known differences no longer seen; take them out of src/database/known-schema-drift.ts:\n  ${resolved.join('\n  ')}\n`,
    );
  }
  return false;
}

async function freshMysqlDatabase(): Promise<string | null> {
  try {
    const connection = await createConnection({ uri: `${SERVER}/`, connectTimeout: 5000 });
    await connection.query(`DROP DATABASE IF EXISTS ${DATABASE}`);
    await connection.query(`CREATE DATABASE ${DATABASE}`);
    await connection.end();
    return `${SERVER}/${DATABASE}`;
  } catch (error) {
    const message = `MySQL at ${SERVER.replace(/\/\/[^@]*@/, '//***@')} unreachable: ${(error as Error).message}`;
    if (process.env.CI === 'true') throw new Error(message, { cause: error });
    process.stdout.write(`mysql: skipped (${message}; CI is not set)\n`);
    return null;
  }
}

async function main(): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'adnet-schema-check-'));
  let ok: boolean;
  try {
    ok = await check({ type: 'sqlite', location: join(folder, 'check.sqlite') });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  const mysql = await freshMysqlDatabase();
  if (mysql !== null) ok = (await check({ type: 'mysql', location: mysql })) && ok;
  process.exit(ok ? 0 : 1);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
