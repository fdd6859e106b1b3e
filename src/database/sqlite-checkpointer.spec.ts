import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FALLBACK_AUTOCHECKPOINT_PAGES, SqliteCheckpointer } from './sqlite-checkpointer';

/** What this spec uses of a better-sqlite3 connection (the driver ships no types). */
interface Connection {
  readonly name: string;
  readonly memory: boolean;
  pragma(source: string, options?: { simple: boolean }): unknown;
  exec(sql: string): void;
  prepare(sql: string): { run(...params: unknown[]): unknown; get(...params: unknown[]): unknown };
  transaction(work: () => void): () => void;
  close(): void;
}
const Database = require('better-sqlite3') as new (file: string) => Connection;

const waitFor = async (what: string, check: () => boolean, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe('SqliteCheckpointer', () => {
  let dir: string;
  let file: string;
  let db: Connection;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'adnet-checkpoint-'));
    file = join(dir, 'db.sqlite');
    db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT)');
  });

  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const writeKilobytes = (kilobytes: number) => {
    const insert = db.prepare('INSERT INTO rows (body) VALUES (?)');
    db.transaction(() => {
      for (let i = 0; i < kilobytes; i++) insert.run('x'.repeat(1000));
    })();
  };

  it("should copy the WAL into the database file on its own thread, the connection's automatic checkpoint held back", async () => {
    const checkpointer = SqliteCheckpointer.start(db, 50);
    try {
      expect(checkpointer.running).toBe(true);
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(FALLBACK_AUTOCHECKPOINT_PAGES);
      const before = statSync(file).size;
      // 6 MB in one commit: past SQLite's default of 1,000 pages, which would checkpoint inside this commit
      writeKilobytes(6000);
      // the commit left it all in the WAL: the database file has not grown yet
      expect(statSync(file).size).toBe(before);
      await waitFor('the checkpoint thread to copy the WAL back', () => statSync(file).size >= before + 6_000_000);
      expect(db.prepare('SELECT COUNT(*) AS n FROM rows').get()).toEqual({ n: 6000 });
    } finally {
      await checkpointer.stop();
    }
    expect(checkpointer.running).toBe(false);
    // stopped: the connection checkpoints on its own again, at SQLite's default
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    const before = statSync(file).size;
    writeKilobytes(6000);
    expect(statSync(file).size).toBeGreaterThanOrEqual(before + 6_000_000);
  });

  it('should not start on a database in memory or outside WAL mode', async () => {
    const memory = new Database(':memory:');
    const rollbackJournal = new Database(join(dir, 'journal.sqlite'));
    try {
      for (const connection of [memory, rollbackJournal]) {
        const checkpointer = SqliteCheckpointer.start(connection);
        expect(checkpointer.running).toBe(false);
        expect(connection.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
        await checkpointer.stop();
      }
    } finally {
      memory.close();
      rollbackJournal.close();
    }
  });
});
