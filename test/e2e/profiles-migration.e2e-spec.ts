import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource, DataSourceOptions } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { MYSQL_MIGRATIONS } from '../../src/database/migrations/mysql';
import { SQLITE_MIGRATIONS } from '../../src/database/migrations/sqlite';
import { TEST_DATABASE_URL, TEST_PROFILE } from '../support/profile';

/**
 * The migration to per-publisher profiles, on a database that holds global profiles: they go to the one account
 * that ever uploaded batches, or, when several did, are kept apart (never served) rather than guessed.
 */
describe(`Migration of global profiles to per-publisher profiles [${TEST_PROFILE}]`, () => {
  const sqliteFile = join(tmpdir(), `adnet-e2e-migration-${process.pid}-${randomBytes(4).toString('hex')}.sqlite`);
  const before = (TEST_PROFILE === 'mysql' ? MYSQL_MIGRATIONS : SQLITE_MIGRATIONS).filter((migration) => !migration.name.startsWith('PublisherData'));
  let dataSource: DataSource;

  /** A fresh schema as it was before the migration, then the migration run on the rows `seed` put there. */
  async function migrateFrom(seed: (ds: DataSource) => Promise<void>): Promise<void> {
    const base = dataSourceOptions(TEST_PROFILE === 'mysql' ? { type: 'mysql', location: TEST_DATABASE_URL } : { type: 'sqlite', location: sqliteFile }, false);
    if (dataSource?.isInitialized) await dataSource.destroy();
    const old = new DataSource({ ...base, migrations: before, dropSchema: true } as DataSourceOptions);
    await old.initialize();
    await old.runMigrations();
    await seed(old);
    await old.destroy();
    dataSource = new DataSource({ ...base, dropSchema: false } as DataSourceOptions);
    await dataSource.initialize();
    await dataSource.runMigrations();
  }

  const insertBatch = (ds: DataSource, id: string, accountId: string, status = 'done') =>
    ds.query(
      'INSERT INTO profile_batches (id, accountId, source, status, total, processed, attempts, error, records, createdAt, updatedAt, finishedAt) VALUES (?, ?, ?, ?, 1, 1, 1, NULL, NULL, 1, 1, 1)',
      [id, accountId, 'json', status],
    );
  const insertProfile = (ds: DataSource, userId: string, premium: boolean) =>
    ds.query('INSERT INTO profiles (messengerUserId, isPremium, lastFields, updatedAt) VALUES (?, ?, 8, 1000)', [userId, premium ? 1 : 0]);
  const rows = async (table: string) =>
    (await dataSource.query(`SELECT * FROM ${table} ORDER BY messengerUserId`)).map((row: Record<string, unknown>) => ({
      accountId: row.accountId,
      messengerUserId: row.messengerUserId,
      isPremium: row.isPremium === null ? null : Number(row.isPremium) === 1,
    }));
  const hasTable = async (name: string) =>
    TEST_PROFILE === 'mysql'
      ? (await dataSource.query('SHOW TABLES LIKE ?', [name])).length > 0
      : (await dataSource.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?", [name])).length > 0;

  afterAll(async () => {
    if (dataSource?.isInitialized) await dataSource.destroy();
    for (const suffix of ['', '-wal', '-shm']) rmSync(sqliteFile + suffix, { force: true });
  });

  it('should give every profile to the one account whose batches wrote them (a staged import does not count)', async () => {
    await migrateFrom(async (ds) => {
      await insertBatch(ds, 'b1', 'pub-a');
      await insertBatch(ds, 'b2', 'pub-a', 'queued');
      await insertBatch(ds, 'b3', 'pub-z', 'staged');
      await insertProfile(ds, 'u1', true);
      await insertProfile(ds, 'u2', false);
    });
    expect(await rows('profiles')).toEqual([
      { accountId: 'pub-a', messengerUserId: 'u1', isPremium: true },
      { accountId: 'pub-a', messengerUserId: 'u2', isPremium: false },
    ]);
    expect(await hasTable('profiles_unattributed')).toBe(false);
    // the new key: another publisher's profile of the same user is a row of its own
    await dataSource.query('INSERT INTO profiles (accountId, messengerUserId, isPremium, lastFields, updatedAt) VALUES (?, ?, 0, 8, 2000)', ['pub-b', 'u1']);
    expect((await rows('profiles')).filter((row: { messengerUserId: string }) => row.messengerUserId === 'u1')).toHaveLength(2);
  });

  it('should keep profiles apart, serving none, when several accounts uploaded and the writer is unknown; and undo it', async () => {
    await migrateFrom(async (ds) => {
      await insertBatch(ds, 'b1', 'pub-a');
      await insertBatch(ds, 'b2', 'pub-b');
      await insertProfile(ds, 'u1', true);
    });
    expect(await rows('profiles')).toEqual([]);
    expect(await rows('profiles_unattributed')).toEqual([{ accountId: undefined, messengerUserId: 'u1', isPremium: true }]);

    await dataSource.undoLastMigration();
    expect(await hasTable('profiles_unattributed')).toBe(false);
    expect(await rows('profiles')).toEqual([{ accountId: undefined, messengerUserId: 'u1', isPremium: true }]);
  });
});
