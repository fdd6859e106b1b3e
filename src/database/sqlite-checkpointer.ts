import { Logger } from '@nestjs/common';
import { Worker } from 'node:worker_threads';

/** How often the checkpoint thread copies the WAL back into the database file. */
export const CHECKPOINT_EVERY_MS = 200;
/**
 * The main connection's own automatic checkpoint, in WAL pages: only if the checkpoint thread fell behind or died
 * (SQLite's default is 1,000; the thread keeps the WAL well below this one).
 */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 10_000;

/** What the checkpointer uses of the ORM's better-sqlite3 connection. */
interface SqliteConnection {
  readonly name: string;
  readonly memory: boolean;
  pragma(source: string, options?: { simple: boolean }): unknown;
}

/**
 * Runs on the checkpoint thread: its own connection to the file, a PASSIVE checkpoint every `everyMs` (it waits for no
 * reader and no writer: what it cannot copy now it copies next time). Synced like every commit of the service.
 */
const CHECKPOINT_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driverPath);
const db = new Database(workerData.file, { fileMustExist: true, timeout: 1000 });
db.pragma('synchronous = FULL');
let failing = false;
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    if (failing) parentPort.postMessage({ recovered: true });
    failing = false;
  } catch (error) {
    if (!failing) parentPort.postMessage({ error: String(error && error.message) });
    failing = true;
  }
}, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * SQLite's WAL checkpoints on a thread of their own. By default the commit that grows the WAL past 1,000 pages copies
 * it back into the database file and syncs that file, on the connection's thread — the event loop — holding every
 * request behind it, several times a second under load (a stats flush, a click group commit: docs/PERFORMANCE.md,
 * "SQLite checkpoints off the event loop"). Here a worker thread with its own connection checkpoints every
 * CHECKPOINT_EVERY_MS, and the main connection's automatic checkpoint waits for FALLBACK_AUTOCHECKPOINT_PAGES: it
 * steps in only if the thread falls behind, and takes over again at SQLite's default if the thread dies.
 */
export class SqliteCheckpointer {
  private readonly logger = new Logger(SqliteCheckpointer.name);
  private worker: Worker | undefined;

  /** Starts on a file database in WAL mode; does nothing on any other (`:memory:`, another journal mode). */
  static start(connection: SqliteConnection, everyMs = CHECKPOINT_EVERY_MS): SqliteCheckpointer {
    const checkpointer = new SqliteCheckpointer(connection);
    if (!connection.memory && connection.pragma('journal_mode', { simple: true }) === 'wal') checkpointer.run(everyMs);
    return checkpointer;
  }

  private constructor(private readonly connection: SqliteConnection) {}

  get running(): boolean {
    return this.worker !== undefined;
  }

  private run(everyMs: number): void {
    const worker = new Worker(CHECKPOINT_THREAD, {
      eval: true,
      workerData: { driverPath: require.resolve('better-sqlite3'), file: this.connection.name, everyMs },
    });
    worker.unref();
    worker.on('message', (message: { error?: string; recovered?: boolean }) => {
      if (message.error !== undefined) this.logger.warn({ error: message.error }, 'WAL checkpoint failed on its thread; tried again every interval');
      if (message.recovered) this.logger.log('WAL checkpoints on their thread work again');
    });
    worker.on('error', (error) => {
      this.logger.error({ err: error }, "WAL checkpoint thread died: the connection's automatic checkpoint takes over");
      this.takeBack();
    });
    this.worker = worker;
    this.connection.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
  }

  /** Stops the thread (after its current checkpoint) and gives checkpoints back to the connection. */
  async stop(): Promise<void> {
    const worker = this.worker;
    if (worker === undefined) return;
    this.takeBack();
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('stop');
    await exited;
  }

  private takeBack(): void {
    this.worker = undefined;
    try {
      this.connection.pragma('wal_autocheckpoint = 1000');
    } catch {
      // the connection is closed already: nothing left to checkpoint from it
    }
  }
}
