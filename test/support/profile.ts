import Redis, { Cluster, RedisOptions } from 'ioredis';
import { closeRedis, type RedisClient } from '../../src/redis/redis.module';

/**
 * Which storage profile the e2e suite runs on: `embedded` (SQLite file, in-process state) or `mysql`
 * (MariaDB/MySQL + Redis). test/run-all.js runs the suite once per profile, and the Redis-state files once more on a
 * Redis Cluster (TEST_REDIS_CLUSTER_NODES, seeds as in REDIS_CLUSTER_NODES; scripts/redis-cluster.sh starts one).
 */
export const TEST_PROFILE = process.env.TEST_PROFILE === 'mysql' ? 'mysql' : 'embedded';
/**
 * The MySQL database of this Jest worker: `<database>_w<worker>` on the server of TEST_DATABASE_URL, so the e2e files
 * run in parallel workers without dropping each other's schema (created by test/support/worker-database.ts).
 */
export const TEST_DATABASE_URL = workerDatabaseUrl(process.env.TEST_DATABASE_URL || 'mysql://root@127.0.0.1:3306/test', process.env.JEST_WORKER_ID);

function workerDatabaseUrl(url: string, worker: string | undefined): string {
  if (!worker) return url;
  const parsed = new URL(url);
  parsed.pathname = `${parsed.pathname.replace(/^\//, '') || 'test'}_w${worker}`;
  return parsed.toString();
}
/**
 * A private MariaDB primary and its replica (scripts/mariadb-replica.sh; .ci/run starts them and exports both), as
 * server URLs without a database: test/e2e/read-replicas.e2e-spec.ts runs on them. null when either is unset.
 */
export const TEST_REPLICATION =
  process.env.TEST_REPLICATION_PRIMARY_URL && process.env.TEST_REPLICATION_REPLICA_URL
    ? { primary: process.env.TEST_REPLICATION_PRIMARY_URL, replica: process.env.TEST_REPLICATION_REPLICA_URL }
    : null;
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
export const TEST_REDIS_CLUSTER_NODES = process.env.TEST_REDIS_CLUSTER_NODES || null;

/** The environment that points an application at the Redis under test (a cluster when TEST_REDIS_CLUSTER_NODES is set). */
export function testRedisEnv(): Record<string, string> {
  return TEST_REDIS_CLUSTER_NODES ? { REDIS_URL: TEST_REDIS_URL, REDIS_CLUSTER_NODES: TEST_REDIS_CLUSTER_NODES } : { REDIS_URL: TEST_REDIS_URL };
}

/** A client of the Redis under test, as the application makes it (on a cluster the prefix is the cluster's option). */
export function testRedis(options: RedisOptions = {}): RedisClient {
  if (!TEST_REDIS_CLUSTER_NODES) return new Redis(TEST_REDIS_URL, options);
  const { keyPrefix, ...nodeOptions } = options;
  const seeds = TEST_REDIS_CLUSTER_NODES.split(',').map((seed) => {
    const [host, port] = seed.trim().split(':');
    return { host, port: Number(port) };
  });
  return new Cluster(seeds, { keyPrefix, redisOptions: nodeOptions });
}

/**
 * Closes a testRedis client as the application closes its own (src/redis/redis.module.ts): on a cluster `quit` alone
 * left connections to replicas that a slot refresh was still opening, and they kept a Jest run alive after its report.
 */
export function closeTestRedis(client: RedisClient): Promise<void> {
  return closeRedis(client);
}

/**
 * Every key of the Redis under test whose name starts with `prefix` (full names, prefix included): KEYS on one
 * server, on every master of a cluster.
 */
export async function testRedisKeys(redis: RedisClient, prefix: string): Promise<string[]> {
  const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
  const nodes: Redis[] = redis instanceof Cluster ? redis.nodes('master') : [redis];
  return (await Promise.all(nodes.map((node) => node.keys(pattern)))).flat();
}

/** Deletes keys by full name through a client with `prefix` (it adds the prefix itself), one by one on a cluster. */
export async function deleteTestRedisKeys(redis: RedisClient, prefix: string, keys: string[]): Promise<void> {
  await Promise.all(keys.map((key) => redis.del(key.slice(prefix.length))));
}
