import type { CampaignStore } from '../../campaigns/campaign-store';
import type { StatsWriterService, UnwrittenSpend } from '../../stats/stats-writer.service';
import type { FreshSpend, SpendSource } from './spend-reseed';

/**
 * The spend the counters Redis lost are seeded from again (spend-reseed.ts): this process's buffered impressions
 * written first, the campaigns' spend read from the database, and what this process still holds unwritten (a write
 * that failed) added on top, to the day it was spent in.
 */
export class DatabaseSpendSource implements SpendSource {
  constructor(
    private readonly stats: Pick<StatsWriterService, 'flush' | 'unwrittenSpend'>,
    private readonly campaigns: Pick<CampaignStore, 'billingFacts'>,
    readonly settleMs: number,
    readonly recentLossMs: number,
  ) {}

  flush(): Promise<void> {
    return this.stats.flush();
  }

  async read(campaignIds: string[]): Promise<Map<string, FreshSpend>> {
    await this.stats.flush();
    const facts = await this.campaigns.billingFacts(campaignIds);
    const unwritten = this.stats.unwrittenSpend(new Set(campaignIds));
    const fresh = new Map<string, FreshSpend>();
    for (const [id, row] of facts) fresh.set(id, withUnwritten(row, unwritten.get(id)));
    return fresh;
  }
}

/**
 * The database's spend of a campaign with this process's unwritten spend added: all of it to the total, and to the
 * day's spend only what was spent in that day; spend of a newer day than the row's starts that day's count.
 */
export function withUnwritten(row: FreshSpend, unwritten: UnwrittenSpend | undefined): FreshSpend {
  if (unwritten === undefined) return { spentMicros: row.spentMicros, daySpentMicros: row.daySpentMicros, spentDay: row.spentDay };
  let spentDay = row.spentDay;
  for (const day of unwritten.byDay.keys()) if (day > spentDay) spentDay = day;
  const dayBefore = spentDay === row.spentDay ? row.daySpentMicros : 0;
  return {
    spentMicros: row.spentMicros + unwritten.totalMicros,
    daySpentMicros: dayBefore + (unwritten.byDay.get(spentDay) ?? 0),
    spentDay,
  };
}
