import type { Cluster } from 'ioredis';
import { hashSlot } from './hash-slot';
import type { RedisClient } from './redis.module';

/**
 * How long a command that records money or a dedup mark waits, on a Redis Cluster, for a replica to have it
 * (`WAIT 1 <ms>`): a master killed right after answering would otherwise take an acknowledged click with it when its
 * replica takes over. A live replica acknowledges within a millisecond or so; the wait is kept well inside the
 * request's Redis deadline (REDIS_DEADLINE_MS, 250 ms by default), so a master that lost its replica answers late
 * once, not never (docs/SCALING.md).
 */
export const REPLICA_WAIT_MS = 100;

/** How often a master found without a replica is asked (ROLE) whether one is connected again. */
export const REPLICA_RECHECK_MS = 1000;

type Callable = Record<string, (...args: (string | number)[]) => unknown>;

/**
 * Masters whose WAIT found no replica (a failover promoted a replica that has none yet, or the replica died), by
 * "host:port", per cluster client: commands sent to them skip the WAIT, which would only cost its full timeout each
 * time (with a deadline shorter than that, every click on that master was refused). A timer asks each of them ROLE
 * every REPLICA_RECHECK_MS, off the request path, and drops it from the set once a replica is connected (or the node
 * no longer serves as a master).
 */
const unreplicated = new WeakMap<Cluster, Map<string, NodeJS.Timeout>>();

/**
 * Runs a command (a script defined on the client) and answers its reply. On a cluster it goes in a pipeline with
 * `WAIT 1 REPLICA_WAIT_MS`: a pipeline of a cluster client goes to the node of its keys' slot, so the WAIT counts
 * the replicas of that very master; a master known to have none gets the command alone. On one Redis server it is
 * the command alone (the single-node path unchanged). `args` are the script's key count, then its keys.
 */
export async function replicated<T>(redis: RedisClient, command: string, ...args: (string | number)[]): Promise<T> {
  if (!redis.isCluster) return (await (redis as unknown as Callable)[command](...args)) as T;
  const cluster = redis as Cluster;
  const master = masterOf(cluster, String(args[1]));
  const skipped = unreplicated.get(cluster);
  if (master !== undefined && skipped?.has(master)) return (await (redis as unknown as Callable)[command](...args)) as T;
  for (let redirected = 0; ; redirected++) {
    const pipeline = redis.pipeline();
    (pipeline as unknown as Callable)[command](...args);
    pipeline.call('WAIT', 1, REPLICA_WAIT_MS);
    const [[error, reply], [waitError, acknowledged]] = (await pipeline.exec())!;
    if (error) {
      // After a failover the slot table is stale: the old master's replica-turned-master answers MOVED, and ioredis
      // follows a pipeline's redirection only when every command in it got one (the WAIT, keyless, does not). The
      // script did not run: the table is read again and the pipeline sent to the new master.
      if (redirected < MAX_REDIRECTIONS && /^(MOVED|ASK) /.test((error as Error).message)) {
        await new Promise<void>((resolve) => cluster.refreshSlotsCache(() => resolve()));
        continue;
      }
      throw error;
    }
    if (!waitError && Number(acknowledged) === 0 && master !== undefined) markUnreplicated(cluster, master);
    return reply as T;
  }
}

/** Redirections (MOVED, ASK) a replicated command follows before it fails (a failover moves a slot once). */
const MAX_REDIRECTIONS = 3;

/** The "host:port" of the master serving the key's slot, as the client's slot table has it. */
function masterOf(cluster: Cluster, key: string): string | undefined {
  return cluster.slots[hashSlot(`${cluster.options.keyPrefix ?? ''}${key}`)]?.[0];
}

function markUnreplicated(cluster: Cluster, master: string): void {
  let masters = unreplicated.get(cluster);
  if (masters === undefined) unreplicated.set(cluster, (masters = new Map()));
  if (masters.has(master)) return;
  const timer = setInterval(() => void recheck(cluster, master), REPLICA_RECHECK_MS);
  timer.unref();
  masters.set(master, timer);
}

async function recheck(cluster: Cluster, master: string): Promise<void> {
  const masters = unreplicated.get(cluster);
  const node = cluster.nodes('master').find((candidate) => `${candidate.options.host}:${candidate.options.port}` === master);
  let replicas = 0;
  let stillMaster = node !== undefined;
  if (node !== undefined) {
    try {
      const role = (await node.call('ROLE')) as [string, number, unknown[]];
      stillMaster = role[0] === 'master';
      replicas = Array.isArray(role[2]) ? role[2].length : 0;
    } catch {
      return; // unreachable: asked again at the next tick
    }
  }
  if (cluster.status === 'end' || !stillMaster || replicas > 0) {
    clearInterval(masters?.get(master));
    masters?.delete(master);
  }
}
