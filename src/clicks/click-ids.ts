import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { LruCache } from '../common/lru-cache';
import { REDIS, type RedisClient } from '../redis/redis.module';

/**
 * Click ids (docs/CONTRACT.md §20): the `{click_id}` of a served ad's destination URL, an opaque id of that impression
 * that its counted click keeps, so an advertiser's attribution tool can report a conversion by it. The first 9
 * characters are the serve time (base 36, so a lookup by id reads only the days after it), the rest 128 random bits:
 * ids cannot be guessed or enumerated.
 */
export const CLICK_ID_PATTERN = /^[0-9a-z]{9}[A-Za-z0-9_-]{22}$/;
/** How long an impression's click id waits for its click: the click binding window of the serving state (24 h). */
export const CLICK_ID_TTL_MS = 24 * 60 * 60 * 1000;
/** Impressions with click ids the embedded profile remembers (one process: an LRU of the newest). */
const MEMORY_CAPACITY = 200_000;

const MACROS = /\{(click_id|campaign_id|ad_block_id)\}/;

/** Whether a destination URL asks for any of the three macros (only then is a click id minted and remembered). */
export function hasDestinationMacros(url: string): boolean {
  return MACROS.test(url);
}

/** The URL with its macros filled (each value URL-encoded; ids are URL-safe anyway). */
export function fillDestinationMacros(url: string, values: { clickId: string | null; campaignId: string; adBlockId: string }): string {
  return url
    .replaceAll('{click_id}', encodeURIComponent(values.clickId ?? ''))
    .replaceAll('{campaign_id}', encodeURIComponent(values.campaignId))
    .replaceAll('{ad_block_id}', encodeURIComponent(values.adBlockId));
}

export function newClickId(now: number): string {
  return now.toString(36).padStart(9, '0') + randomBytes(16).toString('base64url');
}

/** When the click id was minted (its impression's serve time), or null for a string that is no click id. */
export function clickIdTime(clickId: string): number | null {
  if (!CLICK_ID_PATTERN.test(clickId)) return null;
  return parseInt(clickId.slice(0, 9), 36);
}

/**
 * The click ids of served impressions, by (block, user, ad), until their click takes them or 24 h pass: on the
 * production profile in the shared Redis (any process may take the click), on the embedded one in memory. A user
 * served the same ad again on the same block gets a new id, and a click then keeps the newest.
 */
@Injectable()
export class ClickIdStore {
  private readonly logger = new Logger(ClickIdStore.name);
  private readonly memory = new LruCache<string, { clickId: string; until: number }>(MEMORY_CAPACITY);

  constructor(@Inject(REDIS) private readonly redis: RedisClient | null) {}

  /** Not awaited by the ad request: a click comes seconds later, and a lost id only leaves that click without one. */
  remember(adBlockId: string, userId: string, adId: string, clickId: string, now: number): void {
    const key = keyOf(adBlockId, userId, adId);
    if (this.redis === null) {
      this.memory.set(key, { clickId, until: now + CLICK_ID_TTL_MS });
      return;
    }
    this.redis.set(key, clickId, 'PX', CLICK_ID_TTL_MS).catch((error: unknown) => this.logger.warn({ err: error }, 'click id not remembered'));
  }

  async find(adBlockId: string, userId: string, adId: string, now: number): Promise<string | null> {
    const key = keyOf(adBlockId, userId, adId);
    if (this.redis === null) {
      const entry = this.memory.get(key);
      return entry !== undefined && entry.until > now ? entry.clickId : null;
    }
    return this.redis.get(key);
  }
}

/** The user's hash tag, as the serving state's keys: a cluster keeps a user's keys on one shard. */
function keyOf(adBlockId: string, userId: string, adId: string): string {
  return `clickid:{u:${userId}}:${adBlockId}:${adId}`;
}
