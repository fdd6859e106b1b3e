import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { isDuplicateKey } from '../database/duplicate-key';
import { withFields } from '../common/with-fields';
import { IdempotencyRecord } from './entities/idempotency-record.entity';

/** Rows per DELETE of the sweep: short statements, other writes go in between. */
const SWEEP_BATCH = 5000;

/** Every statement on `idempotency_keys`. */
@Injectable()
export class IdempotencyRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get mysql(): boolean {
    return this.dataSource.options.type === 'mysql';
  }

  /** Inserts the running record; false when one exists for (account, key). The primary key decides between racers. */
  async claim(record: Pick<IdempotencyRecord, 'accountId' | 'idempotencyKey' | 'requestHash' | 'createdAt' | 'expiresAt'>): Promise<boolean> {
    try {
      await this.dataSource.getRepository(IdempotencyRecord).insert(withFields(record, { status: null, contentType: null, body: null }));
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  find(accountId: string, idempotencyKey: string): Promise<IdempotencyRecord | null> {
    return this.dataSource.getRepository(IdempotencyRecord).findOneBy({ accountId, idempotencyKey });
  }

  async complete(accountId: string, idempotencyKey: string, answer: { status: number; contentType: string | null; body: string }): Promise<void> {
    await this.dataSource.getRepository(IdempotencyRecord).update({ accountId, idempotencyKey }, answer);
  }

  /** Removes the record if it still is the one created at `createdAt` (a failed first request, or an expired one). */
  async release(accountId: string, idempotencyKey: string, createdAt: number): Promise<void> {
    await this.dataSource.getRepository(IdempotencyRecord).delete({ accountId, idempotencyKey, createdAt });
  }

  /** Deletes expired records in batches; answers how many. */
  async sweep(now: number): Promise<number> {
    let deleted = 0;
    const runner = this.dataSource.createQueryRunner();
    try {
      for (;;) {
        const sql = this.mysql
          ? `DELETE FROM idempotency_keys WHERE expiresAt < ? LIMIT ${SWEEP_BATCH}`
          : `DELETE FROM idempotency_keys WHERE rowid IN (SELECT rowid FROM idempotency_keys WHERE expiresAt < ? LIMIT ${SWEEP_BATCH})`;
        const result = await runner.query(sql, [now], true);
        const changed = (result as { affected?: number }).affected ?? 0;
        deleted += changed;
        if (changed < SWEEP_BATCH) return deleted;
      }
    } finally {
      await runner.release();
    }
  }
}
