import type Redis from 'ioredis';
import { DAY_COUNTER_TTL_S, HolderLostError, pendingClickField, RedisLeaseHolder } from './redis-lease-holder';
import { defineScript } from './scripts/load-script';
import { BoundClickStatus, ClickInvalidReason, ClickOutcome, ClickRequest, IMPRESSION_WINDOW_MS, stateKeys, ViewOutcome, ViewRequest } from './serving-state';

type ClickScript = Redis & {
  adnetClick(numKeys: number, ...args: (string | number)[]): Promise<number | [number, number, number]>;
  adnetView(numKeys: number, ...args: (string | number)[]): Promise<number>;
};

const VIEW_OUTCOMES: Record<number, ViewOutcome> = { [-1]: 'noImpression', [-2]: 'duplicate', 0: 'counted', 1: 'invalid' };

/**
 * Clicks (and views) on the Redis serving state: one click script each (bound to its impression, one per impression, billed
 * against the shared counters). A billed click's price waits in the lease holder's hash until its row is committed.
 */
export class RedisClickState {
  private readonly redis: ClickScript;
  /** Billed clicks whose row is not committed yet: hash field -> the holder whose hash holds their price. */
  private readonly pendingClicks = new Map<string, { holderId: string; field: string }>();

  constructor(
    redis: Redis,
    private readonly holder: RedisLeaseHolder,
  ) {
    defineScript(redis, 'adnetClick', 'click');
    defineScript(redis, 'adnetView', 'view');
    this.redis = redis as ClickScript;
  }

  /** The holder hash fields of the billed clicks whose rows are being written. */
  fieldsBeingWritten(): Set<string> {
    return new Set([...this.pendingClicks.values()].map((pending) => pending.field));
  }

  async registerClick(request: ClickRequest): Promise<ClickOutcome> {
    try {
      return await this.registerClickAs(request);
    } catch (error) {
      // This holder was reclaimed unknown to this process: its leases are gone; once more under a new holder.
      if (error instanceof HolderLostError) return this.registerClickAs(request);
      throw error;
    }
  }

  private async registerClickAs(request: ClickRequest): Promise<ClickOutcome> {
    this.holder.ensureSweeper();
    const holderId = this.holder.id;
    const field = pendingClickField(request, Date.now());
    const result = await this.redis.adnetClick(
      8,
      stateKeys.servedAds(request.userId, request.adBlockId),
      stateKeys.clicked(request.userId, request.adBlockId, request.adId),
      stateKeys.excludedAds(request.userId),
      stateKeys.spent(request.campaignId),
      stateKeys.daySpent(request.campaignId, request.day),
      stateKeys.holderLeases(holderId),
      stateKeys.leaseHolder(holderId),
      stateKeys.leaseHolders(),
      request.now,
      IMPRESSION_WINDOW_MS,
      request.minDelayMs ?? 0,
      request.exclusionMs,
      request.priceMicros,
      request.totalBudgetMicros,
      request.dailyBudgetMicros,
      request.knownSpentMicros,
      request.knownDaySpentMicros,
      DAY_COUNTER_TTL_S,
      request.adId,
      field,
      holderId,
      this.holder.holderTtlMs,
      this.holder.expectsHeartbeat ? '1' : '0',
      request.billable === false ? '0' : '1',
      request.invalidRequest ? '1' : '0',
    );
    if (result === -3) {
      this.holder.lost(holderId);
      throw new HolderLostError();
    }
    if (result === -1) return { kind: 'noImpression' };
    if (result === -2) return { kind: 'duplicate' };
    const [costMicros, spentOut, statusCode] = result as [number, number, number];
    if (costMicros > 0) {
      this.pendingClicks.set(clickKey(request), { holderId, field });
      this.holder.heartbeatStarted(holderId);
    }
    if (spentOut === 1) this.holder.dropLease(request.campaignId);
    const [status, invalidReason] = CLICK_STATUSES[statusCode];
    return { kind: 'counted', status, invalidReason, costMicros, budgetSpent: spentOut === 1 };
  }

  async registerView(request: ViewRequest): Promise<ViewOutcome> {
    const result = await this.redis.adnetView(
      2,
      stateKeys.servedAds(request.userId, request.adBlockId),
      stateKeys.viewed(request.userId, request.adBlockId, request.adId),
      request.now,
      IMPRESSION_WINDOW_MS,
      request.adId,
      request.invalidRequest ? '1' : '0',
    );
    return VIEW_OUTCOMES[result];
  }

  /**
   * The click's row is committed: its price leaves the holder's hash (it is billed for good). A removal that fails
   * or never happens is harmless: before giving a click back, the reclaim and the orphan sweep ask the database
   * whether its row exists.
   */
  async clickCommitted(request: ClickRequest): Promise<void> {
    const key = clickKey(request);
    const pending = this.pendingClicks.get(key);
    if (pending === undefined) return;
    this.pendingClicks.delete(key);
    await this.redis.hdel(stateKeys.holderLeases(pending.holderId), pending.field);
  }

  async undoClick(request: ClickRequest, costMicros: number): Promise<void> {
    const key = clickKey(request);
    const pending = this.pendingClicks.get(key);
    this.pendingClicks.delete(key);
    if (costMicros > 0 && pending !== undefined) {
      // through the holder's hash: nothing goes back twice if the holder was reclaimed meanwhile
      await this.holder.returnToCounters([
        { holderId: pending.holderId, campaignId: request.campaignId, day: request.day, micros: costMicros, field: pending.field },
      ]);
    }
    const pipeline = this.redis.multi();
    if (costMicros > 0 && pending === undefined) {
      pipeline.decrby(stateKeys.spent(request.campaignId), costMicros);
      pipeline.decrby(stateKeys.daySpent(request.campaignId, request.day), costMicros);
    }
    pipeline.del(stateKeys.clicked(request.userId, request.adBlockId, request.adId));
    if (request.exclusionMs > 0) pipeline.hdel(stateKeys.excludedAds(request.userId), request.adId);
    await pipeline.exec();
  }
}
/** The click script's status codes. */
const CLICK_STATUSES: [BoundClickStatus, ClickInvalidReason | null][] = [
  ['counted', null],
  ['unbilled', null],
  ['invalid', 'request'],
  ['invalid', 'invalidImpression'],
  ['invalid', 'tooSoon'],
];

/** One click report, as the events service knows it. */
function clickKey(request: ClickRequest): string {
  return `${request.campaignId}|${request.adBlockId}|${request.adId}|${request.now}|${request.userId}`;
}
