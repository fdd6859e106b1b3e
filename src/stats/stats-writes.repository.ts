import { DataSource, EntityManager } from 'typeorm';
import { LruCache } from '../common/lru-cache';
import type { Queryable } from '../database/queryable';
import { DependencyUnavailableError } from '../common/errors';
import { isDuplicateKey } from '../database/duplicate-key';

const MARKER_SQL = 'INSERT INTO stats_writes (id, createdAt) VALUES (?, ?)';
/**
 * The last statement before COMMIT of a write held to a deadline (MySQL): past it, on the database's own clock, it
 * inserts the marker a second time, the duplicate key stops the batch and COMMIT never runs. A database frozen while
 * the write waited in its socket thus rolls it back when it wakes, instead of storing clicks already answered 503.
 */
const COMMIT_GUARD_SQL = 'INSERT INTO stats_writes (id, createdAt) SELECT ?, 0 FROM DUAL WHERE UNIX_TIMESTAMP(NOW(3)) * 1000 >= ?';

/** Placeholders per multi-statement round trip (MySQL): the driver formats a query on the event loop, so a big write goes in a few slices. */
const MAX_PARAMS_PER_ROUND_TRIP = 4000;
/** Prepared statements kept per writer on SQLite (a statement's text depends on its row count). */
const SQLITE_STATEMENTS_KEPT = 200;

/** What the counter writes use of a better-sqlite3 connection (the ORM's own). */
interface SqliteConnection {
  readonly inTransaction: boolean;
  pragma(source: string): unknown;
  prepare(sql: string): SqliteStatement;
  transaction(work: () => void): () => void;
}
interface SqliteStatement {
  readonly reader: boolean;
  run(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown;
}

/**
 * The `stats_writes` markers of the write ledger, and the transactions that carry them: each counter write inserts
 * its marker inside its own transaction, so the marker exists exactly when the write committed.
 */
export class StatsWritesRepository {
  /** MySQL takes a whole batch of statements in one round trip; SQLite runs them in one synchronous transaction. */
  private readonly multiStatement: boolean;
  private readonly sqliteStatements = new LruCache<string, SqliteStatement>(SQLITE_STATEMENTS_KEPT);

  constructor(private readonly dataSource: DataSource) {
    this.multiStatement = dataSource.options.type === 'mysql';
  }

