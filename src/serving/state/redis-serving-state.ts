import type { BeforeApplicationShutdown } from '@nestjs/common';
import type Redis from 'ioredis';
import { Lease, LEASE_IDLE_MS, LEASE_SCRIPT, nextLeaseUnits, PERMISSION_TTL_MS } from './budget-leases';
import {
  ClickOutcome,
  ClickRequest,
  CLICK_DEDUP_MS,
  ImpressionCandidate,
  IMPRESSION_WINDOW_MS,
  ReserveRequest,
  ReserveResult,
  ServingState,
  stateKeys,
} from './serving-state';

const DAY_COUNTER_TTL_S = 3 * 24 * 60 * 60;
const SERVED_TTL_MS = IMPRESSION_WINDOW_MS + 60 * 60 * 1000;
const SWEEP_EVERY_MS = 1000;

// The serve script of one or several requests: KEYS excluded1, served1, excluded2, served2, ... (a hash per user,
// ad id -> until when it is excluded; a hash per user and block, ad id -> when it was served); ARGV servedTtl, then
// per request: now, limit, n, and its n candidates' ad ids in rank order. Serves each request's first `limit` ads
// not excluded for its user and answers their positions (0-based), a list per request.
const SERVE_MANY_SCRIPT = `
local ttl = tonumber(ARGV[1])
local a = 2
local answers = {}
for r = 1, #KEYS / 2 do
  local now = tonumber(ARGV[a])
  local limit = tonumber(ARGV[a + 1])
  local n = tonumber(ARGV[a + 2])
  local first = a + 3
  local excludedUntil = redis.call('HMGET', KEYS[2 * r - 1], unpack(ARGV, first, first + n - 1))
  local served = {}
  local marks = {}
  for i = 1, n do
    if #served >= limit then break end
    if not excludedUntil[i] or tonumber(excludedUntil[i]) <= now then
      served[#served + 1] = i - 1
      marks[#marks + 1] = ARGV[first + i - 1]
      marks[#marks + 1] = now
    end
  end
  if #served > 0 then
    redis.call('HSET', KEYS[2 * r], unpack(marks))
    redis.call('PEXPIRE', KEYS[2 * r], ttl)
  end
  answers[r] = served
  a = first + n
end
return answers
`;

// KEYS served (hash), clicked, excluded (hash), spent, daySpent.
// ARGV now, impressionWindow, dedupWindow, exclusionMs, price, total, daily, knownSpent, knownDaySpent, dayTtl, adId.
const CLICK_SCRIPT = `
local now = tonumber(ARGV[1])
local servedAt = redis.call('HGET', KEYS[1], ARGV[11])
if not servedAt or now - tonumber(servedAt) >= tonumber(ARGV[2]) then return -1 end
local clickedAt = redis.call('GET', KEYS[2])
if clickedAt and now - tonumber(clickedAt) < tonumber(ARGV[3]) then return -2 end
local cost = 0
local spentOut = 0
local price = tonumber(ARGV[5])
if price > 0 then
  local spent = redis.call('GET', KEYS[4])
  if not spent then
    spent = ARGV[8]
    redis.call('SET', KEYS[4], spent)
  end
  local daySpent = redis.call('GET', KEYS[5])
  if not daySpent then
    daySpent = ARGV[9]
    redis.call('SET', KEYS[5], daySpent, 'EX', tonumber(ARGV[10]))
  end
  if tonumber(spent) < tonumber(ARGV[6]) and tonumber(daySpent) < tonumber(ARGV[7]) then
    cost = price
    spent = redis.call('INCRBY', KEYS[4], price)
    daySpent = redis.call('INCRBY', KEYS[5], price)
  end
  if tonumber(spent) >= tonumber(ARGV[6]) or tonumber(daySpent) >= tonumber(ARGV[7]) then spentOut = 1 end
end
redis.call('SET', KEYS[2], now, 'PX', tonumber(ARGV[3]))
local exclusion = tonumber(ARGV[4])
if exclusion > 0 then
  redis.call('HSET', KEYS[3], ARGV[11], now + exclusion)
  redis.call('PEXPIRE', KEYS[3], exclusion)
end
return {cost, spentOut}
`;

