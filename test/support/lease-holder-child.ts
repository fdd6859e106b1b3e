/**
 * A serving process for the lease reclaim test: takes a budget lease for one candidate, serves one impression from
 * it and bills it off the lease in Redis, says `ready` and waits to be killed outright (SIGKILL), leaving the rest of
 * its lease unreturned.
 * argv: key prefix, holder TTL in ms, the candidate as JSON; the Redis under test from the environment (profile.ts).
 */
import { RedisServingState } from '../../src/serving/state/redis-serving-state';
import { testRedis } from './profile';

async function main(): Promise<void> {
  const [keyPrefix, holderTtlMs, candidateJson] = process.argv.slice(2);
  const redis = testRedis({ keyPrefix });
  const state = new RedisServingState(redis, { holderTtlMs: Number(holderTtlMs) });
  const result = await state.reserveImpressions({ userId: 'killed-user', adBlockId: 'b1', now: Date.now(), limit: 1 }, [JSON.parse(candidateJson)]);
  await state.flushBills();
  process.stdout.write(`ready ${JSON.stringify(result.served)}\n`);
  setInterval(() => undefined, 60_000);
}

void main();