  /** `work` in one transaction that starts with the marker `writeId`. */
  async inTransaction(writeId: string, work: (manager: EntityManager) => Promise<void>): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.query(MARKER_SQL, [writeId, Date.now()]);
      await work(manager);
    });
  }

  /**
   * A transaction of plain statements on MySQL in one round trip: `START TRANSACTION`, the marker, every statement
   * and `COMMIT` in one multi-statement query (a big write in a few slices, the last one ending with `COMMIT`). MySQL
   * stops at the first statement that fails, so `COMMIT` runs only after all of them did. (A group commit of clicks
   * used to wait for six round trips, then two: each one is a socket write that costs 35 µs and more here.)
   */
  async statementsInTransaction(writeId: string, statements: StatementBatch, commitBy?: number): Promise<void> {
    if (!this.multiStatement) {
      if (commitBy !== undefined && Date.now() >= commitBy) throw new CommitDeadlineError();
      return this.sqliteStatementsInTransaction(writeId, statements);
    }
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.connect();
      try {
        const last = commitBy === undefined ? { sql: 'COMMIT', params: [] } : { sql: `${COMMIT_GUARD_SQL};\nCOMMIT`, params: [writeId, commitBy] };
        await statements.runMultiStatement(runner, { sql: `START TRANSACTION;\n${MARKER_SQL}`, params: [writeId, Date.now()] }, last);
      } catch (error) {
        await runner.query('ROLLBACK').catch(() => undefined);
        if (commitBy !== undefined && isDuplicateKey(error)) throw new CommitDeadlineError();
        // Not committed, or not known to be (the ledger asks the marker): the connection may still hold the open
        // transaction, and a ROLLBACK after a COMMIT changes nothing.
        throw error;
      }
    } finally {
      await runner.release();
    }
  }

  /**
   * The same on SQLite: the transaction runs in one synchronous call on the ORM's connection, so no other statement
   * can run inside it (through the ORM, a statement of another request run between two of its awaits became part of
   * it, rolled back with it), and once no transaction of the ORM's is open on the connection (a write started inside
   * one became part of that one, rolled back with it).
   */
  private async sqliteStatementsInTransaction(writeId: string, statements: StatementBatch): Promise<void> {
    const db = (this.dataSource.driver as unknown as { databaseConnection: SqliteConnection }).databaseConnection;
    while (db.inTransaction) await new Promise((resolve) => setImmediate(resolve));
    const write = db.transaction(() => {
      this.runSqlite(db, MARKER_SQL, [writeId, Date.now()]);
      statements.forEach((sql, params) => this.runSqlite(db, sql, params));
    });
    if (statements.answersWait) {
      write();
      return;
    }
    // Nobody's answer waits for this write (buffered impressions): committed without its own sync of the WAL. The
    // checkpoint thread syncs the WAL every 200 ms, and the next commit a click waits for syncs it whole, this one
    // included, so only a power loss in between can take it back (docs/OPERATIONS.md, "What a crash or a power
    // loss can lose"). The sync was a third of such a write's time on the event loop.
    db.pragma('synchronous = NORMAL');
    try {
      write();
    } finally {
      db.pragma('synchronous = FULL');
    }
  }

  private runSqlite(db: SqliteConnection, sql: string, params: unknown[]): void {
    let statement = this.sqliteStatements.get(sql);
    if (statement === undefined) {
      statement = db.prepare(sql);
      this.sqliteStatements.set(sql, statement);
    }
    // better-sqlite3 binds no booleans (the ORM's query runner turns them into 0/1 the same way)
    const values = params.map((value) => (typeof value === 'boolean' ? Number(value) : value));
    if (statement.reader) statement.all(...values);
    else statement.run(...values);
  }

  /** The ids among these whose marker exists. */
  async committedAmong(writeIds: string[]): Promise<Set<string>> {
    const found: { id: string }[] = await this.dataSource.query(`SELECT id FROM stats_writes WHERE id IN (${writeIds.map(() => '?').join(', ')})`, writeIds);
    return new Set(found.map((row) => row.id));
  }

  async committed(writeId: string): Promise<boolean> {
    const found: unknown[] = await this.dataSource.query('SELECT id FROM stats_writes WHERE id = ?', [writeId]);
    return found.length > 0;
  }

  async deleteOlderThan(createdBefore: number): Promise<void> {
    await this.dataSource.query('DELETE FROM stats_writes WHERE createdAt < ?', [createdBefore]);
  }
}

/**
 * The statements of one counter write, sent to MySQL as multi-statement queries (one round trip instead of one per
 * statement: a group commit spent most of its time waiting for round trips), to SQLite one by one in one synchronous
 * transaction (StatsWritesRepository). None of them needs an answer.
 */
export class StatementBatch implements Queryable {
  private readonly statements: [string, unknown[]][] = [];

  /**
   * @param answersWait whether a request's answer waits for this write (clicks: it must survive a power loss once
   * answered). False for buffered counts alone, which SQLite commits without a sync of their own.
   */
  constructor(readonly answersWait = true) {}

  query(sql: string, params: unknown[] = []): Promise<never> {
    this.statements.push([sql, params]);
    return Promise.resolve(undefined as never);
  }

  /** Each statement, in order (run synchronously by the caller). */
  forEach(visit: (sql: string, params: unknown[]) => void): void {
    for (const [sql, params] of this.statements) visit(sql, params);
  }

  /**
   * On MySQL, as multi-statement queries (a big write in a few of them): `first` goes ahead of the statements, in the
   * same round trip (the transaction's start and its marker), and `last` after them, in the last one (the COMMIT).
   */
  async runMultiStatement(manager: Queryable, first: { sql: string; params: unknown[] }, last: { sql: string; params: unknown[] }): Promise<void> {
    let sqls: string[] = [];
    let params: unknown[] = [];
    const statements: [string, unknown[]][] = [[first.sql, first.params], ...this.statements, [last.sql, last.params]];
    for (const [sql, values] of statements) {
      if (sqls.length > 0 && params.length + values.length > MAX_PARAMS_PER_ROUND_TRIP) {
        await manager.query(sqls.join(';\n'), params);
        sqls = [];
        params = [];
      }
      sqls.push(sql);
      params = params.concat(values);
    }
    await manager.query(sqls.join(';\n'), params);
  }
}

/** A write held to a deadline reached it before its COMMIT: it was rolled back (nothing of it is stored). */
export class CommitDeadlineError extends DependencyUnavailableError {
  constructor() {
    super('database');
  }
}