// KEYS counters, ARGV the amounts to take off them: only counters that exist (see returnToCounters).
const GIVE_BACK_SCRIPT = `
for i = 1, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('DECRBY', KEYS[i], ARGV[i]) end
end
return #KEYS
`;

type ScriptedRedis = Redis & {
  adnetLease(numKeys: number, ...args: (string | number)[]): Promise<number[]>;
  adnetGiveBack(numKeys: number, ...args: (string | number)[]): Promise<number>;
  adnetServeMany(numKeys: number, ...args: (string | number)[]): Promise<number[][]>;
  adnetClick(numKeys: number, ...args: (string | number)[]): Promise<number | [number, number]>;
};

type LeaseOutcome = 'granted' | 'exhausted';

interface PendingServe {
  serve: { excludedKey: string; servedKey: string; now: number; limit: number; adIds: string[] };
  resolve: (positions: number[]) => void;
  reject: (error: unknown) => void;
}

/** How many times one reservation asks for leases again when other requests used up what it waited for. */
const MAX_LEASE_ROUNDS = 6;

/**
 * Serving state shared by every process through Redis. An ad request costs one Lua script (exclusions and the
 * served marks); its CPM billing comes from budget leases held in memory (see budget-leases.ts), so the shared
 * budget counters are touched once per lease, not once per impression. Clicks are one Lua script each.
 */
export class RedisServingState implements ServingState, BeforeApplicationShutdown {
  private readonly redis: ScriptedRedis;
  private readonly leases = new Map<string, Lease>();
  /** Lease requests under way per campaign: concurrent requests wait for the same one. */
  private readonly acquiring = new Map<string, Promise<Map<string, LeaseOutcome> | null>>();
  private pendingServes: PendingServe[] = [];
  private closing = false;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(redis: Redis) {
    redis.defineCommand('adnetLease', { lua: LEASE_SCRIPT });
    redis.defineCommand('adnetGiveBack', { lua: GIVE_BACK_SCRIPT });
    redis.defineCommand('adnetServeMany', { lua: SERVE_MANY_SCRIPT });
    redis.defineCommand('adnetClick', { lua: CLICK_SCRIPT });
    this.redis = redis as ScriptedRedis;
  }

  async reserveImpressions(request: ReserveRequest, candidates: ImpressionCandidate[]): Promise<ReserveResult> {
    const wallNow = Date.now();
    // Idle leases go back on a timer, also while this process serves nothing (taken out of a load balancer).
    if (this.sweeper === undefined && !this.closing) {
      this.sweeper = setInterval(() => this.returnIdleLeases(Date.now()), SWEEP_EVERY_MS);
      this.sweeper.unref();
    }

    // Bill every candidate from its lease tentatively (the script then picks those not excluded); candidates
    // without enough lease ask for one, all of them in one script call.
    const taken: boolean[] = new Array<boolean>(candidates.length);
    let lacking = false;
    for (let i = 0; i < candidates.length; i++) {
      taken[i] = this.take(candidates[i], request.day, wallNow);
      if (!taken[i]) lacking = true;
    }
    const exhausted = lacking ? await this.leaseLacking(candidates, taken, request.day, wallNow) : [];

    const offered: number[] = [];
    const adIds: string[] = [];
    for (let i = 0; i < candidates.length; i++) {
      if (!taken[i]) continue;
      offered.push(i);
      adIds.push(candidates[i].adId);
    }
    let chosen: number[] = [];
    try {
      if (offered.length > 0) {
        chosen = await this.serveBatched({
          excludedKey: stateKeys.excludedAds(request.userId),
          servedKey: stateKeys.servedAds(request.userId, request.adBlockId),
          now: request.now,
          limit: request.limit,
          adIds,
        });
      }
    } finally {
      // What was billed tentatively and not served goes back to its lease (all of it when the script failed).
      // `chosen` holds ascending positions in `offered`.
      let next = 0;
      for (let k = 0; k < offered.length; k++) {
        if (next < chosen.length && chosen[next] === k) next++;
        else this.giveBack(candidates[offered[k]], request.day);
      }
    }
    const served = new Array<number>(chosen.length);
    for (let k = 0; k < chosen.length; k++) served[k] = offered[chosen[k]];
    if (this.closing) await this.returnLeases([...this.leases.values()]);
    return { served, exhausted };
  }

