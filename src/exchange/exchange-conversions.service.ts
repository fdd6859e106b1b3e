import { Inject, Injectable } from '@nestjs/common';
import { CONVERSIONS_CONFIG, ConversionsConfig } from '../conversions/conversions.config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { isAdmin, type Principal } from '../accounts/principal';
import { attributeOnce } from '../common/attribute-once';
import { Clock, DAY_MS } from '../common/clock';
import { CreditedExchangeClick, ExchangeConversionRepository } from './exchange-conversion.repository';
import { ExchangeStatsWriterService } from './exchange-stats-writer.service';

export type ExchangeConversionOutcome = { attributed: true; exchangeCampaignId: string; exchangeClickId: string } | { attributed: false };

/**
 * Exchange conversions (docs/CONTRACT.md §14): a partner reports a conversion of a user its exchange campaigns
 * received; it is credited to that user's latest counted exchange click into this partner's campaigns within
 * ATTRIBUTION_DAYS, at most once per click, by the same rule as ad conversions (attributeOnce); otherwise kept
 * unattributed. The promoted campaign's `conversions` are counted by the exchange stats writer.
 */
@Injectable()
export class ExchangeConversionsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(CONVERSIONS_CONFIG) private readonly config: ConversionsConfig,
    private readonly clock: Clock,
    private readonly conversions: ExchangeConversionRepository,
    private readonly counters: ExchangeStatsWriterService,
  ) {}

  async report(principal: Principal, messengerUserId: string): Promise<ExchangeConversionOutcome> {
    const now = this.clock.now();
    const since = now - this.config.attributionDays * DAY_MS;
    const click = await attributeOnce<CreditedExchangeClick>(this.dataSource, {
      latestClick: (manager) => this.conversions.latestReceivedClick(manager, principal.accountId, messengerUserId, since),
      store: async (manager, credited) => {
        await this.conversions.insert(manager, principal.accountId, messengerUserId, credited, now);
        if (credited) await this.counters.countConversion(manager, credited.inExchangeCampaignId, now);
      },
    });
    return click ? { attributed: true, exchangeCampaignId: click.inExchangeCampaignId, exchangeClickId: click.id } : { attributed: false };
  }

  /**
   * Whether the user's latest exchange click into the promoted campaign `inExchangeCampaignId`, sent from the caller's
   * own exchange campaigns (any for an admin), was credited with a conversion: what the ton-ai-sdk's exchange verify
   * read asks. Null without such a click, so another partner's clicks answer as unknown ids do.
   */
  latestClickConverted(principal: Principal, inExchangeCampaignId: string, messengerUserId: string): Promise<boolean | null> {
    const outAccountId = isAdmin(principal) ? null : principal.accountId;
    return this.conversions.latestClickCredited(this.dataSource.manager, inExchangeCampaignId, messengerUserId, outAccountId);
  }
}
