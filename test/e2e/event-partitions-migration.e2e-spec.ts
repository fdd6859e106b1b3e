import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource, DataSourceOptions } from 'typeorm';
import { DAY_MS } from '../../src/common/clock';
import { isDuplicateKey } from '../../src/database/duplicate-key';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { dayStart, partitionName } from '../../src/database/day-partitions';
import { MYSQL_MIGRATIONS } from '../../src/database/migrations/mysql';
import { SQLITE_MIGRATIONS } from '../../src/database/migrations/sqlite';
import { TEST_DATABASE_URL, TEST_PROFILE } from '../support/profile';

const EVENT_TABLES = ['clicks', 'conversions', 'exchange_clicks', 'exchange_conversions', 'verification_calls'];

/**
 * The migration that keeps the raw event tables by day (docs/SCALING.md, step 4), on an empty schema and on one
 * holding rows: every row kept, conversions given their click's time, the unique keys as strict as before; on MySQL
 * the tables partitioned (the rows so far in one partition, then pmax); and undone.
 */
describe(`Migration of the event tables to day partitions [${TEST_PROFILE}]`, () => {
  const sqliteFile = join(tmpdir(), `adnet-e2e-partitions-${process.pid}-${randomBytes(4).toString('hex')}.sqlite`);
  const all = TEST_PROFILE === 'mysql' ? MYSQL_MIGRATIONS : SQLITE_MIGRATIONS;
  const before = all.filter((migration) => !migration.name.startsWith('EventPartitions'));
  let dataSource: DataSource;
  const base = () =>
    dataSourceOptions(TEST_PROFILE === 'mysql' ? { type: 'mysql', location: TEST_DATABASE_URL } : { type: 'sqlite', location: sqliteFile }, false);

  async function migrateFrom(seed: (ds: DataSource) => Promise<void>): Promise<void> {
    if (dataSource?.isInitialized) await dataSource.destroy();
    const old = new DataSource({ ...base(), migrations: before, dropSchema: true } as DataSourceOptions);
    await old.initialize();
    await old.runMigrations();
    await seed(old);
    await old.destroy();
    dataSource = new DataSource({ ...base(), dropSchema: false } as DataSourceOptions);
    await dataSource.initialize();
    await dataSource.runMigrations();
  }

  const count = async (table: string) => Number((await dataSource.query(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);
  const partitions = async (table: string) =>
    (
      await dataSource.query(
        `SELECT PARTITION_NAME AS name, PARTITION_DESCRIPTION AS bound FROM information_schema.PARTITIONS
         WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY PARTITION_ORDINAL_POSITION`,
        [table],
      )
    ).map((row: { name: string | null; bound: string | null }) => ({ name: row.name, bound: row.bound }));
  const insertClick = (ds: DataSource, id: string, createdAt: number) =>
    ds.query(
      'INSERT INTO clicks (id, campaignId, advertiserId, adBlockId, adId, messengerUserId, costMicros, earningsMicros, createdAt) VALUES (?, ?, ?, ?, ?, ?, 0, 0, ?)',
      [id, 'c1', 'a1', 'b1', 'ad1', 'u1', createdAt],
    );
  const insertConversion = (ds: DataSource, id: string, clickId: string | null, createdAt: number) =>
    ds.query('INSERT INTO conversions (id, advertiserId, messengerUserId, clickId, campaignId, createdAt, eventType) VALUES (?, ?, ?, ?, ?, ?, ?)', [
      id,
      'a1',
      'u1',
      clickId,
      clickId ? 'c1' : null,
      createdAt,
      'conversion',
    ]);

  afterAll(async () => {
    if (dataSource?.isInitialized) await dataSource.destroy();
    for (const suffix of ['', '-wal', '-shm']) rmSync(sqliteFile + suffix, { force: true });
  });

  it('should convert empty tables: on MySQL one partition ending with today, one per day of the 7 ahead, then pmax', async () => {
    await migrateFrom(async () => undefined);
    for (const table of EVENT_TABLES) expect(await count(table)).toBe(0);
    if (TEST_PROFILE !== 'mysql') return;
    const end = dayStart(Date.now()) + DAY_MS;
    for (const table of EVENT_TABLES) {
      expect({ table, partitions: await partitions(table) }).toEqual({
        table,
        partitions: [
          ...[0, 1, 2, 3, 4, 5, 6, 7].map((day) => ({ name: partitionName(end + day * DAY_MS), bound: String(end + day * DAY_MS) })),
          { name: 'pmax', bound: 'MAXVALUE' },
        ],
      });
    }
  });

  it('should keep every row, give conversions their click time, keep the unique keys as strict, and undo it', async () => {
    const now = Date.now();
    const old = now - 40 * DAY_MS;
    await migrateFrom(async (ds) => {
      await insertClick(ds, 'k1', old);
      await insertClick(ds, 'k2', now);
      await insertConversion(ds, 'v1', 'k1', old + 3 * DAY_MS);
      await insertConversion(ds, 'v2', null, now);
      await ds.query(
        'INSERT INTO exchange_clicks (id, inExchangeCampaignId, outExchangeCampaignId, inAccountId, outAccountId, messengerUserId, createdAt) VALUES (?, ?, ?, ?, ?, ?, ?)',
        ['x1', 'e-in', 'e-out', 'p-in', 'p-out', 'u1', old],
      );
      await ds.query(
        'INSERT INTO exchange_conversions (id, partnerId, messengerUserId, exchangeClickId, exchangeCampaignId, createdAt) VALUES (?, ?, ?, ?, ?, ?)',
        ['xv1', 'p-in', 'u1', 'x1', 'e-in', old + DAY_MS],
      );
      await ds.query(
        'INSERT INTO verification_calls (id, campaignId, clickId, attempt, calledAt, outcome, httpStatus, latencyMs, error) VALUES (?, ?, ?, 1, ?, ?, 200, 5, NULL)',
        ['vc1', 'c1', 'k1', old, 'verified'],
      );
    });
    expect(await Promise.all(EVENT_TABLES.map(count))).toEqual([2, 2, 1, 1, 1]);
    const conversions = await dataSource.query('SELECT id, partitionAt FROM conversions ORDER BY id');
    expect(conversions.map((row: { id: string; partitionAt: number | string }) => [row.id, Number(row.partitionAt)])).toEqual([
      ['v1', old],
      ['v2', now],
    ]);
    const [exchange] = await dataSource.query('SELECT partitionAt FROM exchange_conversions');
    expect(Number(exchange.partitionAt)).toBe(old);

    // a second conversion of the same type on click k1 still fails on the unique key, whatever its own time
    const second = await dataSource
      .query(
        'INSERT INTO conversions (id, advertiserId, messengerUserId, clickId, campaignId, createdAt, eventType, partitionAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        ['v3', 'a1', 'u1', 'k1', 'c1', now, 'conversion', old],
      )
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(isDuplicateKey(second)).toBe(true);
    const secondExchange = await dataSource
      .query(
        'INSERT INTO exchange_conversions (id, partnerId, messengerUserId, exchangeClickId, exchangeCampaignId, createdAt, partitionAt) VALUES (?, ?, ?, ?, ?, ?, ?)',
        ['xv2', 'p-in', 'u1', 'x1', 'e-in', now, old],
      )
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(isDuplicateKey(secondExchange)).toBe(true);

    if (TEST_PROFILE === 'mysql') {
      const end = dayStart(Date.now()) + DAY_MS;
      const [{ n }] = await dataSource.query(`SELECT COUNT(*) AS n FROM clicks PARTITION (\`${partitionName(end)}\`)`);
      expect(Number(n)).toBe(2);
    }

    await dataSource.undoLastMigration();
    expect(await Promise.all(EVENT_TABLES.map(count))).toEqual([2, 2, 1, 1, 1]);
    if (TEST_PROFILE === 'mysql') {
      for (const table of EVENT_TABLES) expect(await partitions(table)).toEqual([{ name: null, bound: null }]);
    }
    const columns: { name?: string; Field?: string }[] =
      TEST_PROFILE === 'mysql' ? await dataSource.query('SHOW COLUMNS FROM conversions') : await dataSource.query('PRAGMA table_info(conversions)');
    expect(columns.map((column) => column.Field ?? column.name)).not.toContain('partitionAt');
  });
});