  /**
   * Leases for the candidates `taken` lacks, asked for in rounds (others may use up what a round brought); marks
   * those billed in `taken` and answers the positions of those without budget left, ascending.
   */
  private async leaseLacking(candidates: ImpressionCandidate[], taken: boolean[], day: string, wallNow: number): Promise<number[]> {
    const exhausted = new Set<number>();
    try {
      for (let round = 0; round < MAX_LEASE_ROUNDS; round++) {
        const lacking: number[] = [];
        for (let i = 0; i < candidates.length; i++) {
          if (taken[i] || exhausted.has(i)) continue;
          if (this.take(candidates[i], day, wallNow)) taken[i] = true;
          else lacking.push(i);
        }
        if (lacking.length === 0) break;
        const outcome = await this.acquire(
          lacking.map((i) => candidates[i]),
          day,
        );
        lacking.forEach((i, k) => {
          if (outcome[k] === 'exhausted') exhausted.add(i);
        });
      }
    } catch (error) {
      candidates.forEach((candidate, i) => taken[i] && this.giveBack(candidate, day));
      throw error;
    }
    return [...exhausted].sort((a, b) => a - b);
  }

  /**
   * The serve script of every request handled in this turn of the event loop, in one call: one command for the
   * client to build and Redis to run instead of one per request (a tenth of the ad route's CPU went to the Redis
   * client). Each request still gets exactly its own answer; a failed call fails every request in it.
   */
  private serveBatched(serve: PendingServe['serve']): Promise<number[]> {
    return new Promise((resolve, reject) => {
      this.pendingServes.push({ serve, resolve, reject });
      if (this.pendingServes.length === 1) setImmediate(() => this.sendServes());
    });
  }

  private sendServes(): void {
    const batch = this.pendingServes;
    this.pendingServes = [];
    const keys: string[] = [];
    const args: (string | number)[] = [SERVED_TTL_MS];
    for (const { serve } of batch) {
      keys.push(serve.excludedKey, serve.servedKey);
      args.push(serve.now, serve.limit, serve.adIds.length, ...serve.adIds);
    }
    this.redis.adnetServeMany(keys.length, ...keys, ...args).then(
      (answers) => batch.forEach(({ resolve }, i) => resolve(answers[i])),
      (error: unknown) => batch.forEach(({ reject }) => reject(error)),
    );
  }

  /** Bills one unit price from the candidate's lease if it covers it. */
  private take(candidate: ImpressionCandidate, day: string, wallNow: number): boolean {
    const lease = this.leases.get(candidate.campaignId);
    if (!lease || !this.fits(lease, candidate, day)) return false;
    if (candidate.priceMicros === 0) {
      if (wallNow - lease.grantedAt >= PERMISSION_TTL_MS) return false;
    } else {
      if (lease.remainingMicros < candidate.priceMicros) return false;
      lease.remainingMicros -= candidate.priceMicros;
    }
    lease.lastUsedAt = wallNow;
    return true;
  }

  /**
   * Puts back a unit billed tentatively: into its lease, or, when that lease was returned, dropped or replaced
   * meanwhile (another day, price or budget; shutdown), straight onto the shared counters it was carved from.
   */
  private giveBack(candidate: ImpressionCandidate, day: string): void {
    if (candidate.priceMicros === 0) return;
    const lease = this.leases.get(candidate.campaignId);
    if (lease && this.fits(lease, candidate, day)) lease.remainingMicros += candidate.priceMicros;
    else void this.returnToCounters([{ campaignId: candidate.campaignId, day, micros: candidate.priceMicros }]);
  }

