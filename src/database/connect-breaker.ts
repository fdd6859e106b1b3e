/** Codes of a connection attempt the database refused at once (stopped, killed, restarting). */
const REFUSED_CODES = new Set(['ECONNREFUSED', 'ER_SERVER_SHUTDOWN', 'ER_CON_COUNT_ERROR']);

/** A pool whose connection getter takes its callback last (mysql2's pool and pool cluster). */
interface ConnectionGetter {
  getConnection(...args: unknown[]): void;
}

/**
 * The error a connection request gets at once while the pool is stalled (see guardConnectionGetter): a connection
 * error like a refusal (503 with Retry-After), and never in doubt — nothing was sent.
 */
export class PoolStalledError extends Error {
  readonly code = POOL_STALLED_CODE;
  constructor(waitedMs: number) {
    super(`the database has not handed out a connection for ${waitedMs} ms: refused at once, nothing was sent`);
  }
}
export const POOL_STALLED_CODE = 'POOL_STALLED';

export interface ConnectionGuard {
  /** After a refused connection attempt, the next one waits this long; requests meanwhile get that refusal at once. */
  retryMs: number;
  /** Once a connection request has waited this long (the database frozen, or every connection held), new ones fail at once. */
  stalledMs: number;
}

/**
 * The pool's connection getter, guarded against the two ways an outage made requests that need MySQL pile up and slow
 * the ad path that does not (docs/OPERATIONS.md, "Faults"):
 * - while the database refuses connections (stopped, killed), it answers the last refusal at once for `retryMs` after
 *   it instead of making an attempt of its own: every request that needed MySQL (a click's billing facts, a
 *   conversion, `/health`, the stats flush) made one, each a new mysql2 connection with its statement cache. One
 *   attempt per `retryMs` still goes through, so a database back is seen within that time;
 * - while a request has waited `stalledMs` for a connection and still waits (the database frozen: its connections
 *   hang, the pool's queue grows), new requests fail at once. Their callers give up on a read after its deadline
 *   anyway, but the read stayed queued, with every other one of the outage: held in memory, all run in one burst
 *   when the database woke, a full garbage collection with them. The requests already waiting are the probes: once
 *   the database hands them connections, new requests go through again.
 */
export function guardConnectionGetter(pool: ConnectionGetter, guard: ConnectionGuard, now: () => number = Date.now): void {
  const getConnection = pool.getConnection.bind(pool);
  // per pattern of a pool cluster ('MASTER', 'SLAVE*'): a replica refusing says nothing of the primary
  const refused = new Map<string, { until: number; error: unknown }>();
  /** Per pattern, the requests waiting for a connection: when each was made, oldest first. */
  const waiting = new Map<string, Map<number, number>>();
  let nextRequest = 0;
  pool.getConnection = (...args: unknown[]) => {
    const callback = args[args.length - 1] as (error: unknown, connection?: unknown) => void;
    const pattern = args.slice(0, -1).join(',');
    const last = refused.get(pattern);
    const at = now();
    if (last !== undefined && at < last.until) {
      process.nextTick(() => callback(last.error));
      return;
    }
    let requests = waiting.get(pattern);
    if (requests === undefined) waiting.set(pattern, (requests = new Map()));
    const oldest: number | undefined = requests.values().next().value;
    if (oldest !== undefined && at - oldest >= guard.stalledMs) {
      process.nextTick(() => callback(new PoolStalledError(at - oldest)));
      return;
    }
    const request = nextRequest++;
    requests.set(request, at);
    getConnection(...args.slice(0, -1), (error: unknown, connection?: unknown) => {
      requests.delete(request);
      if (error !== null && error !== undefined && REFUSED_CODES.has(String((error as { code?: unknown }).code)))
        refused.set(pattern, { until: now() + guard.retryMs, error });
      else refused.delete(pattern);
      callback(error, connection);
    });
  };
}
