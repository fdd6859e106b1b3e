import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AdBlocksModule } from '../ad-blocks/ad-blocks.module';
import { CampaignsModule } from '../campaigns/campaigns.module';
import { ClickStoreModule } from '../clicks/click-store.module';
import { CLICK_STORE, type CommittedClicks } from '../clicks/click-store';
import { ProfileStoreModule } from '../profiles/store/profile-store.module';
import { ForecastSamplingModule } from '../forecast/forecast-sampling.module';
import { SERVING_CONFIG, ServingConfig } from './serving.config';
import { REDIS, RedisClient } from '../redis/redis.module';
import { REDIS_DEADLINE, RedisDeadline } from '../redis/redis-deadline';
import { StatsModule } from '../stats/stats.module';
import { StatsWriterService } from '../stats/stats-writer.service';
import { CampaignIndexService } from './campaign-index.service';
import { DeliveryDiagnosisController } from './delivery-diagnosis.controller';
import { DeliveryDiagnosisService } from './delivery-diagnosis.service';
import { GeoService } from './geo.service';
import { ServingController } from './serving.controller';
import { ServingFastLane } from './serving.fast-lane';
import { ServingService } from './serving.service';
import { ServingWarmup } from './serving-warmup';
import { SignedViewers } from './signed-viewer';
import { MemoryServingState } from './state/memory-serving-state';
import { holderTimings } from './state/budget-leases';
import { RedisServingState } from './state/redis-serving-state';
import { SERVING_STATE } from './state/serving-state';
import { withFields } from '../common/with-fields';
import { CAMPAIGN_STORE, type CampaignStore } from '../campaigns/campaign-store';
import { STATS_CONFIG, type StatsConfig } from '../stats/stats.config';
import { EPOCH_CHECK_EVERY_MS } from './state/redis-state-epoch';
import { BlockOptimizationService } from './block-optimization.service';
import { DatabaseSpendSource } from './state/database-spend-source';

@Module({
  imports: [CampaignsModule, ClickStoreModule, AccountsModule, AdBlocksModule, StatsModule, ProfileStoreModule, ForecastSamplingModule],
  controllers: [ServingController, DeliveryDiagnosisController],
  providers: [
    GeoService,
    CampaignIndexService,
    BlockOptimizationService,
    ServingService,
    DeliveryDiagnosisService,
    ServingFastLane,
    SignedViewers,
    ServingWarmup,
    {
      provide: SERVING_STATE,
      inject: [REDIS, SERVING_CONFIG, CLICK_STORE, StatsWriterService, REDIS_DEADLINE, CAMPAIGN_STORE, STATS_CONFIG],
      useFactory: (
        redis: RedisClient | null,
        config: ServingConfig,
        clicks: CommittedClicks,
        stats: StatsWriterService,
        deadline: RedisDeadline | null,
        campaigns: CampaignStore,
        statsConfig: StatsConfig,
      ) => {
        if (!redis) return new MemoryServingState();
        // every process sees a loss within an epoch check and then writes what it served: a flush, and a margin
        const settleMs = EPOCH_CHECK_EVERY_MS + statsConfig.statsFlushMs + 1000;
        const spendSource = new DatabaseSpendSource(stats, campaigns, settleMs, settleMs + statsConfig.statsFlushMs + config.indexRefreshMs);
        const state = new RedisServingState(
          redis,
          withFields(holderTimings(config.leaseHolderTtlMs), {
            leaseIdleMs: config.leaseIdleMs,
            committedClicks: (ids: string[]) => clicks.committedIds(ids),
            spendSource,
          }),
          deadline,
        );
        stats.countImpressionsAfter(() => state.flushBills());
        state.onWaivedSpend((campaignId, micros) => stats.waiveImpressionSpend(campaignId, micros));
        return state;
      },
    },
  ],
  exports: [CampaignIndexService, BlockOptimizationService, SERVING_STATE, GeoService, ServingService],
})
export class ServingModule {}
