import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
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
