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

@Module({
  imports: [CampaignsModule, ClickStoreModule, AccountsModule, AdBlocksModule, StatsModule, ProfileStoreModule, ForecastSamplingModule],
  controllers: [ServingController, DeliveryDiagnosisController],
  providers: [
    GeoService,
    CampaignIndexService,
    ServingService,
    DeliveryDiagnosisService,
    ServingFastLane,
    SignedViewers,
    ServingWarmup,
    {
      provide: SERVING_STATE,
      inject: [REDIS, SERVING_CONFIG, CLICK_STORE, StatsWriterService, REDIS_DEADLINE],
      useFactory: (redis: RedisClient | null, config: ServingConfig, clicks: CommittedClicks, stats: StatsWriterService, deadline: RedisDeadline | null) => {
        if (!redis) return new MemoryServingState();
        const state = new RedisServingState(
          redis,
          withFields(holderTimings(config.leaseHolderTtlMs), {
            leaseIdleMs: config.leaseIdleMs,
            committedClicks: (ids: string[]) => clicks.committedIds(ids),
          }),
          deadline,
        );
        stats.countImpressionsAfter(() => state.flushBills());
        state.onWaivedSpend((campaignId, micros) => stats.waiveImpressionSpend(campaignId, micros));
        return state;
      },
    },
  ],
  exports: [CampaignIndexService, SERVING_STATE, GeoService, ServingService],
})
export class ServingModule {}
