import { Module } from '@nestjs/common';
import type Redis from 'ioredis';
import { REDIS } from '../../redis/redis.module';
import { MemoryProfileStore } from './memory-profile-store';
import { PROFILE_STORE } from './profile-store';
import { RedisProfileStore } from './redis-profile-store';

/** The serving side of profiles: serving imports this alone (no controllers, no SQL). */
@Module({
  providers: [
    {
      provide: PROFILE_STORE,
      inject: [REDIS],
      useFactory: (redis: Redis | null) => (redis ? new RedisProfileStore(redis) : new MemoryProfileStore()),
    },
  ],
  exports: [PROFILE_STORE],
})
export class ProfileStoreModule {}
