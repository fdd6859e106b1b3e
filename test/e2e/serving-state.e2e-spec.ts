import Redis from 'ioredis';
import { MemoryServingState } from '../../src/serving/state/memory-serving-state';
import { RedisServingState } from '../../src/serving/state/redis-serving-state';
import { describeServingStateContract } from '../../src/serving/state/serving-state.contract';
import { TEST_PROFILE, TEST_REDIS_URL } from '../support/profile';

// The state of the profile under test: Redis (Lua scripts) on the MySQL + Redis profile, memory on the embedded one.
if (TEST_PROFILE === 'mysql') {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL, { keyPrefix: `adnet-state-test:${process.pid}:`, maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    // KEYS answers full names; DEL through the same client would prefix them again, so strip the prefix.
    const prefix = `adnet-state-test:${process.pid}:`;
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys.map((key) => key.slice(prefix.length)));
    await redis.quit();
  });
  describeServingStateContract('redis', () => new RedisServingState(redis));
} else {
  describeServingStateContract('memory', () => new MemoryServingState());
}
