/** Codes of a connection attempt the database refused at once (stopped, killed, restarting). */
const REFUSED_CODES = new Set(['ECONNREFUSED', 'ER_SERVER_SHUTDOWN', 'ER_CON_COUNT_ERROR']);

/** A pool whose connection getter takes its callback last (mysql2's pool and pool cluster). */
interface ConnectionGetter {
  getConnection(...args: unknown[]): void;
}

/**
 * While the database refuses connections, the pool's connection getter answers the last refusal at once for
 * `retryMs` after it instead of making an attempt of its own: during an outage every request that needs MySQL (a
 * click's billing facts, a conversion, `/health`, the stats flush) made one, each a new mysql2 connection with its
 * statement cache, and the garbage slowed the ad path that does not need MySQL at all (docs/OPERATIONS.md,
 * "Faults"). One attempt per `retryMs` still goes through, so a database back is seen within that time.
 */
export function refuseAtOnceAfterRefusal(pool: ConnectionGetter, retryMs: number, now: () => number = Date.now): void {
  const getConnection = pool.getConnection.bind(pool);
  // per pattern of a pool cluster ('MASTER', 'SLAVE*'): a replica refusing says nothing of the primary
  const refused = new Map<string, { until: number; error: unknown }>();
  pool.getConnection = (...args: unknown[]) => {
    const callback = args[args.length - 1] as (error: unknown, connection?: unknown) => void;
    const pattern = args.slice(0, -1).join(',');
    const last = refused.get(pattern);
    if (last !== undefined && now() < last.until) {
      process.nextTick(() => callback(last.error));
      return;
    }
    getConnection(...args.slice(0, -1), (error: unknown, connection?: unknown) => {
      if (error !== null && error !== undefined && REFUSED_CODES.has(String((error as { code?: unknown }).code)))
        refused.set(pattern, { until: now() + retryMs, error });
      else refused.delete(pattern);
      callback(error, connection);
    });
  };
}
