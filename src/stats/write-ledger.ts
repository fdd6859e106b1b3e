import { Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { WriteOutcomeUnknownError } from '../common/errors';
import { newId } from '../common/ids';
import { type StatementBatch, StatsWritesRepository } from './stats-writes.repository';

/**
 * Connection-level failures that can strike during COMMIT, when the transaction may have committed. Statement
 * errors, refused connections and deadlocks are certain failures: nothing was committed.
 */
const IN_DOUBT_CODES = new Set(['PROTOCOL_CONNECTION_LOST', 'ECONNRESET', 'EPIPE', 'ER_SERVER_SHUTDOWN', 'ER_CONNECTION_KILLED', 'PROTOCOL_SEQUENCE_TIMEOUT']);
/** Lost to another writer: the transaction was rolled back and may simply be tried again. */
const DEADLOCK_CODES = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT', 'SQLITE_BUSY']);
/**
 * How long a write in doubt waits to learn whether it committed, before its callers are told it failed: within the
 * default HANDLER_TIMEOUT_MS (15 s), so the clicks of a group commit whose COMMIT answer was lost are answered by its
 * outcome when the database is back within it (a stop and restart), not refused while they were stored.
 */
const IN_DOUBT_WAIT_MS = 12_000;
/** Markers are kept this long: far longer than any database outage a writer waits out with writes in doubt. */
const KEEP_MS = 24 * 3600_000;
const CLEANUP_EVERY_MS = 3600_000;

const codeOf = (error: unknown) => (error as { driverError?: { code?: string } })?.driverError?.code ?? (error as { code?: string })?.code;

/**
 * The counter writers' one way to the database, exactly once across lost COMMIT answers. When the database goes
 * away during a COMMIT, a writer cannot tell whether its transaction committed: putting its impression counts back
 * would write them twice, refusing its clicks would undo clicks that were stored. So each write inserts its id into
 * `stats_writes` inside its transaction; after such a failure it asks for that id for a few seconds (found: the
 * write stands); if the database does not answer, what the write carried is held "in doubt" and looked up again
 * before the next write: ids not found did not commit and their counts are put back to be written again.
 */
export class WriteLedger<T> {
  private inDoubt: { id: string; carried: T }[] = [];
  /** How long a write in doubt asks whether it committed (IN_DOUBT_WAIT_MS; a spec shortens it). */
  inDoubtWaitMs = IN_DOUBT_WAIT_MS;
  private lastCleanup = Date.now();
  private readonly markers: StatsWritesRepository;

  constructor(
    dataSource: DataSource,
    private readonly logger: Logger,
    /** Returns what a write that did not commit carried (its impression counts) to the writer's buffer. */
    private readonly putBack: (carried: T) => void,
  ) {
    this.markers = new StatsWritesRepository(dataSource);
  }

  /**
   * Runs `work` in one transaction with its marker, trying deadlocks again. Resolves once the write committed;
   * otherwise puts `carried` back (or holds it in doubt) and throws.
   */
  async write(carried: T, work: (manager: EntityManager) => Promise<void>): Promise<void> {
    await this.settleOutcome(carried, (writeId) => this.retryDeadlocks(() => this.markers.inTransaction(writeId, work)));
  }

  /**
   * write() for a batch of plain statements: on MySQL in one round trip (`START TRANSACTION`, the marker, every
   * statement and `COMMIT` in one multi-statement query; a group commit of clicks used to wait for six), on SQLite in
   * one synchronous transaction (StatsWritesRepository). With `commitBy` (wall-clock ms) it commits only before then,
   * on the database's clock, else rolls back and throws CommitDeadlineError.
   */
  async writeBatch(carried: T, statements: StatementBatch, commitBy?: number): Promise<void> {
    await this.settleOutcome(carried, (writeId) => this.retryDeadlocks(() => this.markers.statementsInTransaction(writeId, statements, commitBy)));
  }

  /** Runs a write under its marker id; when it fails, learns whether it committed (see the class comment). */
  private async settleOutcome(carried: T, attempt: (writeId: string) => Promise<void>): Promise<void> {
    const writeId = newId();
    try {
      await attempt(writeId);
    } catch (error) {
      const inDoubt = codeOf(error) !== undefined && IN_DOUBT_CODES.has(codeOf(error)!);
      const committed = inDoubt ? await this.outcome(writeId) : false;
      if (committed === false) {
        this.putBack(carried);
        throw error;
      }
      if (committed === null) {
        this.inDoubt.push({ id: writeId, carried });
        throw new WriteOutcomeUnknownError(error);
      }
      this.logger.warn({ err: error }, 'counter write lost its COMMIT answer, but it committed');
    }
    this.cleanUp();
  }

  /** Puts back what the writes in doubt carried if they did not commit; keeps them in doubt while the database cannot be asked. */
  async settle(): Promise<void> {
    if (this.inDoubt.length === 0) return;
    const doubts = this.inDoubt;
    let committed: Set<string>;
    try {
      committed = await this.markers.committedAmong(doubts.map((doubt) => doubt.id));
    } catch {
      return;
    }
    this.inDoubt = this.inDoubt.filter((doubt) => !doubts.includes(doubt));
    if (committed.size > 0) this.logger.warn(`${committed.size} write(s) whose answer was lost had committed; not written again`);
    for (const doubt of doubts) if (!committed.has(doubt.id)) this.putBack(doubt.carried);
  }

  /** Whether one write committed: true or false once the database answers, null if it did not in time. */
  private async outcome(writeId: string): Promise<boolean | null> {
    const deadline = Date.now() + this.inDoubtWaitMs;
    for (;;) {
      try {
        return await this.markers.committed(writeId);
      } catch {
        if (Date.now() + 250 > deadline) return null;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }

  private async retryDeadlocks(work: () => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (error) {
        const code = codeOf(error);
        if (attempt >= 3 || !code || !DEADLOCK_CODES.has(code)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
      }
    }
  }

  /** Drops old markers now and then, outside any write's transaction. */
  private cleanUp(): void {
    const now = Date.now();
    if (now - this.lastCleanup < CLEANUP_EVERY_MS) return;
    this.lastCleanup = now;
    void this.markers.deleteOlderThan(now - KEEP_MS).catch((error) => this.logger.warn({ err: error }, 'stats_writes clean-up failed'));
  }
}
