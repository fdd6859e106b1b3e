import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { hourStart } from '../common/clock';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { WriteLedger } from '../stats/write-ledger';
import type { ExchangeClick } from './entities/exchange-click.entity';
import { ExchangeCounts, ExchangeStatsRepository } from './exchange-stats.repository';

interface Delta extends ExchangeCounts {
  exchangeCampaignId: string;
  hour: number;
}

interface PendingClick {
  click: ExchangeClick;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** One entry shown: `inId` promoted, inside `outId`. */
export interface ExchangeImpression {
  inId: string;
  outId: string;
}

const MAX_CLICKS_PER_FLUSH = 500;

/**
 * The one writer of the exchange ledger and its counters. Impressions are summed in memory and written every
 * STATS_FLUSH_MS (a crash can lose that much impression statistics, never a click). Clicks are committed before
 * their request is answered, grouped: every click waiting when a write starts goes into the same transaction
 * (click rows, hourly counters, campaign counters), so load raises the batch size, not the transaction count.
 */
@Injectable()
export class ExchangeStatsWriterService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ExchangeStatsWriterService.name);
  private deltas = new Map<string, Delta>();
  private pendingClicks: PendingClick[] = [];
  private writing: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly ledger: WriteLedger<Map<string, Delta>>;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly ledgerRows: ExchangeStatsRepository,
  ) {
    this.ledger = new WriteLedger(dataSource, this.logger, (impressions) => this.putBack(impressions));
  }

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), this.config.statsFlushMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
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
    return new Promise<void>((resolve, reject) => {
      this.pendingClicks.push({ click, resolve, reject });
      void this.flush();
    });
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

  /** Writes everything buffered so far; waits for a write already under way and runs once more if needed. */
  async flush(): Promise<void> {
    if (this.writing) {
      this.again = true;
      return this.writing;
    }
    this.writing = (async () => {
      try {
        do {
          this.again = false;
          await this.writeBatch();
        } while (this.again || this.pendingClicks.length > 0);
      } finally {
        // cleared in the same step as the last check: a later flush() starts a new write (see StatsWriterService)
        this.writing = null;
      }
    })();
    return this.writing;
  }

  private async writeBatch(): Promise<void> {
    await this.ledger.settle();
    const clicks = this.pendingClicks.splice(0, MAX_CLICKS_PER_FLUSH);
    const impressions = this.deltas;
    this.deltas = new Map();
    if (clicks.length === 0 && impressions.size === 0) return;

    const rows = new Map<string, Delta>();
    for (const [key, delta] of impressions) rows.set(key, { ...delta });
    for (const { click } of clicks) {
      const hour = hourStart(click.createdAt);
      deltaFor(rows, click.outExchangeCampaignId, hour).clicksSent += 1;
      deltaFor(rows, click.inExchangeCampaignId, hour).clicksReceived += 1;
    }

    try {
      await this.ledger.write(impressions, async (manager) => {
        if (clicks.length > 0)
          await this.ledgerRows.insertClicks(
            manager,
            clicks.map(({ click }) => click),
          );
        await this.applyDeltas(manager, [...rows.values()]);
      });
      for (const pending of clicks) pending.resolve();
    } catch (error) {
      this.logger.error({ err: error }, 'exchange stats write failed; impressions kept for the next try, clicks refused');
      for (const pending of clicks) pending.reject(error);
    }
  }

  private putBack(impressions: Map<string, Delta>): void {
    for (const delta of impressions.values()) {
      const current = deltaFor(this.deltas, delta.exchangeCampaignId, delta.hour);
      current.impressions += delta.impressions;
      current.impressionsSent += delta.impressionsSent;
    }
  }

  private async applyDeltas(manager: EntityManager, deltas: Delta[]): Promise<void> {
    // A fixed order keeps concurrent writers (several processes) from deadlocking on each other's rows.
    deltas.sort((a, b) => compare(a.exchangeCampaignId, b.exchangeCampaignId) || a.hour - b.hour);
    for (let i = 0; i < deltas.length; i += 200) await this.ledgerRows.addHourly(manager, deltas.slice(i, i + 200));

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

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
