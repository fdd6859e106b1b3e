import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../../database/column-types';

/**
 * A POST sent with an `Idempotency-Key` (docs/CONTRACT.md §20): kept 24 h per (account, key) with what the request
 * was (method, path and a hash of its body) and, once answered, its status and body, answered again to a repeat.
 */
@Entity('idempotency_keys')
@Index('idx_idempotency_expires', ['expiresAt'])
export class IdempotencyRecord {
  @PrimaryColumn({ type: 'varchar', length: 26 })
  accountId: string;

  @PrimaryColumn({ type: 'varchar', length: 255 })
  idempotencyKey: string;

  /** SHA-256 (hex) of the method, the path and the body. */
  @Column({ type: 'varchar', length: 64 })
  requestHash: string;

  /** Null while the first request runs. */
  @Column({ type: 'int', nullable: true })
  status: number | null;

  @Column({ type: 'varchar', length: 100, nullable: true })
  contentType: string | null;

  @Column({ type: 'text', nullable: true })
  body: string | null;

  @Column({ type: 'bigint', transformer: bigintToNumber })
  createdAt: number;

  @Column({ type: 'bigint', transformer: bigintToNumber })
  expiresAt: number;
}
