import type { RedisClient } from '../../redis/redis.module';
import { replicated } from '../../redis/replica-wait';
import { pendingClickField } from './lease-fields';
import { DAY_COUNTER_TTL_S, HolderLostError, RedisLeaseHolder } from './redis-lease-holder';
import { defineScript, loadScript } from './scripts/load-script';
import { BoundClickStatus, ClickInvalidReason, ClickOutcome, ClickRequest, IMPRESSION_WINDOW_MS, stateKeys, ViewOutcome, ViewRequest } from './serving-state';
import type { CompletionOutcome, CompletionRequest } from './serving-state';

type ClickScript = RedisClient & {
  adnetClickUnbind(numKeys: number, ...args: (string | number)[]): Promise<number>;
};

const VIEW_OUTCOMES: Record<number, ViewOutcome> = { [-1]: 'noImpression', [-2]: 'duplicate', 0: 'counted', 1: 'invalid' };

/**
 * Clicks (and views) on the Redis serving state: a click is bound to its impression in the user's slot (one per
 * impression: click-bind.lua), then billed against the shared counters in the campaign's slot (click-bill.lua); a
 * binding whose billing failed is taken back, so a click is never bound unbilled by a failure nor billed twice. A
 * billed click's price waits under its holder's field in the campaign's leases hash until its row is committed. On
 * one Redis server the binding and the bill are one script call (click-bind-bill.lua), one round trip per click.
 */
export class RedisClickState {
  private readonly redis: ClickScript;
  /** Bind and bill in one script call (one Redis server), not two (a Redis Cluster). */
  private readonly oneCall: boolean;
  /** Billed clicks whose row is not committed yet: the click -> the holder and field in its campaign's leases hash. */
  private readonly pendingClicks = new Map<string, { holderId: string; field: string }>();

  constructor(
    redis: RedisClient,
    private readonly holder: RedisLeaseHolder,
  ) {
    defineScript(redis, 'adnetClickBind', 'click-bind');
    defineScript(redis, 'adnetClickBill', 'click-bill');
    // one server: the binding and the bill in one call (a cluster keeps the two, their keys lie in different slots)
    this.oneCall = !redis.isCluster;
    if (this.oneCall) defineScript(redis, 'adnetClickBindBill', 'click-bind-bill', { BIND: loadScript('click-bind'), BILL: loadScript('click-bill') });
    defineScript(redis, 'adnetClickUnbind', 'click-unbind');
    defineScript(redis, 'adnetView', 'view');
    defineScript(redis, 'adnetComplete', 'complete');
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
    const priced = request.priceMicros > 0 && request.billable !== false && !request.invalidRequest;
    // before the binding: a lost holder is found (and the click asked again) while nothing is bound yet
    if (priced) await this.holder.prepareToHold([request.campaignId], false);
    const holderId = this.holder.id;
    const clickedKey = stateKeys.clicked(request.userId, request.adBlockId, request.adId);
    const clickedByKey = stateKeys.clickedBy(request.userId, request.adBlockId, request.adId);
    const excludedKey = stateKeys.excludedAds(request.userId);
    const bindKeys = [stateKeys.servedAds(request.userId, request.adBlockId), clickedKey, excludedKey, clickedByKey];
    const bindValues = [
      request.now,
      IMPRESSION_WINDOW_MS,
      request.minDelayMs ?? 0,
      request.exclusionMs,
      request.adId,
      request.billable === false ? '0' : '1',
      request.invalidRequest ? '1' : '0',
      request.clickId ?? '',
    ];
    const billKeys = () => [
      stateKeys.spent(request.campaignId),
      stateKeys.daySpent(request.campaignId, request.day),
      stateKeys.campaignLeases(request.campaignId),
    ];
    const billArgs = (field: string) => [
      request.priceMicros,
      request.totalBudgetMicros,
      request.dailyBudgetMicros,
      request.knownSpentMicros,
      request.knownDaySpentMicros,
      DAY_COUNTER_TTL_S,
      field,
    ];
    let statusCode: number;
    let costMicros = 0;
    let spentOut = 0;
    const field = request.priceMicros > 0 ? pendingClickField(holderId, request, Date.now()) : '';
    if (this.oneCall) {
      let answer: [number, string, number, number];
      try {
        answer = await replicated<[number, string, number, number]>(
          this.redis,
          'adnetClickBindBill',
          7,
          ...bindKeys,
          ...billKeys(),
          ...bindValues,
          // a price of 0 (a free click) skips the bill part of the script
          ...billArgs(field),
        );
      } catch (error) {
        // bound and billed, or not, or not known: the binding goes, as after a failed bill (a price the call may have
        // left under its field is given back by the orphan sweep, its row never being written)
        await this.redis.adnetClickUnbind(3, clickedKey, excludedKey, clickedByKey, '', request.adId, request.clickId ?? '').catch(() => undefined);
        throw error;
      }
      if (answer[0] === -1) return { kind: 'noImpression' };
      if (answer[0] === -2) return { kind: 'duplicate' };
      [statusCode, , costMicros, spentOut] = answer;
    } else {
      const bound = await replicated<number | [number, string]>(this.redis, 'adnetClickBind', 4, ...bindKeys, ...bindValues);
      if (bound === -1) return { kind: 'noImpression' };
      if (bound === -2) return { kind: 'duplicate' };
      const [boundStatus, servedMark] = bound as [number, string];
      statusCode = boundStatus;
      if (statusCode === 0 && request.priceMicros > 0) {
        try {
          [costMicros, spentOut] = await replicated<[number, number]>(this.redis, 'adnetClickBill', 3, ...billKeys(), ...billArgs(field));
        } catch (error) {
          // not billed (or not known to be): the binding goes, so the impression can take its click when asked again
          await this.redis.adnetClickUnbind(3, clickedKey, excludedKey, clickedByKey, servedMark, request.adId).catch(() => undefined);
          throw error;
        }
      }
    }
    if (statusCode === 0 && request.priceMicros > 0) {
      if (costMicros > 0) {
        this.pendingClicks.set(clickKey(request), { holderId, field });
        this.holder.heartbeatStarted(holderId);
      } else {
        statusCode = 1;
      }
    }
    if (spentOut === 1) this.holder.dropLease(request.campaignId);
    const [status, invalidReason] = CLICK_STATUSES[statusCode];
    return { kind: 'counted', status, invalidReason, costMicros, budgetSpent: spentOut === 1 };
  }

