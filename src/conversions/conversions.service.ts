import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Principal } from '../accounts/principal';
import { Clock, DAY_MS } from '../common/clock';
import { ValidationError } from '../common/errors';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { CLICK_STORE, type ClickStore } from '../events/click-store';
import { MetricsService } from '../metrics/metrics.service';
import { StatsWriterService } from '../stats/stats-writer.service';
import { ConversionRepository, isDuplicateKey } from './conversion.repository';
import { ConversionSummaryDto, ConversionSummaryQueryDto } from './dto/conversion.dto';

export type ConversionOutcome = { attributed: true; campaignId: string; clickId: string } | { attributed: false };

/**
 * Conversions (endpoint 7, docs/CONTRACT.md §6): credited to the user's latest counted click on this advertiser's campaigns
 * within ATTRIBUTION_DAYS, at most once per click (a unique index decides between concurrent reports); otherwise
 * kept unattributed. Committed before the answer.
 */
@Injectable()
export class ConversionsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly conversions: ConversionRepository,
    @Inject(CLICK_STORE) private readonly clicks: ClickStore,
    private readonly counters: StatsWriterService,
    private readonly metrics: MetricsService,
  ) {}

  async report(principal: Principal, messengerUserId: string): Promise<ConversionOutcome> {
    const outcome = await this.store(principal, messengerUserId);
    this.metrics.countConversion(outcome.attributed);
    return outcome;
  }

  /** Stores the conversion, committed before it answers (then, and only then, it is counted in the metrics). */
  private async store(principal: Principal, messengerUserId: string): Promise<ConversionOutcome> {
    const now = this.clock.now();
    const since = now - this.config.attributionDays * DAY_MS;
    try {
      return await this.dataSource.transaction(async (manager) => {
        const click = await this.clicks.latestCounted(manager, messengerUserId, principal.accountId, since);
        if (!click) {
          await this.conversions.insert(manager, principal.accountId, messengerUserId, null, now);
          return { attributed: false as const };
        }
        await this.conversions.insert(manager, principal.accountId, messengerUserId, click, now);
        await this.counters.countConversion(manager, click.campaignId, now);
        return { attributed: true as const, campaignId: click.campaignId, clickId: click.id };
      });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      // The latest click was credited already (by an earlier or a concurrent report): keep this one apart.
      await this.dataSource.transaction((manager) => this.conversions.insert(manager, principal.accountId, messengerUserId, null, now));
      return { attributed: false };
    }
  }

  async summary(principal: Principal, query: ConversionSummaryQueryDto): Promise<ConversionSummaryDto> {
    const to = query.to ?? this.clock.now();
    const from = query.from ?? to - 30 * DAY_MS;
    if (from >= to) throw ValidationError.of('from', 'must be before to');
    const { attributed, total } = await this.conversions.countBetween(principal.accountId, from, to);
    return { from, to, attributed, unattributed: total - attributed };
  }
}
