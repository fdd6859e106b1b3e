import { Module } from '@nestjs/common';
import { ChangeBus } from '../../common/change-bus';
import { PROFILES_CONFIG, ProfilesConfig } from '../profiles.config';
import { REDIS, RedisClient } from '../../redis/redis.module';
import { REDIS_DEADLINE, RedisDeadline } from '../../redis/redis-deadline';
import { MemoryProfileStore } from './memory-profile-store';
import { PROFILE_STORE } from './profile-store';
import { RedisProfileStore } from './redis-profile-store';

/** The serving side of profiles: serving imports this alone (no controllers, no SQL). */
@Module({
  providers: [
    {
      provide: PROFILE_STORE,
      inject: [REDIS, ChangeBus, PROFILES_CONFIG, REDIS_DEADLINE],
      useFactory: (redis: RedisClient | null, changes: ChangeBus, config: ProfilesConfig, deadline: RedisDeadline | null) =>
        redis ? new RedisProfileStore(redis, changes, { max: config.profileCacheMax, ttlMs: config.profileCacheTtlMs }, deadline) : new MemoryProfileStore(),
    },
  ],
  exports: [PROFILE_STORE],
})
export class ProfileStoreModule {}