  async registerView(request: ViewRequest): Promise<ViewOutcome> {
    const result = await replicated<number>(
      this.redis,
      'adnetView',
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

  async registerCompletion(request: CompletionRequest): Promise<CompletionOutcome> {
    const [code, servedAt] = await replicated<[number, string]>(
      this.redis,
      'adnetComplete',
      2,
      stateKeys.servedAds(request.userId, request.adBlockId),
      stateKeys.completed(request.userId, request.adBlockId, request.adId),
      request.now,
      IMPRESSION_WINDOW_MS,
      request.adId,
      request.invalidRequest ? '1' : '0',
      request.minViewMs,
    );
    if (code === -1) return { kind: 'noImpression' };
    if (code === -2) return { kind: 'duplicate' };
    if (code === -3) return { kind: 'tooSoon' };
    return { kind: code === 1 ? 'invalid' : 'counted', servedAt: Number(servedAt) };
  }

  /**
   * Takes back a view whose request was refused (answered after its Redis deadline, see RedisServingState): the
   * impression may take its view when the report is sent again.
   */
  async forgetView(request: ViewRequest): Promise<void> {
    await this.redis.del(stateKeys.viewed(request.userId, request.adBlockId, request.adId));
  }

  /**
   * The click's row is committed: its price leaves the campaign's leases hash (it is billed for good). A removal that fails
   * or never happens is harmless: before giving a click back, the reclaim and the orphan sweep ask the database
   * whether its row exists.
   */
  async clickCommitted(request: ClickRequest): Promise<void> {
    const key = clickKey(request);
    const pending = this.pendingClicks.get(key);
    if (pending === undefined) return;
    this.pendingClicks.delete(key);
    await this.redis.hdel(stateKeys.campaignLeases(request.campaignId), pending.field);
  }

  /**
   * The click's row may or may not be committed: its field stays in the hash, no longer shielded as being written, so
   * the orphan sweep settles it by the database's row (RedisLeaseHolder.giveBackOrphanClicks).
   */
  clickOutcomeUnknown(request: ClickRequest): void {
    this.pendingClicks.delete(clickKey(request));
  }

  async undoClick(request: ClickRequest, costMicros: number): Promise<void> {
    const key = clickKey(request);
    const pending = this.pendingClicks.get(key);
    this.pendingClicks.delete(key);
    if (costMicros > 0 && pending !== undefined) {
      // through the leases hash: nothing goes back twice if the holder was reclaimed meanwhile
      await this.holder.returnToCounters([
        { holderId: pending.holderId, campaignId: request.campaignId, day: request.day, micros: costMicros, field: pending.field },
      ]);
    }
    // one transaction per slot: the campaign's counters, the user's marks
    if (costMicros > 0 && pending === undefined) {
      await this.redis
        .multi()
        .decrby(stateKeys.spent(request.campaignId), costMicros)
        .decrby(stateKeys.daySpent(request.campaignId, request.day), costMicros)
        .exec();
    }
    const marks = this.redis
      .multi()
      .del(stateKeys.clicked(request.userId, request.adBlockId, request.adId), stateKeys.clickedBy(request.userId, request.adBlockId, request.adId));
    if (request.exclusionMs > 0) marks.hdel(stateKeys.excludedAds(request.userId), request.adId);
    await marks.exec();
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
