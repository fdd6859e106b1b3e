import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { EXCHANGE_CONFIG, ExchangeConfig } from './exchange.config';
import { SERVING_CONFIG, ServingConfig } from '../serving/serving.config';
import { isAdmin, Principal } from '../accounts/principal';
import { ChangeBus } from '../common/change-bus';
import { NotFoundError } from '../common/errors';
import { ExchangeCampaign, ExchangeStatus } from './entities/exchange-campaign.entity';
import { ExchangeCampaignRepository } from './exchange-campaign.repository';
import { entryIdOf, IndexedExchangeCampaign, RankedExchangeCampaign, rankExchangeCampaigns } from './exchange-matcher';
import { withFields } from '../common/with-fields';

/** Change-bus topic: an exchange campaign was created or changed; exchange indexes reload. */
export const EXCHANGE_CHANGED = 'exchange';

/** How long change notices are gathered before one reload applies them all. */
const RELOAD_GATHER_MS = 20;

/** What the hot paths need to know of any exchange campaign: whose it is and whether it still runs. */
export interface ExchangeCampaignRef {
  id: string;
  accountId: string;
  status: ExchangeStatus;
}

export function toIndexed(campaign: ExchangeCampaign): IndexedExchangeCampaign {
  return {
    id: campaign.id,
    entryId: entryIdOf(campaign.id),
    accountId: campaign.accountId,
    includedRegions: new Set(campaign.targeting.includedRegions),
    excludedRegions: new Set(campaign.targeting.excludedRegions),
    includedLanguages: new Set(campaign.targeting.includedLanguages),
    excludedLanguages: new Set(campaign.targeting.excludedLanguages),
    balance: campaign.clicksSent - campaign.clicksReceived,
    creative: {
      icon: campaign.icon,
      image: campaign.image,
      text: campaign.text,
      destination: { actionType: campaign.actionType, url: campaign.destinationUrl },
    },
  };
}

/**
 * Every exchange campaign that is not ended, with the traffic ledger's balances, ranked, in this process's memory:
 * the matching and click paths never query the database for a known campaign. Reloaded in full every
 * INDEX_REFRESH_MS and, gathered for 20 ms, on change notices (from this process or, through Redis, others).
 * Counted clicks move the balances of this process at once; other processes see them at their next reload.
 */
@Injectable()
export class ExchangeIndexService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ExchangeIndexService.name);
  private refs = new Map<string, ExchangeCampaignRef>();
  private active = new Map<string, IndexedExchangeCampaign>();
  private partnerBalances = new Map<string, number>();
  private rankedList: RankedExchangeCampaign[] = [];
  private rankingStale = false;
  /** Counted clicks noted so far: a reload that read while one was noted may have missed it, and runs again. */
  private clicksNoted = 0;
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private gatherTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly campaigns: ExchangeCampaignRepository,
    @Inject(EXCHANGE_CONFIG) private readonly exchangeConfig: ExchangeConfig,
    @Inject(SERVING_CONFIG) private readonly servingConfig: ServingConfig,
    private readonly changes: ChangeBus,
  ) {}

  async onModuleInit(): Promise<void> {
    this.changes.on(EXCHANGE_CHANGED, () => this.noteChanged());
    await this.refresh();
    this.timer = setInterval(() => void this.refresh().catch((error) => this.logger.warn({ err: error }, 'refresh failed')), this.servingConfig.indexRefreshMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
    clearTimeout(this.gatherTimer);
  }

  /** Ongoing campaigns, best ranked first. */
  get ranked(): readonly RankedExchangeCampaign[] {
    if (this.rankingStale) {
      this.rankingStale = false;
      this.rankedList = rankExchangeCampaigns([...this.active.values()], this.partnerBalances, this.exchangeConfig.exchangeDebtLimit);
    }
    return this.rankedList;
  }

  /**
   * Reloads from the database. A call made while a reload is reading waits for one that starts after it, so the
   * caller's own change is always in the answer.
   */
  refresh(): Promise<void> {
    if (!this.queued) {
      const previous = this.running ?? Promise.resolve();
      this.queued = previous
        .catch(() => undefined)
        .then(() => {
          this.queued = null;
          this.running = this.load().finally(() => {
            this.running = null;
          });
          return this.running;
        });
    }
    return this.queued;
  }

  private async load(): Promise<void> {
    const clicksBefore = this.clicksNoted;
    const [rows, balances] = await Promise.all([this.campaigns.notEnded(), this.campaigns.partnerBalances()]);
    this.refs = new Map(rows.map((row) => [row.id, { id: row.id, accountId: row.accountId, status: row.status }]));
    this.active = new Map(rows.filter((row) => row.status === 'onGoing').map((row) => [row.id, toIndexed(row)]));
    this.partnerBalances = balances;
    this.rankingStale = true;
    if (this.clicksNoted !== clicksBefore) this.noteChanged();
  }

  private noteChanged(): void {
    if (this.gatherTimer) return;
    this.gatherTimer = setTimeout(() => {
      this.gatherTimer = undefined;
      void this.refresh().catch((error) => this.logger.warn({ err: error }, 'reload failed'));
    }, RELOAD_GATHER_MS);
  }

  /**
   * The campaign if the caller may use it: its owner's or an admin's. Unknown and foreign ids throw the same 404
   * naming `field`. Ended campaigns are not indexed and are read from the database.
   */
  async usable(principal: Principal, exchangeCampaignId: string, field: string): Promise<ExchangeCampaignRef> {
    const ref = await this.lookup(exchangeCampaignId);
    if (!ref || (ref.accountId !== principal.accountId && !isAdmin(principal))) throw new NotFoundError(field, 'exchange campaign');
    return ref;
  }

  async lookup(exchangeCampaignId: string): Promise<ExchangeCampaignRef | null> {
    const known = this.refs.get(exchangeCampaignId);
    if (known) return known;
    return this.campaigns.refOf(exchangeCampaignId);
  }

  /** A counted click, already committed: the out campaign gave one click, the in campaign got one. */
  noteClick(out: ExchangeCampaignRef, promoted: ExchangeCampaignRef): void {
    this.clicksNoted += 1;
    this.partnerBalances.set(out.accountId, (this.partnerBalances.get(out.accountId) ?? 0) + 1);
    this.partnerBalances.set(promoted.accountId, (this.partnerBalances.get(promoted.accountId) ?? 0) - 1);
    for (const [id, delta] of [
      [out.id, 1],
      [promoted.id, -1],
    ] as const) {
      const campaign = this.active.get(id);
      if (campaign) this.active.set(id, withFields(campaign, { balance: campaign.balance + delta }));
    }
    this.rankingStale = true;
  }
}
