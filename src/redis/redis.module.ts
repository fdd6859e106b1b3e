import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '../config/app.config';

export const REDIS = Symbol('REDIS');

/** The shared Redis connection of the MySQL + Redis profile; null in the embedded profile. */
export function createRedis(config: AppConfig): Redis | null {
  if (!config.redisUrl) return null;
  return new Redis(config.redisUrl, {
    keyPrefix: config.redisPrefix,
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    connectTimeout: 5000,
    lazyConnect: false,
    // Commands issued in the same tick (many concurrent ad requests) go out in one write.
    enableAutoPipelining: true,
  });
}

@Injectable()
class RedisCloser implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis | null) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis?.quit().catch(() => this.redis?.disconnect());
  }
}

@Global()
@Module({
  providers: [{ provide: REDIS, inject: [APP_CONFIG], useFactory: createRedis }, RedisCloser],
  exports: [REDIS],
})
export class RedisModule {}
