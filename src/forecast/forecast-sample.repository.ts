import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { ForecastSample } from './entities/forecast-sample.entity';
import type { ContextWeight, SampledContext, SampleRow } from './forecast-sample';

/** The `forecast_samples` table: the sampler's writes and prunes, the forecast's grouped read. */
@Injectable()
export class ForecastSampleRepository {
  private readonly samples: Repository<ForecastSample>;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.samples = dataSource.getRepository(ForecastSample);
  }

  async insertMany(rows: SampleRow[]): Promise<void> {
    if (rows.length > 0) await this.samples.insert(rows);
  }

  /** The requests kept since `since`, one row per distinct context with the requests it stands for, and the first one's time. */
  async contextsSince(since: number): Promise<{ contexts: ContextWeight[]; firstAt: number | null }> {
    const rows: (SampledContext & { weightMilli: string | number; firstAt: string | number })[] = await this.samples
      .createQueryBuilder('s')
      .select(['s.adBlockId AS adBlockId', 's.country AS country', 's.language AS language', 's.platform AS platform'])
      .addSelect('s.flags', 'flags')
      .addSelect('s.adLimit', 'adLimit')
      .addSelect('SUM(s.weightMilli)', 'weightMilli')
      .addSelect('MIN(s.sampledAt)', 'firstAt')
      .where('s.sampledAt >= :since', { since })
      .groupBy('s.adBlockId')
      .addGroupBy('s.country')
      .addGroupBy('s.language')
      .addGroupBy('s.platform')
      .addGroupBy('s.flags')
      .addGroupBy('s.adLimit')
      .getRawMany();
    let firstAt: number | null = null;
    const contexts = rows.map((row) => {
      const first = Number(row.firstAt);
      if (firstAt === null || first < firstAt) firstAt = first;
      return {
        adBlockId: row.adBlockId,
        country: row.country,
        language: row.language,
        platform: row.platform,
        flags: Number(row.flags),
        adLimit: Number(row.adLimit),
        requests: Number(row.weightMilli) / 1000,
      };
    });
    return { contexts, firstAt };
  }

  /** Deletes at most `limit` samples taken before `before`; answers how many went. */
  async deleteBefore(before: number, limit: number): Promise<number> {
    const rows: { id: string }[] = await this.samples
      .createQueryBuilder('s')
      .select('s.id', 'id')
      .where('s.sampledAt < :before', { before })
      .orderBy('s.sampledAt')
      .limit(Math.max(1, Math.trunc(limit)))
      .getRawMany();
    if (rows.length === 0) return 0;
    await this.samples.delete(rows.map((row) => row.id));
    return rows.length;
  }
}
