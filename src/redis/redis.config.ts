import type { EnvReader } from '../config/env-reader';

export interface RedisNode {
  host: string;
  port: number;
}

/** REDIS_URL, REDIS_CLUSTER_NODES and REDIS_PREFIX: the production profile's Redis, or none (embedded profile). */
export interface RedisConfig {
  /**
   * The Redis in use, or null (embedded profile). With REDIS_CLUSTER_NODES it is the first seed's URL: the checks
   * "is Redis in use" read it, while connections are made through src/redis/redis.module.ts (redisConnection).
   */
  redisUrl: string | null;
  /** Redis Cluster seed nodes (REDIS_CLUSTER_NODES, taking precedence over REDIS_URL); null: one Redis server. */
  redisClusterNodes: RedisNode[] | null;
  redisPrefix: string;
  /**
   * REDIS_DEADLINE_MS: how long a request waits for Redis before it is answered without it (ads: none; clicks and
   * events: 503 with Retry-After). See src/redis/redis-deadline.ts.
   */
  redisDeadlineMs: number;
}

export const REDIS_CONFIG = Symbol('REDIS_CONFIG');

export function readRedisConfig(env: EnvReader): RedisConfig {
  const redisClusterNodes = parseClusterNodes(env);
  let redisUrl = env.read('REDIS_URL') ?? null;
  if (redisUrl !== null && !/^rediss?:\/\/[^\s]+$/.test(redisUrl)) env.problem(`REDIS_URL must be a redis:// or rediss:// URL`);
  if (redisClusterNodes !== null) redisUrl = `redis://${redisClusterNodes[0].host}:${redisClusterNodes[0].port}`;
  const redisPrefix = env.read('REDIS_PREFIX') ?? 'adnet:';
  // A brace in the prefix would become the keys' hash tag on a cluster (Redis hashes the first {...} of a key), and
  // the per-user, per-campaign and per-holder tags of the serving state would no longer keep their keys together.
  if (/[{}]/.test(redisPrefix)) env.problem(`REDIS_PREFIX must not contain { or } (got "${redisPrefix}")`);
  const redisDeadlineMs = env.integer('REDIS_DEADLINE_MS', 250, 10, 1000);
  return { redisUrl, redisClusterNodes, redisPrefix, redisDeadlineMs };
}

/** REDIS_CLUSTER_NODES: host:port seed nodes, comma-separated (the client learns the rest of the cluster from them). */
function parseClusterNodes(env: EnvReader): RedisNode[] | null {
  const raw = env.read('REDIS_CLUSTER_NODES');
  if (raw === undefined) return null;
  const nodes: RedisNode[] = [];
  for (const seed of raw.split(',').map((part) => part.trim())) {
    const match = /^([^\s:]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/.exec(seed);
    if (!match || Number(match[2]) < 1 || Number(match[2]) > 65535) {
      env.problem(`REDIS_CLUSTER_NODES must be host:port seeds separated by commas (got "${seed}")`);
      return null;
    }
    nodes.push({ host: match[1].replace(/^\[|\]$/g, ''), port: Number(match[2]) });
  }
  return nodes;
}
