import type { RedisClient } from '../../redis/redis.module';
import { MemoryProfileStore } from './memory-profile-store';
import { ProfileFacts } from './profile-store';
import { RedisProfileStore } from './redis-profile-store';

const FACTS: ProfileFacts = {
  premium: true,
  highValue: false,
  linkedWallet: true,
  linkedChainWallet: false,
  walletHasBalance: false,
  language: 'de',
  ipAddress: '203.0.113.9',
};
const PUBLISHER = '01hzzzzzzzzzzzzzzzzzzzzzzz';

/** Just what the store calls on a single Redis server: GET and MSET over a map, counting the GETs. */
function fakeRedis() {
  const values = new Map<string, string>();
  const redis = {
    isCluster: false,
    options: { keyPrefix: '' },
    gets: 0,
    get: (key: string) => {
      redis.gets += 1;
      return Promise.resolve(values.get(key) ?? null);
    },
    mset: (pairs: string[]) => {
      for (let i = 0; i < pairs.length; i += 2) values.set(pairs[i], pairs[i + 1]);
      return Promise.resolve('OK');
    },
  };
  return redis;
}

describe('ProfileStore.known (what the ad fetch reads without a promise)', () => {
  it('Redis store: nothing before a read, then what get answered, without asking Redis again', async () => {
    const redis = fakeRedis();
    const store = new RedisProfileStore(redis as unknown as RedisClient, undefined, { max: 100, ttlMs: 60_000 });
    await store.putMany([{ accountId: PUBLISHER, messengerUserId: 'u1', facts: FACTS }]);

    expect(store.known(PUBLISHER, 'u1')).toBeUndefined();
    expect(store.known(PUBLISHER, 'nobody')).toBeUndefined();
    expect(await store.get(PUBLISHER, 'u1')).toEqual(FACTS);
    expect(await store.get(PUBLISHER, 'nobody')).toBeNull();
    const readsSoFar = redis.gets;

    expect(store.known(PUBLISHER, 'u1')).toEqual(FACTS);
    // a user known to have no profile is known too: null, not "ask Redis"
    expect(store.known(PUBLISHER, 'nobody')).toBeNull();
    // another publisher's profile of the same user is a key of its own
    expect(store.known('01hyyyyyyyyyyyyyyyyyyyyyyy', 'u1')).toBeUndefined();
    expect(redis.gets).toBe(readsSoFar);
  });

  it('Redis store: a write of the user forgets it, and a profile past its TTL is not known', async () => {
    const redis = fakeRedis();
    const store = new RedisProfileStore(redis as unknown as RedisClient, undefined, { max: 100, ttlMs: 1_000 });
    await store.putMany([{ accountId: PUBLISHER, messengerUserId: 'u1', facts: FACTS }]);
    await store.get(PUBLISHER, 'u1');
    await store.putMany([{ accountId: PUBLISHER, messengerUserId: 'u1', facts: { ...FACTS, premium: false } }]);
    expect(store.known(PUBLISHER, 'u1')).toBeUndefined();
    expect((await store.get(PUBLISHER, 'u1'))?.premium).toBe(false);
    expect(store.known(PUBLISHER, 'u1')?.premium).toBe(false);

    const now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(now + 1_000);
    try {
      expect(store.known(PUBLISHER, 'u1')).toBeUndefined();
    } finally {
      clock.mockRestore();
    }
  });

  it('Redis store without a cache never knows', async () => {
    const redis = fakeRedis();
    const store = new RedisProfileStore(redis as unknown as RedisClient);
    await store.putMany([{ accountId: PUBLISHER, messengerUserId: 'u1', facts: FACTS }]);
    await store.get(PUBLISHER, 'u1');
    expect(store.known(PUBLISHER, 'u1')).toBeUndefined();
  });

  it('memory store: always known, null for a user without a profile', async () => {
    const store = new MemoryProfileStore();
    await store.putMany([{ accountId: PUBLISHER, messengerUserId: 'u1', facts: FACTS }]);
    expect(store.known(PUBLISHER, 'u1')).toEqual(FACTS);
    expect(store.known(PUBLISHER, 'nobody')).toBeNull();
  });
});
