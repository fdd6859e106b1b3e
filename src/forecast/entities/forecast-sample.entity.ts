import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../../database/column-types';

/**
 * One sampled ad request's context (no user id, no answer): what the forecast replays against a draft campaign.
 * Kept 7 days (docs/SCALING.md, "Forecast sample").
 */
@Entity('forecast_samples')
@Index('idx_forecast_samples_time', ['sampledAt'])
export class ForecastSample {
  @PrimaryColumn({ type: 'varchar', length: 26 })
  id: string;

  @Column({ type: 'bigint', transformer: bigintToNumber })
  sampledAt: number;

  @Column({ type: 'varchar', length: 26 })
  adBlockId: string;

  @Column({ type: 'varchar', length: 2, nullable: true })
  country: string | null;

  @Column({ type: 'varchar', length: 8, nullable: true })
  language: string | null;

  @Column({ type: 'varchar', length: 8, nullable: true })
  platform: string | null;

  /** The profile facts as bits (FLAG_* in forecast-sample.ts). */
  @Column({ type: 'int' })
  flags: number;

  /** The ads the request asked for (`limit`). */
  @Column({ type: 'int' })
  adLimit: number;

  /** How many requests this one stands for, in thousandths (1000 / the sample rate when it was taken). */
  @Column({ type: 'int' })
  weightMilli: number;
}
