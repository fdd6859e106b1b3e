import { Cluster, type Redis } from 'ioredis';
import type { ChangeBus } from '../../common/change-bus';
import { groupBySlot } from '../../redis/hash-slot';
import type { RedisClient } from '../../redis/redis.module';
import type { RedisDeadline } from '../../redis/redis-deadline';
import { decodeFacts, encodeFacts, ProfileFacts, ProfileStore, PublisherProfileFacts, publisherUserKey } from './profile-store';

/** `pprof:<publisher>:<user>`: profiles are per publisher (the keys of the former global store were `prof:<user>`). */
export const profileKey = (publisherUser: string) => `pprof:${publisherUser}`;
/**
 * Set after a full rebuild; gone when Redis lost its data, which makes the next start rebuild. Named apart from the
 * global store's marker (`profmeta:built`), so that the first start after the upgrade fills the per-publisher keys.
 */
const BUILT_KEY = 'profmeta:built:per-publisher';
/** The global store's marker and keys, from before profiles were per publisher: never read, removed after a rebuild. */
const LEGACY_BUILT_KEY = 'profmeta:built';
const LEGACY_KEYS = 'prof:*';
/** Change notice topic: these (publisher, user) profiles were written; ids are publisherUserKey values. */
export const PROFILES_CHANGED = 'profiles';

interface Cached {
  facts: ProfileFacts | null;
  at: number;
}

export interface ProfileCacheOptions {
  /** Entries kept (0: no cache). */
  max: number;
  ttlMs: number;
}

/**
 * The MySQL + Redis profile's store: one string key per (publisher, user) under REDIS_PREFIX, shared by every process.
 *
 * Each API process keeps the profiles it read lately in memory (two generations of at most max/2 entries each,
 * an approximate LRU), so a returning user costs the ad request no Redis read. Writes publish the changed users
 * (one notice per chunk, through the change bus): the writing process forgets them at once, the others within
 * the pub/sub delivery (milliseconds), and all of them forget everything when their subscription was lost. An
 * entry is also dropped after ttlMs, a bound for the case a notice never arrives.
 */
export class RedisProfileStore implements ProfileStore {
  private current = new Map<string, Cached>();
  private previous = new Map<string, Cached>();
  /** Bumped by every forgotten user: a read that started before it may hold an old value and is not kept. */
  private generation = 0;

  constructor(
    private readonly redis: RedisClient,
    private readonly changes?: ChangeBus,
    private readonly cache: ProfileCacheOptions = { max: 0, ttlMs: 0 },
    /** The ad path's read waits for Redis at most this (REDIS_DEADLINE_MS); imports and other reads are not bounded. */
    private readonly deadline: RedisDeadline | null = null,
  ) {
    changes?.on(PROFILES_CHANGED, (userId) => this.forget(userId));
    changes?.onReconnect(() => this.forgetAll());
  }

  known(accountId: string, messengerUserId: string): ProfileFacts | null | undefined {
    if (this.cache.max === 0) return undefined;
    return this.lookup(publisherUserKey(accountId, messengerUserId), Date.now())?.facts;
  }

  async get(accountId: string, messengerUserId: string, redisSince?: number): Promise<ProfileFacts | null> {
    const known = this.known(accountId, messengerUserId);
    if (known !== undefined) return known;
    const key = publisherUserKey(accountId, messengerUserId);
    const now = Date.now();
    const generation = this.generation;
    const read = () => this.redis.get(profileKey(key));
    const text = await (this.deadline ? this.deadline.run(read, { since: redisSince }) : read());
    const facts = text === null ? null : decodeFacts(text);
    if (this.cache.max > 0 && generation === this.generation) this.keep(key, { facts, at: now });
    return facts;
  }

  async putMany(entries: PublisherProfileFacts[]): Promise<void> {
    if (entries.length === 0) return;
    const pairs: [string, string][] = [];
    const userIds: string[] = [];
    for (const { accountId, messengerUserId, facts } of entries) {
      const key = publisherUserKey(accountId, messengerUserId);
      pairs.push([profileKey(key), encodeFacts(facts)]);
      userIds.push(key);
    }
    if (this.redis.isCluster) {
      // MSET takes keys of one slot on a cluster: one per slot, all sent at once
      const prefix = this.redis.options.keyPrefix ?? '';
      await Promise.all(groupBySlot(pairs, ([key]) => prefix + key).map((group) => this.redis.mset(group.flat())));
    } else {
      await this.redis.mset(pairs.flat());
    }
    for (const userId of userIds) this.forget(userId);
    // Awaited: a batch is reported done only once every process has been told.
    await this.changes?.publishMany(PROFILES_CHANGED, userIds);
  }

  async isBuilt(): Promise<boolean> {
    return (await this.redis.exists(BUILT_KEY)) === 1;
  }

  async markBuilt(): Promise<void> {
    await this.redis.set(BUILT_KEY, '1');
    this.forgetAll();
    await this.dropLegacyKeys();
  }

  /** Once, on the first rebuild after the upgrade: SCAN in pages, so a big keyspace never blocks Redis. */
  private async dropLegacyKeys(): Promise<void> {
    if ((await this.redis.exists(LEGACY_BUILT_KEY)) === 0) return;
    // SCAN's pattern and answers carry REDIS_PREFIX; other commands add it themselves
    const prefix = this.redis.options.keyPrefix ?? '';
    const pattern = prefix.replace(/[*?[\]\\]/g, '\\$&') + LEGACY_KEYS;
    // on a cluster every master is scanned (its nodes' connections carry no prefix), and keys go one by one (slots)
    const nodes: Redis[] = this.redis instanceof Cluster ? this.redis.nodes('master') : [this.redis];
    for (const node of nodes) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        cursor = next;
        const names = keys.map((key) => key.slice(prefix.length));
        if (this.redis.isCluster) await Promise.all(names.map((name) => this.redis.unlink(name)));
        else if (names.length > 0) await this.redis.unlink(...names);
      } while (cursor !== '0');
    }
    await this.redis.del(LEGACY_BUILT_KEY);
  }

  private lookup(userId: string, now: number): Cached | undefined {
    let cached = this.current.get(userId);
    if (cached === undefined) {
      cached = this.previous.get(userId);
      if (cached === undefined) return undefined;
      this.previous.delete(userId);
      if (now - cached.at < this.cache.ttlMs) this.keep(userId, cached);
    }
    if (now - cached.at >= this.cache.ttlMs) {
      this.current.delete(userId);
      return undefined;
    }
    return cached;
  }

  private keep(userId: string, cached: Cached): void {
    if (this.current.size >= this.cache.max / 2) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(userId, cached);
  }

  private forget(userId: string): void {
    this.generation += 1;
    this.current.delete(userId);
    this.previous.delete(userId);
  }

  private forgetAll(): void {
    this.generation += 1;
    this.current = new Map();
    this.previous = new Map();
  }
}
