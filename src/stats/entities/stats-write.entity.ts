import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../../database/column-types';

/** One row per committed counter write: lets a writer learn whether a write whose COMMIT answer was lost did commit. */
@Entity('stats_writes')
@Index('idx_stats_writes_created', ['createdAt'])
export class StatsWrite {
  @PrimaryColumn({ type: 'varchar', length: 26 })
  id: string;

  @Column({ type: 'bigint', transformer: bigintToNumber })
  createdAt: number;
}
