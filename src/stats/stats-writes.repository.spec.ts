import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { StatementBatch, StatsWritesRepository } from './stats-writes.repository';

/** A file database in WAL mode, as data-source-options.ts opens the embedded one. */
async function fileDatabase(dir: string): Promise<DataSource> {
  const dataSource = new DataSource({ type: 'better-sqlite3', database: join(dir, 'db.sqlite'), enableWAL: true });
  await dataSource.initialize();
  await dataSource.query('CREATE TABLE stats_writes (id TEXT PRIMARY KEY, createdAt INTEGER)');
  await dataSource.query('CREATE TABLE counters (id TEXT PRIMARY KEY, n INTEGER)');
  return dataSource;
}

const batchOf = (...statements: [string, unknown[]][]) => {
  const batch = new StatementBatch();
  for (const [sql, params] of statements) void batch.query(sql, params);
  return batch;
};

const turns = async (count: number) => {
  for (let turn = 0; turn < count; turn++) await new Promise((resolve) => setImmediate(resolve));
};

describe('StatsWritesRepository on SQLite', () => {
  let dir: string;
  let dataSource: DataSource;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'adnet-stats-writes-'));
    dataSource = await fileDatabase(dir);
  });

  afterEach(async () => {
    await dataSource.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('should commit the marker and the statements in one transaction', async () => {
    const repository = new StatsWritesRepository(dataSource);
    await repository.statementsInTransaction(
      'w1',
      batchOf(['INSERT INTO counters (id, n) VALUES (?, ?)', ['a', 1]], ['UPDATE counters SET n = n + ? WHERE id = ?', [2, 'a']]),
    );
    // the same statement texts again: the prepared statements kept are used with the new values
    await repository.statementsInTransaction(
      'w2',
      batchOf(['INSERT INTO counters (id, n) VALUES (?, ?)', ['b', 10]], ['UPDATE counters SET n = n + ? WHERE id = ?', [true, 'b']]),
    );
    expect(await dataSource.query('SELECT id, n FROM counters ORDER BY id')).toEqual([
      { id: 'a', n: 3 },
      { id: 'b', n: 11 },
    ]);
    expect(await repository.committedAmong(['w1', 'w2', 'w3'])).toEqual(new Set(['w1', 'w2']));

    // another connection to the file reads them: committed, not only visible to this one
    const again = new DataSource({ type: 'better-sqlite3', database: join(dir, 'db.sqlite'), enableWAL: true });
    await again.initialize();
    try {
      expect(await again.query('SELECT id, n FROM counters ORDER BY id')).toEqual([
        { id: 'a', n: 3 },
        { id: 'b', n: 11 },
      ]);
    } finally {
      await again.destroy();
    }
  });

  it('should commit nothing of a write whose statement fails, its marker included', async () => {
    const repository = new StatsWritesRepository(dataSource);
    await expect(
      repository.statementsInTransaction(
        'w2',
        batchOf(['INSERT INTO counters (id, n) VALUES (?, ?)', ['a', 1]], ['INSERT INTO missing_table (id) VALUES (?)', ['x']]),
      ),
    ).rejects.toMatchObject({ message: expect.stringMatching(/missing_table/) });
    expect(await dataSource.query('SELECT id FROM counters')).toEqual([]);
    expect(await repository.committed('w2')).toBe(false);
    // the connection is usable afterwards: no transaction left open
    await repository.statementsInTransaction('w3', batchOf(['INSERT INTO counters (id, n) VALUES (?, ?)', ['c', 1]]));
    expect(await dataSource.query('SELECT id FROM counters')).toEqual([{ id: 'c' }]);
  });

  it("should wait for a transaction of the ORM's open on the connection to end rather than become part of it", async () => {
    const repository = new StatsWritesRepository(dataSource);
    const runner = dataSource.createQueryRunner();
    await runner.startTransaction();
    await runner.query('INSERT INTO counters (id, n) VALUES (?, ?)', ['other', 1]);
    let resolved = false;
    const write = repository.statementsInTransaction('w5', batchOf(['INSERT INTO counters (id, n) VALUES (?, ?)', ['d', 1]])).then(() => (resolved = true));
    await turns(5);
    expect(resolved).toBe(false);
    // the other transaction rolls back: only its own row goes, the waiting write commits after it
    await runner.rollbackTransaction();
    await runner.release();
    await write;
    expect(await dataSource.query('SELECT id FROM counters')).toEqual([{ id: 'd' }]);
    expect(await repository.committed('w5')).toBe(true);
  });

  it('should let no statement of another request run inside its transaction', async () => {
    const repository = new StatsWritesRepository(dataSource);
    // a request's own write, started while the counter write runs: through the ORM it would run between two of the
    // counter write's statements, inside its transaction, and go when that one fails
    const batch = batchOf(['INSERT INTO counters (id, n) VALUES (?, ?)', ['e', 1]], ['INSERT INTO missing_table (id) VALUES (?)', ['x']]);
    const failing = repository.statementsInTransaction('w6', batch);
    const other = dataSource.query('INSERT INTO counters (id, n) VALUES (?, ?)', ['request', 1]);
    await expect(failing).rejects.toMatchObject({ message: expect.stringMatching(/missing_table/) });
    await other;
    expect(await dataSource.query('SELECT id FROM counters')).toEqual([{ id: 'request' }]);
  });
});
