import type { RedisClient } from './redis.module';

/**
 * How long a command that records money or a dedup mark waits, on a Redis Cluster, for a replica to have it
 * (`WAIT 1 <ms>`): a master killed right after answering would otherwise take an acknowledged click with it when its
 * replica takes over. A master without a live replica answers after this long, unreplicated (docs/SCALING.md).
 */
export const REPLICA_WAIT_MS = 500;

type Callable = Record<string, (...args: (string | number)[]) => unknown>;

/**
 * Runs a command (a script defined on the client) and answers its reply. On a cluster it goes in a pipeline with
 * `WAIT 1 REPLICA_WAIT_MS`: a pipeline of a cluster client goes to the node of its keys' slot, so the WAIT counts
 * the replicas of that very master. On one Redis server it is the command alone (the single-node path unchanged).
 */
export async function replicated<T>(redis: RedisClient, command: string, ...args: (string | number)[]): Promise<T> {
  if (!redis.isCluster) return (await (redis as unknown as Callable)[command](...args)) as T;
  const pipeline = redis.pipeline();
  (pipeline as unknown as Callable)[command](...args);
  pipeline.call('WAIT', 1, REPLICA_WAIT_MS);
  const [[error, reply]] = (await pipeline.exec())!;
  if (error) throw error;
  return reply as T;
}
