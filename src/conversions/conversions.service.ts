import { Inject, Injectable } from '@nestjs/common';
import { CONVERSIONS_CONFIG, ConversionsConfig } from './conversions.config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Principal } from '../accounts/principal';
import { attributeOnce } from '../common/attribute-once';
import { Clock, DAY_MS } from '../common/clock';
import { ValidationError } from '../common/errors';
import { isDuplicateKey } from '../database/duplicate-key';
import { clickIdTime } from '../clicks/click-ids';
import { CLICK_STORE, type ClickStore } from '../clicks/click-store';
import { MetricsService } from '../metrics/metrics.service';
import { StatsWriterService } from '../stats/stats-writer.service';
import { ConversionRepository } from './conversion.repository';
import { AttributionSummaryDto, ConversionSummaryDto, ConversionSummaryQueryDto } from './dto/conversion.dto';
import { EVENT_TYPES, type EventType } from './event-types';

export type ConversionOutcome = { attributed: true; campaignId: string; clickId: string } | { attributed: false; duplicate?: boolean };

/** Who converted: the user (their latest counted click is credited) or a click id (that click is), and a dedup id. */
export interface ConversionSubject {
  messengerUserId?: string;
  /** The `{click_id}` the advertiser's landing page received (docs/CONTRACT.md §20). */
  clickId?: string;
  /** A second event with the same (advertiser, event type, transactionId) is a duplicate: stored and counted never. */
  transactionId?: string;
}

/**
 * Conversions (endpoint 7, docs/CONTRACT.md §6) and custom events (§13), one attribution path for both: an event is
 * credited to the user's latest counted click on this advertiser's campaigns within ATTRIBUTION_DAYS, at most once
 * per click and event type (a unique index decides between concurrent reports); otherwise kept unattributed.
 * Committed before the answer.
 */
@Injectable()
export class ConversionsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(CONVERSIONS_CONFIG) private readonly config: ConversionsConfig,
    private readonly clock: Clock,
    private readonly conversions: ConversionRepository,
    @Inject(CLICK_STORE) private readonly clicks: ClickStore,
    private readonly counters: StatsWriterService,
    private readonly metrics: MetricsService,
  ) {}

  async report(principal: Pick<Principal, 'accountId'>, subject: string | ConversionSubject, eventType: EventType = 'conversion'): Promise<ConversionOutcome> {
    const outcome = await this.store(principal.accountId, typeof subject === 'string' ? { messengerUserId: subject } : subject, eventType);
    if (!('duplicate' in outcome && outcome.duplicate)) this.metrics.countEvent(eventType, outcome.attributed);
    return outcome;
  }

  /**
   * Stores the event, committed before it answers (then, and only then, it is counted in the metrics). By user: the
   * user's latest counted click on this advertiser's campaigns is credited; by click id: that click, if it is a counted
   * click of this advertiser's within the window (else the event is kept unattributed).
   */
  private async store(advertiserId: string, subject: ConversionSubject, eventType: EventType): Promise<ConversionOutcome> {
    const now = this.clock.now();
    const since = now - this.config.attributionDays * DAY_MS;
    const byClick = subject.clickId !== undefined;
    let messengerUserId = subject.messengerUserId ?? '';
    const servedAt = byClick ? clickIdTime(subject.clickId!) : null;
    try {
      // A repeat, or a report whose click was credited with this event type already, is kept unattributed.
      const click = await attributeOnce(this.dataSource, {
        latestClick: async (manager) => {
          if (!byClick) return this.clicks.latestCounted(manager, messengerUserId, advertiserId, since);
          if (servedAt === null) return null;
          const found = await this.clicks.countedByToken(manager, subject.clickId!, servedAt, advertiserId, since);
          if (found) messengerUserId = found.messengerUserId;
          return found;
        },
        store: async (manager, credited) => {
          // first, so a duplicate transaction id stores nothing (the unique key fails the whole transaction)
          if (subject.transactionId !== undefined) await this.conversions.insertTransaction(manager, advertiserId, eventType, subject.transactionId, now);
          await this.conversions.insert(manager, { advertiserId, messengerUserId, eventType }, credited, now);
          if (credited) await this.counters.countEvent(manager, credited.campaignId, credited.adBlockId, eventType, now);
        },
      });
      return click ? { attributed: true, campaignId: click.campaignId, clickId: click.id } : { attributed: false };
    } catch (error) {
      // attributeOnce tries a click credited already once more unattributed: a duplicate key left is the transaction id
      if (subject.transactionId !== undefined && isDuplicateKey(error)) return { attributed: false, duplicate: true };
      throw error;
    }
  }

  async summary(principal: Principal, query: ConversionSummaryQueryDto): Promise<ConversionSummaryDto> {
    // by default the window ends just after now, so an event of this very millisecond counts
    const to = query.to ?? this.clock.now() + 1;
    const from = query.from ?? to - 30 * DAY_MS;
    if (from >= to) throw ValidationError.of('from', 'must be before to');
    const counts = await this.conversions.countBetween(principal.accountId, from, to);
    const events = Object.fromEntries(
      EVENT_TYPES.map((type): [EventType, AttributionSummaryDto] => {
        const count = counts.find((row) => row.eventType === type);
        return [type, { attributed: count?.attributed ?? 0, unattributed: (count?.total ?? 0) - (count?.attributed ?? 0) }];
      }),
    ) as Record<EventType, AttributionSummaryDto>;
    return { from, to, ...events.conversion, events };
  }
}
