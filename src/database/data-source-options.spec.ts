import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import type { MysqlDataSourceOptions } from 'typeorm/driver/mysql/MysqlDataSourceOptions';
import { dataSourceOptions } from './data-source-options';

describe('dataSourceOptions (SQLite)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'adnet-sqlite-options-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('syncs every commit (synchronous FULL) in WAL mode, on a new file and when it is opened again', async () => {
    const file = join(dir, 'adnet.sqlite');
    for (const opening of ['new file', 'reopened']) {
      const dataSource = await new DataSource(dataSourceOptions({ type: 'sqlite', location: file }, false)).initialize();
      try {
        const [{ journal_mode }] = (await dataSource.query('PRAGMA journal_mode')) as { journal_mode: string }[];
        const [{ synchronous }] = (await dataSource.query('PRAGMA synchronous')) as { synchronous: number }[];
        expect({ opening, journal_mode, synchronous }).toEqual({ opening, journal_mode: 'wal', synchronous: 2 });
      } finally {
        await dataSource.destroy();
      }
    }
  });
});

describe('dataSourceOptions (MySQL)', () => {
  const primary = { type: 'mysql' as const, location: 'mysql://root@10.0.0.1:3306/adnet' };

  it('should connect to the one URL without replicas', () => {
    const options = dataSourceOptions(primary, false) as MysqlDataSourceOptions;
    expect({ url: options.url, replication: options.replication }).toEqual({ url: primary.location, replication: undefined });
  });

  it('should add the replicas as slaves, with the primary as the default of every read', () => {
    const options = dataSourceOptions(primary, false, ['mysql://ro@10.0.0.2:3306/adnet', 'mysql://ro@10.0.0.3:3306/adnet']) as MysqlDataSourceOptions;
    expect(options.url).toBeUndefined();
    expect(options.replication).toEqual({
      master: { url: primary.location },
      slaves: [{ url: 'mysql://ro@10.0.0.2:3306/adnet' }, { url: 'mysql://ro@10.0.0.3:3306/adnet' }],
      defaultMode: 'master',
      restoreNodeTimeout: 1000,
    });
  });
});
