import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { DAY_MS } from '../common/clock';
import { dayStart, DayPartitionedTable, DELETE_BATCH, initialPartitionsSql, partitionName } from './day-partitions';

describe('day partitions', () => {
  it('should name a partition after the last UTC day below its bound, and find day starts', () => {
    expect(partitionName(Date.UTC(2026, 10, 26))).toBe('p20261125');
    expect(partitionName(Date.UTC(2027, 0, 1))).toBe('p20261231');
    expect(dayStart(Date.UTC(2026, 10, 25, 23, 59, 59, 999))).toBe(Date.UTC(2026, 10, 25));
    expect(dayStart(Date.UTC(2026, 10, 25))).toBe(Date.UTC(2026, 10, 25));
  });

  it('should convert a table into one partition ending with the current day, the days ahead, then pmax', () => {
    const day = (date: number) => `PARTITION \`p202611${date}\` VALUES LESS THAN (${Date.UTC(2026, 10, date + 1)})`;
    expect(initialPartitionsSql('createdAt', Date.UTC(2026, 10, 25, 14), 2)).toBe(
      `PARTITION BY RANGE (\`createdAt\`) (${day(25)}, ${day(26)}, ${day(27)}, PARTITION \`pmax\` VALUES LESS THAN MAXVALUE)`,
    );
  });

  describe('on SQLite', () => {
    let dataSource: DataSource;
    const cutoff = Date.UTC(2026, 7, 27);

    beforeAll(async () => {
      dataSource = new DataSource({ type: 'better-sqlite3', database: ':memory:' });
      await dataSource.initialize();
      await dataSource.query('CREATE TABLE events (id varchar(26) PRIMARY KEY NOT NULL, createdAt bigint NOT NULL)');
      await dataSource.query('CREATE INDEX idx_events_created ON events (createdAt)');
    });
    afterAll(() => dataSource.destroy());

    it('should delete the rows before the cut-off in batches, to the last one, and nothing at or after it', async () => {
      const old = 2 * DELETE_BATCH + 17;
      const rows: [string, number][] = [];
      for (let i = 0; i < old; i++) rows.push([randomBytes(13).toString('hex'), cutoff - 1 - (i % 30) * DAY_MS]);
      for (let i = 0; i < 25; i++) rows.push([randomBytes(13).toString('hex'), cutoff + i * 1000]);
      await dataSource.transaction(async (manager) => {
        for (let i = 0; i < rows.length; i += 400) {
          const slice = rows.slice(i, i + 400);
          await manager.query(`INSERT INTO events (id, createdAt) VALUES ${slice.map(() => '(?, ?)').join(', ')}`, slice.flat());
        }
      });
      const table = new DayPartitionedTable(dataSource, { table: 'events', partitionColumn: 'createdAt', timeColumn: 'createdAt' });

      expect(await table.maintain(cutoff + 90 * DAY_MS, 7, cutoff)).toEqual({ table: 'events', addedPartitions: [], droppedPartitions: [], deletedRows: old });
      const [{ n, oldest }] = await dataSource.query('SELECT COUNT(*) AS n, MIN(createdAt) AS oldest FROM events');
      expect([Number(n), Number(oldest)]).toEqual([25, cutoff]);
      // again: nothing left to delete
      expect(await table.maintain(cutoff + 90 * DAY_MS, 7, cutoff)).toEqual({ table: 'events', addedPartitions: [], droppedPartitions: [], deletedRows: 0 });
    });
  });
});
