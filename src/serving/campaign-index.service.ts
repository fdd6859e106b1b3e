import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { MoreThan, Repository } from 'typeorm';
import { spentToday } from '../campaigns/campaign-rules';
import { Campaign } from '../campaigns/entities/campaign.entity';
import { CAMPAIGN_CHANGED } from '../campaigns/campaigns.service';
import { ChangeBus } from '../common/change-bus';
import { Clock } from '../common/clock';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { expectedRevenuePerMille, IndexedCampaign, rankCampaigns, smoothedCtr } from './campaign-matcher';

/** Ads are one per campaign; the ad id is derived from the campaign id so a click names both consistently. */
export function adIdOf(campaignId: string): string {
  return `ad_${campaignId}`;
}

export function toIndexed(campaign: Campaign): IndexedCampaign {
  const targeting = campaign.targeting;
  const ctr = smoothedCtr(campaign.clicks, campaign.impressions);
  return {
    id: campaign.id,
    adId: adIdOf(campaign.id),
    accountId: campaign.accountId,
    includedRegions: new Set(targeting.includedRegions),
    excludedRegions: new Set(targeting.excludedRegions),
    includedLanguages: new Set(targeting.includedLanguages),
    excludedLanguages: new Set(targeting.excludedLanguages),
    platform: targeting.platform,
    messengerPremium: targeting.messengerPremium,
    isHighValueUser: targeting.isHighValueUser,
    userLinkedChainWallet: targeting.userLinkedChainWallet,
    userLinkedWallet: targeting.userLinkedWallet,
    userWalletHasBalanceOnChain: targeting.userWalletHasBalanceOnChain,
    billingType: campaign.billingType,
    costPerMicros: campaign.costPerMicros,
    startTime: campaign.startTime,
    endTime: campaign.endTime,
    totalBudgetMicros: campaign.totalBudgetMicros,
    dailyBudgetMicros: campaign.dailyBudgetMicros,
    spentMicros: campaign.spentMicros,
    daySpentMicros: campaign.daySpentMicros,
    spentDay: campaign.spentDay,
    ecpmMicros: expectedRevenuePerMille(campaign.billingType, campaign.costPerMicros, ctr),
    creative: {
      icon: campaign.icon,
      image: campaign.popupImage,
      text: campaign.text,
      brandName: campaign.brandName,
      buttonText: campaign.buttonText,
      destination: { actionType: campaign.actionType, url: campaign.destinationUrl },
    },
  };
}

/**
 * Every servable campaign of this process, ranked, in memory: the hot path never queries the database.
 * Reloaded in full every INDEX_REFRESH_MS, and one campaign at once when a change notice arrives (from this
 * process or, through Redis, from another).
 */
@Injectable()
export class CampaignIndexService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(CampaignIndexService.name);
  private byId = new Map<string, IndexedCampaign>();
  private rankedList: IndexedCampaign[] = [];
  /** Campaigns the shared state found out of budget; skipped until the next full refresh. */
  private exhausted = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | null = null;

  constructor(
    @InjectRepository(Campaign) private readonly campaigns: Repository<Campaign>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly changes: ChangeBus,
  ) {}

  async onModuleInit(): Promise<void> {
    this.changes.on(CAMPAIGN_CHANGED, (id) => void this.reload(id).catch((error) => this.logger.warn({ err: error }, 'reload failed')));
    await this.refresh();
    this.timer = setInterval(() => void this.refresh().catch((error) => this.logger.warn({ err: error }, 'refresh failed')), this.config.indexRefreshMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  get ranked(): readonly IndexedCampaign[] {
    return this.rankedList;
  }

  get skipped(): ReadonlySet<string> {
    return this.exhausted;
  }

  get(campaignId: string): IndexedCampaign | undefined {
    return this.byId.get(campaignId);
  }

  markExhausted(campaignIds: string[]): void {
    for (const id of campaignIds) this.exhausted.add(id);
  }

  async refresh(): Promise<void> {
    if (this.refreshing) return this.refreshing;
    this.refreshing = (async () => {
      const now = this.clock.now();
      const rows = await this.campaigns.find({ where: { status: 'onGoing', approved: true, endTime: MoreThan(now) } });
      const indexed = rows.filter((row) => hasBudgetLeft(row, now)).map(toIndexed);
      this.byId = new Map(indexed.map((campaign) => [campaign.id, campaign]));
      this.rankedList = rankCampaigns(indexed);
      this.exhausted = new Set();
    })().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  /** Brings one campaign up to date after a change: added, replaced or dropped. */
  async reload(campaignId: string): Promise<void> {
    const row = await this.campaigns.findOneBy({ id: campaignId });
    const now = this.clock.now();
    const servable = row && row.status === 'onGoing' && row.approved && row.endTime > now && hasBudgetLeft(row, now);
    const next = new Map(this.byId);
    if (servable) next.set(campaignId, toIndexed(row));
    else next.delete(campaignId);
    this.byId = next;
    this.rankedList = rankCampaigns([...next.values()]);
    this.exhausted.delete(campaignId);
  }

  /** The campaign as billing needs it, also when it is no longer servable (a click on an ad served earlier). */
  async lookup(campaignId: string): Promise<IndexedCampaign | null> {
    const indexed = this.byId.get(campaignId);
    if (indexed) return indexed;
    const row = await this.campaigns.findOneBy({ id: campaignId });
    return row ? toIndexed(row) : null;
  }
}

function hasBudgetLeft(campaign: Campaign, now: number): boolean {
  return campaign.spentMicros < campaign.totalBudgetMicros && spentToday(campaign, now) < campaign.dailyBudgetMicros;
}

