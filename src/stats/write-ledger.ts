import { Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { newId } from '../common/ids';

/**
 * Connection-level failures that can strike during COMMIT, when the transaction may have committed. Statement
 * errors, refused connections and deadlocks are certain failures: nothing was committed.
 */
const IN_DOUBT_CODES = new Set(['PROTOCOL_CONNECTION_LOST', 'ECONNRESET', 'EPIPE', 'ER_SERVER_SHUTDOWN', 'ER_CONNECTION_KILLED', 'PROTOCOL_SEQUENCE_TIMEOUT']);

export function isCommitInDoubt(error: unknown): boolean {
  const code = (error as { code?: string; driverError?: { code?: string } })?.driverError?.code ?? (error as { code?: string })?.code;
  return code !== undefined && IN_DOUBT_CODES.has(code);
}

/** Markers are kept this long: far longer than any database outage a writer waits out with writes in doubt. */
const KEEP_MS = 24 * 3600_000;
const CLEANUP_EVERY_MS = 3600_000;

/**
 * Exactly-once counter writes across lost COMMIT answers. When the database goes away during a COMMIT, the writer
 * cannot tell whether its transaction committed; putting the impression counts back would then write them twice.
 * So each write inserts its id into `stats_writes` inside its transaction, a failed write is held "in doubt" with
 * what it carried, and before the next write the ids in doubt are looked up: the ones not found did not commit and
 * their counts are written again; the ones found are dropped.
 */
export class WriteLedger<T> {
  private inDoubt: { id: string; carried: T }[] = [];
  private lastCleanup = Date.now();

  constructor(
    private readonly dataSource: DataSource,
    private readonly logger: Logger,
  ) {}

  newWriteId(): string {
    return newId();
  }

  /** Inside the write's transaction. */
  async mark(manager: EntityManager, writeId: string): Promise<void> {
    await manager.query('INSERT INTO stats_writes (id, createdAt) VALUES (?, ?)', [writeId, Date.now()]);
  }

  /**
   * Asks, until `waitMs` passes, whether one write committed: true or false once the database answers, null if it
   * did not answer in time.
   */
  async outcome(writeId: string, waitMs: number): Promise<boolean | null> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      try {
        const found: unknown[] = await this.dataSource.query('SELECT id FROM stats_writes WHERE id = ?', [writeId]);
        return found.length > 0;
      } catch {
        if (Date.now() + 250 > deadline) return null;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }

  doubt(writeId: string, carried: T): void {
    this.inDoubt.push({ id: writeId, carried });
  }

  /**
   * What the writes in doubt carried that did not commit, to be written again; empty while the database cannot be
   * asked (they stay in doubt until it can).
   */
  async settle(): Promise<T[]> {
    if (this.inDoubt.length === 0) return [];
    const doubts = this.inDoubt;
    let found: { id: string }[];
    try {
      found = await this.dataSource.query(`SELECT id FROM stats_writes WHERE id IN (${doubts.map(() => '?').join(', ')})`, doubts.map((doubt) => doubt.id));
    } catch {
      return [];
    }
    const committed = new Set(found.map((row) => row.id));
    this.inDoubt = this.inDoubt.filter((doubt) => !doubts.includes(doubt));
    const lost = doubts.filter((doubt) => !committed.has(doubt.id));
    if (committed.size > 0) this.logger.warn(`${committed.size} write(s) whose answer was lost had committed; not written again`);
    return lost.map((doubt) => doubt.carried);
  }

  /** Drops old markers now and then, outside any write's transaction. */
  cleanUp(): void {
    const now = Date.now();
    if (now - this.lastCleanup < CLEANUP_EVERY_MS) return;
    this.lastCleanup = now;
    void this.dataSource
      .query('DELETE FROM stats_writes WHERE createdAt < ?', [now - KEEP_MS])
      .catch((error) => this.logger.warn({ err: error }, 'stats_writes clean-up failed'));
  }
}