  /** A lease serves only the day, price and budgets it was granted for. */
  private fits(lease: Lease, candidate: ImpressionCandidate, day: string): boolean {
    return (
      lease.day === day &&
      lease.priceMicros === candidate.priceMicros &&
      lease.totalBudgetMicros === candidate.totalBudgetMicros &&
      lease.dailyBudgetMicros === candidate.dailyBudgetMicros
    );
  }

  /**
   * Asks for leases of these campaigns (one script call), or waits for the request already under way for them.
   * Answers per candidate whether budget was granted, none is left, or the request failed (neither).
   */
  private async acquire(candidates: ImpressionCandidate[], day: string): Promise<(LeaseOutcome | undefined)[]> {
    const waits = new Map<string, Promise<Map<string, LeaseOutcome> | null>>();
    const asking: ImpressionCandidate[] = [];
    for (const candidate of candidates) {
      const pending = this.acquiring.get(candidate.campaignId);
      if (pending) waits.set(candidate.campaignId, pending);
      else if (!asking.some((other) => other.campaignId === candidate.campaignId)) asking.push(candidate);
    }
    let failure: unknown;
    if (asking.length > 0) {
      const request = this.requestLeases(asking, day);
      const settled = request.catch((error: unknown) => {
        failure = error;
        return null;
      });
      for (const candidate of asking) {
        this.acquiring.set(candidate.campaignId, settled);
        waits.set(candidate.campaignId, settled);
      }
      void settled.finally(() => asking.forEach((candidate) => this.acquiring.delete(candidate.campaignId)));
    }
    const outcomes = new Map<string, LeaseOutcome | undefined>();
    for (const [campaignId, wait] of waits) outcomes.set(campaignId, (await wait)?.get(campaignId));
    if (failure !== undefined) throw failure;
    return candidates.map((candidate) => outcomes.get(candidate.campaignId));
  }

  private async requestLeases(candidates: ImpressionCandidate[], day: string): Promise<Map<string, LeaseOutcome>> {
    const outcomes = new Map<string, LeaseOutcome>();
    const wallNow = Date.now();
    const keys: string[] = [];
    const args: (string | number)[] = [DAY_COUNTER_TTL_S];
    const units: number[] = [];
    for (const candidate of candidates) {
      const previous = this.leases.get(candidate.campaignId);
      // A lease of another day, price or budget goes back before a new one is taken.
      if (previous && !this.fits(previous, candidate, day)) this.returnLeases([previous]);
      const wanted = this.closing ? 1 : nextLeaseUnits(previous && this.fits(previous, candidate, day) ? previous : undefined, wallNow);
      units.push(wanted);
      keys.push(stateKeys.spent(candidate.campaignId), stateKeys.daySpent(candidate.campaignId, day));
      args.push(
        candidate.priceMicros,
        candidate.totalBudgetMicros,
        candidate.dailyBudgetMicros,
        candidate.knownSpentMicros,
        candidate.knownDaySpentMicros,
        wanted,
      );
    }
    const granted = await this.redis.adnetLease(keys.length, ...keys, ...args);
    candidates.forEach((candidate, i) => {
      const grant = Number(granted[i]);
      if (grant <= 0) {
        // Units given back to the lease meanwhile go back to the counters with it, not lost with the lease.
        const current = this.leases.get(candidate.campaignId);
        if (current) void this.returnLeases([current]);
        outcomes.set(candidate.campaignId, 'exhausted');
        return;
      }
      const current = this.leases.get(candidate.campaignId);
      const carried = current && this.fits(current, candidate, day) && candidate.priceMicros > 0 ? current.remainingMicros : 0;
      this.leases.set(candidate.campaignId, {
        campaignId: candidate.campaignId,
        day,
        priceMicros: candidate.priceMicros,
        totalBudgetMicros: candidate.totalBudgetMicros,
        dailyBudgetMicros: candidate.dailyBudgetMicros,
        remainingMicros: candidate.priceMicros > 0 ? carried + grant : 0,
        grantedUnits: candidate.priceMicros > 0 ? grant / candidate.priceMicros : 0,
        grantedAt: wallNow,
        lastUsedAt: wallNow,
      });
      outcomes.set(candidate.campaignId, 'granted');
    });
    return outcomes;
  }

