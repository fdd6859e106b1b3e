import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { CampaignsService } from '../campaigns/campaigns.service';
import { PACING_MARGIN } from '../campaigns/pacing';
import { Clock } from '../common/clock';
import type { EventType } from '../conversions/event-types';
import { StatsService } from '../stats/stats.service';
import { type CampaignBlockPlan, type BlockEventTotals, marginOfPlan, planBlocks } from './block-optimization';
import { CampaignIndexService } from './campaign-index.service';
import { SERVING_CONFIG, type ServingConfig } from './serving.config';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The per-block plans of the even-paced campaigns this process serves (block-optimization.ts), read from the hourly
 * stats every OPTIMIZATION_REFRESH_MS and kept in memory: the ad path looks a block's margin up, it never queries.
 * Only campaigns with a block to hold back first are kept; every other one paces as without optimization.
 */
@Injectable()
export class BlockOptimizationService implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(BlockOptimizationService.name);
  private plans = new Map<string, CampaignBlockPlan>();
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | null = null;

  constructor(
    private readonly index: CampaignIndexService,
    private readonly stats: StatsService,
    private readonly campaigns: CampaignsService,
    private readonly clock: Clock,
    @Inject(SERVING_CONFIG) private readonly config: ServingConfig,
  ) {}

  onModuleInit(): void {
    this.campaigns.useBlockPlans((campaignId, event) => this.planOf(campaignId, event));
  }

  /** The first read once every module is up: the campaign index has loaded its campaigns by then. */
  async onApplicationBootstrap(): Promise<void> {
    await this.refresh().catch((error) => this.logger.warn({ err: error }, 'optimization refresh failed'));
    this.timer = setInterval(
      () => void this.refresh().catch((error) => this.logger.warn({ err: error }, 'optimization refresh failed')),
      this.config.optimizationRefreshMs,
    );
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /**
   * The lower pacing margin of the campaign on this block, or undefined when the block keeps the full one (a
   * preferred block, or a campaign that holds back nowhere first): then it paces as without optimization.
   */
  marginOn(campaignId: string, adBlockId: string): number | undefined {
    const plan = this.plans.get(campaignId);
    if (plan === undefined) return undefined;
    const margin = marginOfPlan(plan, adBlockId);
    return margin < PACING_MARGIN ? margin : undefined;
  }

  /** Reads the estimates of every even-paced campaign in the index again (one query per optimization event). */
  refresh(): Promise<void> {
    this.refreshing ??= this.readPlans().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  /** The campaign's plan from the stats as they are now (detail, diagnosis). */
  async planOf(campaignId: string, event: EventType): Promise<CampaignBlockPlan> {
    const [totals, priors] = await Promise.all([this.stats.blockEventTotals([campaignId], event, this.windowStart()), this.campaigns.eventRatePriors()]);
    return planBlocks(totals, priors[event]);
  }

  private windowStart(): number {
    return this.clock.now() - this.config.optimizationWindowDays * DAY_MS;
  }

  private async readPlans(): Promise<void> {
    const byEvent = new Map<EventType, string[]>();
    for (const campaign of this.index.ranked) {
      if (campaign.pacing !== 'even') continue;
      const ids = byEvent.get(campaign.optimizationEvent);
      if (ids) ids.push(campaign.id);
      else byEvent.set(campaign.optimizationEvent, [campaign.id]);
    }
    if (byEvent.size === 0) {
      this.plans = new Map();
      return;
    }
    const priors = await this.campaigns.eventRatePriors();
    const since = this.windowStart();
    const next = new Map<string, CampaignBlockPlan>();
    for (const [event, ids] of byEvent) {
      const perCampaign = new Map<string, BlockEventTotals[]>();
      for (const row of await this.stats.blockEventTotals(ids, event, since)) {
        const totals = perCampaign.get(row.campaignId);
        const block = { adBlockId: row.adBlockId, impressions: row.impressions, clicks: row.clicks, events: row.events };
        if (totals) totals.push(block);
        else perCampaign.set(row.campaignId, [block]);
      }
      for (const [campaignId, totals] of perCampaign) {
        const plan = planBlocks(totals, priors[event]);
        if (plan.heldBack.length > 0 || plan.unseenMargin < PACING_MARGIN) next.set(campaignId, plan);
      }
    }
    this.plans = next;
  }
}
