import type { Queryable } from '../database/queryable';

/** Placeholders per multi-statement round trip (MySQL): the driver formats a query on the event loop, so a big write goes in a few slices. */
const MAX_PARAMS_PER_ROUND_TRIP = 4000;

export type { Queryable };

/**
 * The statements of one counter write, sent to MySQL as multi-statement queries (one round trip instead of one per
 * statement: a group commit spent most of its time waiting for round trips), to SQLite one by one (no network).
 * None of them needs an answer.
 */
export class StatementBatch implements Queryable {
  private readonly statements: [string, unknown[]][] = [];

  query(sql: string, params: unknown[] = []): Promise<never> {
    this.statements.push([sql, params]);
    return Promise.resolve(undefined as never);
  }

  /** `first` goes ahead of the statements, in the same round trip (MySQL: the transaction's start and its marker). */
  async run(manager: Queryable, multiStatement: boolean, first?: { sql: string; params: unknown[] }): Promise<void> {
    const statements: [string, unknown[]][] = first ? [[first.sql, first.params], ...this.statements] : this.statements;
    if (!multiStatement) {
      for (const [sql, params] of statements) await manager.query(sql, params);
      return;
    }
    let sqls: string[] = [];
    let params: unknown[] = [];
    for (const [sql, values] of statements) {
      if (sqls.length > 0 && params.length + values.length > MAX_PARAMS_PER_ROUND_TRIP) {
        await manager.query(sqls.join(';\n'), params);
        sqls = [];
        params = [];
      }
      sqls.push(sql);
      params = params.concat(values);
    }
    if (sqls.length > 0) await manager.query(sqls.join(';\n'), params);
  }
}