  /** Gives leases nobody billed from lately back to the shared counters; permissions simply lapse. */
  private returnIdleLeases(wallNow: number): void {
    const idle: Lease[] = [];
    for (const lease of this.leases.values()) {
      if (lease.priceMicros === 0 ? wallNow - lease.grantedAt >= PERMISSION_TTL_MS : wallNow - lease.lastUsedAt >= LEASE_IDLE_MS) idle.push(lease);
    }
    this.returnLeases(idle);
  }

  /** Drops the leases at once (nothing more is billed from them) and takes their rest off the shared counters. */
  private returnLeases(leases: Lease[]): Promise<void> {
    const returns: { campaignId: string; day: string; micros: number }[] = [];
    for (const lease of leases) {
      if (this.leases.get(lease.campaignId) === lease) this.leases.delete(lease.campaignId);
      if (lease.priceMicros === 0 || lease.remainingMicros <= 0) continue;
      returns.push({ campaignId: lease.campaignId, day: lease.day, micros: lease.remainingMicros });
      lease.remainingMicros = 0;
    }
    return this.returnToCounters(returns);
  }

  /**
   * Takes unused budget off the shared counters. Counters Redis no longer has are left alone: they are seeded again
   * from the database's spend, and a decrement would create them below zero (the whole budget spendable again).
   * A failed return strands that budget (under-delivery); it never overspends.
   */
  private returnToCounters(returns: { campaignId: string; day: string; micros: number }[]): Promise<void> {
    if (returns.length === 0) return Promise.resolve();
    const keys: string[] = [];
    const amounts: number[] = [];
    for (const { campaignId, day, micros } of returns) {
      keys.push(stateKeys.spent(campaignId), stateKeys.daySpent(campaignId, day));
      amounts.push(micros, micros);
    }
    return this.redis.adnetGiveBack(keys.length, ...keys, ...amounts).then(
      () => undefined,
      () => undefined,
    );
  }

  /**
   * Shutdown: the leases go back while Redis is still connected. The HTTP server still answers the requests in
   * flight (Nest closes it after this hook): from now on each reservation returns whatever it leaves in a lease,
   * grants that arrive late included.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    clearInterval(this.sweeper);
    await this.returnLeases([...this.leases.values()]);
  }

  async registerClick(request: ClickRequest): Promise<ClickOutcome> {
    const result = await this.redis.adnetClick(
      5,
      stateKeys.servedAds(request.userId, request.adBlockId),
      stateKeys.clicked(request.userId, request.adBlockId, request.adId),
      stateKeys.excludedAds(request.userId),
      stateKeys.spent(request.campaignId),
      stateKeys.daySpent(request.campaignId, request.day),
      request.now,
      IMPRESSION_WINDOW_MS,
      CLICK_DEDUP_MS,
      request.exclusionMs,
      request.priceMicros,
      request.totalBudgetMicros,
      request.dailyBudgetMicros,
      request.knownSpentMicros,
      request.knownDaySpentMicros,
      DAY_COUNTER_TTL_S,
      request.adId,
    );
    if (result === -1) return { kind: 'noImpression' };
    if (result === -2) return { kind: 'duplicate' };
    const [costMicros, spentOut] = result as [number, number];
    if (spentOut === 1) this.leases.delete(request.campaignId);
    return { kind: 'counted', costMicros, budgetSpent: spentOut === 1 };
  }

  async undoClick(request: ClickRequest, costMicros: number): Promise<void> {
    const pipeline = this.redis.multi();
    if (costMicros > 0) {
      pipeline.decrby(stateKeys.spent(request.campaignId), costMicros);
      pipeline.decrby(stateKeys.daySpent(request.campaignId, request.day), costMicros);
    }
    pipeline.del(stateKeys.clicked(request.userId, request.adBlockId, request.adId));
    if (request.exclusionMs > 0) pipeline.hdel(stateKeys.excludedAds(request.userId), request.adId);
    await pipeline.exec();
  }
}
