import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../../database/column-types';

/** One call to an advertiser's verification URL (each try is a row): the integration-health view reads these. */
@Entity('verification_calls')
@Index('idx_verification_calls_campaign_time', ['campaignId', 'calledAt'])
export class VerificationCall {
  // MySQL's primary key is (id, calledAt): the table is partitioned by day of calledAt (docs/SCALING.md).
  @PrimaryColumn({ type: 'varchar', length: 26 })
  id: string;

  @Column({ type: 'varchar', length: 26 })
  campaignId: string;

  @Column({ type: 'varchar', length: 26 })
  clickId: string;

  @Column({ type: 'int' })
  attempt: number;

  @Column({ type: 'bigint', transformer: bigintToNumber })
  calledAt: number;

  /** `verified`, `unverified`, or `failed` (timeout, refused target, non-2xx, other body: retried). */
  @Column({ type: 'varchar', length: 16 })
  outcome: string;

  @Column({ type: 'int', nullable: true })
  httpStatus: number | null;

  @Column({ type: 'int' })
  latencyMs: number;

  @Column({ type: 'varchar', length: 500, nullable: true })
  error: string | null;
}
