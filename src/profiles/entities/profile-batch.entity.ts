import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../../database/column-types';

/**
 * `staged`: a CSV import still being read (invisible, dropped if the file turns out bad); `queued`: waiting for
 * a worker (also between retries); `processing`; `done`; `failed` after the last try.
 */
export type ProfileBatchStatus = 'staged' | 'queued' | 'processing' | 'done' | 'failed';

/**
 * One accepted upload of profile records, applied by a queue job. The records are kept here until the batch is
 * done, so an accepted batch survives a crash of the process that holds the queue (the embedded profile's queue
 * is in memory; batches still queued are enqueued again at start).
 */
@Entity('profile_batches')
@Index('idx_profile_batches_status', ['status', 'createdAt'])
@Index('idx_profile_batches_account', ['accountId', 'createdAt'])
export class ProfileBatch {
  @PrimaryColumn({ type: 'varchar', length: 26 })
  id: string;

  /** The publisher account whose profiles the batch writes: the uploader's own, or the one an admin named. */
  @Column({ type: 'varchar', length: 26 })
  accountId: string;

  @Column({ type: 'varchar', length: 8 })
  source: 'json' | 'csv';

  @Column({ type: 'varchar', length: 16 })
  status: ProfileBatchStatus;

  @Column({ type: 'int' })
  total: number;

  @Column({ type: 'int', default: 0 })
  processed: number;

  /** Tries started so far. */
  @Column({ type: 'int', default: 0 })
  attempts: number;

  /** The last try's error, kept after a later success for the record. */
  @Column({ type: 'varchar', length: 500, nullable: true })
  error: string | null;

  /** The records as JSON until the batch is done (then null). MEDIUMTEXT on MySQL (see the migration): 5000 records pass 64 KiB. */
  @Column({ type: 'text', nullable: true })
  records: string | null;

  @Column({ type: 'bigint', transformer: bigintToNumber })
  createdAt: number;

  @Column({ type: 'bigint', transformer: bigintToNumber })
  updatedAt: number;

  @Column({ type: 'bigint', nullable: true, transformer: bigintToNumber })
  finishedAt: number | null;
}
