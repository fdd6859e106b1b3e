import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis, { Cluster, RedisOptions } from 'ioredis';
import { REDIS_CONFIG, RedisConfig } from './redis.config';
import { withFields } from '../common/with-fields';
import { REDIS_DEADLINE, RedisDeadline } from './redis-deadline';

export const REDIS = Symbol('REDIS');

/** A connection to the shared Redis: one server (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES). */
export type RedisClient = Redis | Cluster;

/**
 * A new connection to the configured Redis with these options (on a cluster, each node's connection gets them).
 * `keyPrefix` goes in the cluster's own options: ioredis ignores it in the nodes' options.
 */
export function redisConnection(config: RedisConfig, options: RedisOptions = {}): RedisClient {
  if (config.redisClusterNodes) {
    // No auto-pipelining on a cluster: ioredis groups a tick's commands by the slot of their first argument, which for
    // a script is its key count, not a key (scripts of different slots would share a pipeline and be refused).
    const { keyPrefix, enableAutoPipelining: _autoPipelining, maxRetriesPerRequest, ...nodeOptions } = options;
    return new Redis.Cluster(config.redisClusterNodes, {
      keyPrefix,
      redisOptions: withFields(nodeOptions, { maxRetriesPerRequest }),
      // a failover (a master lost, its replica promoted) takes the cluster node timeout and more: keep retrying
      retryDelayOnFailover: 200,
      retryDelayOnClusterDown: 300,
      retryDelayOnTryAgain: 100,
      maxRedirections: 32,
      clusterRetryStrategy: (times) => Math.min(100 * times, 2000),
    });
  }
  return new Redis(config.redisUrl!, options);
}

/** The shared Redis connection of the MySQL + Redis profile; null in the embedded profile. */
export function createRedis(config: RedisConfig): RedisClient | null {
  if (!config.redisUrl) return null;
  return redisConnection(config, {
    keyPrefix: config.redisPrefix,
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    connectTimeout: 5000,
    lazyConnect: false,
    // Commands issued in the same tick (many concurrent ad requests) go out in one write.
    enableAutoPipelining: true,
  });
}

/** Closes a connection, waiting for its replies; one that cannot quit (Redis unreachable) is cut. */
export async function closeRedis(redis: RedisClient | null | undefined): Promise<void> {
  if (!redis || redis.status === 'end') return;
  await redis.quit().catch(() => redis.disconnect());
  // A cluster's quit resolves once the nodes answered; connections still opening (a refresh of the slots) end here.
  if (redis.isCluster) redis.disconnect();
}

@Injectable()
class RedisCloser implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: RedisClient | null) {}

  async onApplicationShutdown(): Promise<void> {
    await closeRedis(this.redis);
  }
}

@Global()
@Module({
  providers: [
    { provide: REDIS, inject: [REDIS_CONFIG], useFactory: createRedis },
    {
      provide: REDIS_DEADLINE,
      inject: [REDIS, REDIS_CONFIG],
      useFactory: (redis: RedisClient | null, config: RedisConfig) => (redis ? new RedisDeadline(redis, config.redisDeadlineMs) : null),
    },
    RedisCloser,
  ],
  exports: [REDIS, REDIS_DEADLINE],
})
export class RedisModule {}
