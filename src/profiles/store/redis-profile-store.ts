import type Redis from 'ioredis';
import { decodeFacts, encodeFacts, ProfileFacts, ProfileStore } from './profile-store';

export const profileKey = (messengerUserId: string) => `prof:${messengerUserId}`;
/** Set after a full rebuild; gone when Redis lost its data, which makes the next start rebuild. */
const BUILT_KEY = 'profmeta:built';

/** The MySQL + Redis profile's store: one string key per user under REDIS_PREFIX, shared by every process. */
export class RedisProfileStore implements ProfileStore {
  constructor(private readonly redis: Redis) {}

  async get(messengerUserId: string): Promise<ProfileFacts | null> {
    const text = await this.redis.get(profileKey(messengerUserId));
    return text === null ? null : decodeFacts(text);
  }

  async putMany(entries: [string, ProfileFacts][]): Promise<void> {
    if (entries.length === 0) return;
    const pairs: string[] = [];
    for (const [userId, facts] of entries) pairs.push(profileKey(userId), encodeFacts(facts));
    await this.redis.mset(pairs);
  }

  async isBuilt(): Promise<boolean> {
    return (await this.redis.exists(BUILT_KEY)) === 1;
  }

  async markBuilt(): Promise<void> {
    await this.redis.set(BUILT_KEY, '1');
  }
}
