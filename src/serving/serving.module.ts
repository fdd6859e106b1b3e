import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type Redis from 'ioredis';
import { AccountsModule } from '../accounts/accounts.module';
import { AdBlocksModule } from '../ad-blocks/ad-blocks.module';
import { Campaign } from '../campaigns/entities/campaign.entity';
import { ProfileStoreModule } from '../profiles/store/profile-store.module';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { REDIS } from '../redis/redis.module';
import { StatsModule } from '../stats/stats.module';
import { CampaignIndexService } from './campaign-index.service';
import { GeoService } from './geo.service';
import { ServingController } from './serving.controller';
import { ServingFastLane } from './serving.fast-lane';
import { ServingService } from './serving.service';
import { SignedViewers } from './signed-viewer';
import { MemoryServingState } from './state/memory-serving-state';
import { holderTimings } from './state/budget-leases';
import { RedisServingState } from './state/redis-serving-state';
import { SERVING_STATE } from './state/serving-state';

@Module({
  imports: [TypeOrmModule.forFeature([Campaign]), AccountsModule, AdBlocksModule, StatsModule, ProfileStoreModule],
  controllers: [ServingController],
  providers: [
    GeoService,
    CampaignIndexService,
    ServingService,
    ServingFastLane,
    SignedViewers,
    {
      provide: SERVING_STATE,
      inject: [REDIS, APP_CONFIG, DataSource],
      useFactory: (redis: Redis | null, config: AppConfig, dataSource: DataSource) =>
        redis
          ? new RedisServingState(redis, { ...holderTimings(config.leaseHolderTtlMs), committedClicks: (ids) => committedClickIds(dataSource, ids) })
          : new MemoryServingState(),
    },
  ],
  exports: [CampaignIndexService, SERVING_STATE, GeoService],
})
export class ServingModule {}

/** The ids among these whose click row exists. */
async function committedClickIds(dataSource: DataSource, ids: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < ids.length; i += 500) {
    const slice = ids.slice(i, i + 500);
    const rows: { id: string }[] = await dataSource.query(`SELECT id FROM clicks WHERE id IN (${slice.map(() => '?').join(', ')})`, slice);
    for (const row of rows) found.add(row.id);
  }
  return found;
}
