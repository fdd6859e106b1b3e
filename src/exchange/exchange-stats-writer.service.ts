import { Inject, Injectable, Logger } from '@nestjs/common';
import { STATS_CONFIG, StatsConfig } from '../stats/stats.config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { hourStart } from '../common/clock';
import { MetricsService } from '../metrics/metrics.service';
import { compareIds, GroupCommitWriter, inChunks } from '../stats/group-commit-writer';
import type { ExchangeClick } from './entities/exchange-click.entity';
import { ExchangeCounts, ExchangeStatsRepository } from './exchange-stats.repository';

interface Delta extends ExchangeCounts {
  exchangeCampaignId: string;
  hour: number;
}

/** One entry shown: `inId` promoted, inside `outId`. */
export interface ExchangeImpression {
  inId: string;
  outId: string;
}

/**
 * The one writer of the exchange ledger and its counters. Impressions are summed in memory and written every
 * STATS_FLUSH_MS (a crash can lose that much impression statistics, never a click). Clicks are committed before
 * their request is answered, grouped: every click waiting when a write starts goes into the same transaction
 * (click rows, hourly counters, campaign counters), so load raises the batch size, not the transaction count.
 */
@Injectable()
export class ExchangeStatsWriterService extends GroupCommitWriter<ExchangeClick, Map<string, Delta>> {
  private deltas = new Map<string, Delta>();

  constructor(
    @InjectDataSource() dataSource: DataSource,
    @Inject(STATS_CONFIG) config: StatsConfig,
    private readonly ledgerRows: ExchangeStatsRepository,
    metrics: MetricsService,
  ) {
    super(dataSource, config.statsFlushMs, new Logger(ExchangeStatsWriterService.name), (clicks, seconds) =>
      metrics.observeCounterWrite('exchange', clicks, seconds),
    );
  }

  recordImpressions(impressions: ExchangeImpression[], now: number): void {
    const hour = hourStart(now);
    for (const { inId, outId } of impressions) {
      deltaFor(this.deltas, inId, hour).impressions += 1;
      deltaFor(this.deltas, outId, hour).impressionsSent += 1;
    }
  }

  /** Resolves once the click, the ledger and the hourly counters are committed. */
  recordClick(click: ExchangeClick): Promise<void> {
    return this.enqueue(click);
  }

  /**
   * An attributed exchange conversion, in the caller's transaction (see attributeOnce): it counts for the promoted
   * campaign that received the user, in the hour it was reported.
   */
  async countConversion(manager: EntityManager, exchangeCampaignId: string, now: number): Promise<void> {
    const counts: ExchangeCounts = { impressions: 0, impressionsSent: 0, clicksSent: 0, clicksReceived: 0, conversions: 1 };
    await this.ledgerRows.addHourly(manager, [{ exchangeCampaignId, hour: hourStart(now), ...counts }]);
    await this.ledgerRows.addCampaignCounters(manager, exchangeCampaignId, counts);
  }

  protected takeBuffered(): Map<string, Delta> | undefined {
    if (this.deltas.size === 0) return undefined;
    const impressions = this.deltas;
    this.deltas = new Map();
    return impressions;
  }

  protected putBack(impressions: Map<string, Delta>): void {
    for (const delta of impressions.values()) {
      const current = deltaFor(this.deltas, delta.exchangeCampaignId, delta.hour);
      current.impressions += delta.impressions;
      current.impressionsSent += delta.impressionsSent;
    }
  }

  protected async commit(clicks: ExchangeClick[], impressions = new Map<string, Delta>()): Promise<void> {
    const rows = new Map<string, Delta>();
    for (const [key, delta] of impressions) rows.set(key, { ...delta });
    for (const click of clicks) {
      const hour = hourStart(click.createdAt);
      deltaFor(rows, click.outExchangeCampaignId, hour).clicksSent += 1;
      deltaFor(rows, click.inExchangeCampaignId, hour).clicksReceived += 1;
    }
    await this.ledger.write(impressions, async (manager) => {
      if (clicks.length > 0) await this.ledgerRows.insertClicks(manager, clicks);
      await this.applyDeltas(manager, [...rows.values()]);
    });
  }

  private async applyDeltas(manager: EntityManager, deltas: Delta[]): Promise<void> {
    // A fixed order keeps concurrent writers (several processes) from deadlocking on each other's rows.
    deltas.sort((a, b) => compareIds(a.exchangeCampaignId, b.exchangeCampaignId) || a.hour - b.hour);
    await inChunks(deltas, 200, (chunk) => this.ledgerRows.addHourly(manager, chunk));

    const totals = new Map<string, ExchangeCounts>();
    for (const delta of deltas) {
      const total = totals.get(delta.exchangeCampaignId) ?? { impressions: 0, impressionsSent: 0, clicksSent: 0, clicksReceived: 0, conversions: 0 };
      total.impressions += delta.impressions;
      total.impressionsSent += delta.impressionsSent;
      total.clicksSent += delta.clicksSent;
      total.clicksReceived += delta.clicksReceived;
      totals.set(delta.exchangeCampaignId, total);
    }
    for (const [id, total] of totals) await this.ledgerRows.addCampaignCounters(manager, id, total);
  }
}

function deltaFor(deltas: Map<string, Delta>, exchangeCampaignId: string, hour: number): Delta {
  const key = `${exchangeCampaignId}|${hour}`;
  let delta = deltas.get(key);
  if (!delta) {
    delta = { exchangeCampaignId, hour, impressions: 0, impressionsSent: 0, clicksSent: 0, clicksReceived: 0, conversions: 0 };
    deltas.set(key, delta);
  }
  return delta;
}
