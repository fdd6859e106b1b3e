import type { BeforeApplicationShutdown } from '@nestjs/common';
import type Redis from 'ioredis';
import { newId } from '../../common/ids';
import {
  GIVE_BACK_SCRIPT,
  HEARTBEAT_EVERY_MS,
  HOLDER_TRUST_MS,
  HOLDER_TTL_MS,
  Lease,
  leaseField,
  LEASE_IDLE_MS,
  LEASE_SCRIPT,
  nextLeaseUnits,
  PERMISSION_TTL_MS,
  RECLAIM_EVERY_MS,
  RECLAIM_SCRIPT,
} from './budget-leases';
import {
  BoundClickStatus,
  ClickInvalidReason,
  ClickOutcome,
  ClickRequest,
  ImpressionCandidate,
  IMPRESSION_WINDOW_MS,
  ReserveRequest,
  ReserveResult,
  ServingState,
  stateKeys,
  USER_CAP_WINDOW_MS,
} from './serving-state';

const DAY_COUNTER_TTL_S = 3 * 24 * 60 * 60;
const SERVED_TTL_MS = IMPRESSION_WINDOW_MS + 60 * 60 * 1000;
/** The served hash's field holding when ads were served to its (user, block) within the hour (never an ad id). */
const USER_LOG_FIELD = '#hour';
const SWEEP_EVERY_MS = HEARTBEAT_EVERY_MS;
/**
 * A billed click this process does not know (its script's answer was lost) is given back after this long: far
 * beyond the time between the script and the process learning of it.
 */
const ORPHAN_CLICK_MS = 60_000;
/**
 * Entries per return script: Redis runs one script at a time, and the idle leases of thousands of campaigns in one
 * script held up the ad requests' serve scripts for milliseconds.
 */
const SCRIPT_CHUNK = 256;
/** How long a give-back's token is kept: far longer than a reconnect takes. */
const GIVE_BACK_TOKEN_MS = 10 * 60 * 1000;

interface LeaseReturn {
  holderId: string;
  campaignId: string;
  day: string;
  micros: number;
  /** The holder's hash field, when not the campaign's lease (a pending click's). */
  field?: string;
}

// The serve script of one or several requests. KEYS the lease holder's heartbeat and leases (hash), then per
// request excluded, served and capped (a hash per user, ad id -> until when it is excluded; a hash per user and
// block, ad id -> when it was served, plus USER_LOG_FIELD -> when ads were served within the hour; a hash per user,
// ad id of a capped campaign -> when it was served within the cap's window). ARGV servedTtl, expectAlive ('1' when a
// candidate is billed from a lease: the holder's heartbeat must be there), then per request: now, limit, UTC day,
// the user's hourly cap (0: none), the frequency caps ('' or "i:impressions:windowMs" for each capped candidate,
// 1-based, joined by spaces), invalid ('1': general invalid traffic, its served marks end in `i`), n, its n
// candidates' ad ids in rank order and their n unit prices (0: not billed from a lease). Serves each request's first `limit` ads not excluded for its user nor capped, takes what they bill off
// the holder's outstanding leases in the same step (so a reclaim can only give back units nobody billed), and
// answers per request {positions (0-based), 1 when the user's hourly cap is reached}; -1 when the holder's heartbeat
// is gone (its leases may have been reclaimed). The lease field is the campaign id (the ad id without its `ad_`,
// see adIdOf) and the day. Impression logs are ms timestamps joined by spaces, oldest first, none out of window.
const SERVE_MANY_SCRIPT = `
if ARGV[2] == '1' and redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local function recent(log, since)
  local kept = {}
  if log then
    for t in string.gmatch(log, '%d+') do
      if tonumber(t) > since then kept[#kept + 1] = t end
    end
  end
  return kept
end
local ttl = tonumber(ARGV[1])
local a = 3
local answers = {}
local billed = {}
for r = 1, (#KEYS - 2) / 3 do
  local excludedKey = KEYS[3 * r]
  local servedKey = KEYS[3 * r + 1]
  local cappedKey = KEYS[3 * r + 2]
  local now = tonumber(ARGV[a])
  local nowText = ARGV[a]
  local limit = tonumber(ARGV[a + 1])
  local day = ARGV[a + 2]
  local userCap = tonumber(ARGV[a + 3])
  local caps = {}
  for i, impressions, window in string.gmatch(ARGV[a + 4], '(%d+):(%d+):(%d+)') do
    caps[tonumber(i)] = {tonumber(impressions), tonumber(window)}
  end
  local mark = ARGV[a + 5] == '1' and (nowText .. 'i') or nowText
  local n = tonumber(ARGV[a + 6])
  local first = a + 7
  local userLog = nil
  if userCap > 0 then userLog = recent(redis.call('HGET', servedKey, '${USER_LOG_FIELD}'), now - ${USER_CAP_WINDOW_MS}) end
  local excludedUntil = redis.call('HMGET', excludedKey, unpack(ARGV, first, first + n - 1))
  local served = {}
  local marks = {}
  for i = 1, n do
    if #served >= limit or (userLog and #userLog >= userCap) then break end
    if not excludedUntil[i] or tonumber(excludedUntil[i]) <= now then
      local adId = ARGV[first + i - 1]
      local cap = caps[i]
      local capLog = nil
      if cap then capLog = recent(redis.call('HGET', cappedKey, adId), now - cap[2]) end
      if not capLog or #capLog < cap[1] then
        served[#served + 1] = i - 1
        marks[#marks + 1] = adId
        marks[#marks + 1] = mark
        if capLog then
          capLog[#capLog + 1] = nowText
          redis.call('HSET', cappedKey, adId, table.concat(capLog, ' '))
          if redis.call('PTTL', cappedKey) < cap[2] then redis.call('PEXPIRE', cappedKey, cap[2]) end
        end
        if userLog then userLog[#userLog + 1] = nowText end
        local price = tonumber(ARGV[first + n + i - 1])
        if price > 0 then
          local field = string.sub(adId, 4) .. '|' .. day
          billed[field] = (billed[field] or 0) + price
        end
      end
    end
  end
  if #served > 0 then
    if userLog then
      marks[#marks + 1] = '${USER_LOG_FIELD}'
      marks[#marks + 1] = table.concat(userLog, ' ')
    end
    redis.call('HSET', servedKey, unpack(marks))
    redis.call('PEXPIRE', servedKey, ttl)
  end
  local userCapped = 0
  if userLog and #userLog >= userCap then userCapped = 1 end
  answers[r] = {served, userCapped}
  a = first + 2 * n
end
for field, micros in pairs(billed) do
  if redis.call('HINCRBY', KEYS[2], field, -micros) <= 0 then redis.call('HDEL', KEYS[2], field) end
end
return answers
`;

// KEYS served (hash), clicked, excluded (hash), spent, daySpent, holder's leases (hash), holder's heartbeat, holders.
// ARGV now, impressionWindow, minDelayMs, exclusionMs, price, total, daily, knownSpent, knownDaySpent, dayTtl, adId,
// pending field (campaign|day|click), holderId, holderTtlMs, expectAlive, billable ('1'), invalidRequest ('1').
// The clicked key holds when the impression it used up was served (its served mark, without the invalid `i`), so
// an impression takes one click in its whole life and a new serve one of its own. Answers {cost, spentOut, status}
// with status 0 counted, 1 unbilled, 2 invalid request, 3 invalid impression, 4 too soon after the impression.
// A billed click stays in the holder's hash until its row is committed (see clickCommitted): a process killed in
// between leaves it there, and the reclaim of its holder gives the price back to the counters.
const CLICK_SCRIPT = `
if ARGV[15] == '1' and redis.call('EXISTS', KEYS[7]) == 0 then return -3 end
local now = tonumber(ARGV[1])
local mark = redis.call('HGET', KEYS[1], ARGV[11])
if not mark then return -1 end
local servedText = string.match(mark, '^%d+')
local servedAt = tonumber(servedText)
local window = tonumber(ARGV[2])
if now - servedAt >= window then return -1 end
if redis.call('GET', KEYS[2]) == servedText then return -2 end
local status = 0
if ARGV[17] == '1' then
  status = 2
elseif string.sub(mark, -1) == 'i' then
  status = 3
elseif now - servedAt < tonumber(ARGV[3]) then
  status = 4
elseif ARGV[16] ~= '1' then
  status = 1
end
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
  if status == 0 then
    if tonumber(spent) < tonumber(ARGV[6]) and tonumber(daySpent) < tonumber(ARGV[7]) then
      cost = price
      spent = redis.call('INCRBY', KEYS[4], price)
      daySpent = redis.call('INCRBY', KEYS[5], price)
    else
      status = 1
    end
  end
  if tonumber(spent) >= tonumber(ARGV[6]) or tonumber(daySpent) >= tonumber(ARGV[7]) then spentOut = 1 end
end
redis.call('SET', KEYS[2], servedText, 'PX', math.max(1, servedAt + window - now))
local exclusion = tonumber(ARGV[4])
if exclusion > 0 then
  redis.call('HSET', KEYS[3], ARGV[11], now + exclusion)
  redis.call('PEXPIRE', KEYS[3], exclusion)
end
if cost > 0 then
  redis.call('HINCRBY', KEYS[6], ARGV[12], cost)
  redis.call('SET', KEYS[7], '1', 'PX', tonumber(ARGV[14]))
  redis.call('SADD', KEYS[8], ARGV[13])
end
return {cost, spentOut, status}
`;

type ScriptedRedis = Redis & {
  adnetLease(numKeys: number, ...args: (string | number)[]): Promise<number[]>;
  adnetGiveBack(numKeys: number, ...args: (string | number)[]): Promise<number>;
  adnetReclaim(numKeys: number, ...args: (string | number)[]): Promise<number>;
  adnetServeMany(numKeys: number, ...args: (string | number)[]): Promise<[number[], number][] | -1>;
  adnetClick(numKeys: number, ...args: (string | number)[]): Promise<number | [number, number, number]>;
};

type LeaseOutcome = 'granted' | 'exhausted';

/** The serve script's answer to one request: positions served, and whether the user's hourly cap is reached. */
interface ServeAnswer {
  chosen: number[];
  userCapped: boolean;
}

interface PendingServe {
  serve: {
    excludedKey: string;
    servedKey: string;
    cappedKey: string;
    now: number;
    day: string;
    limit: number;
    userCap: number;
    /** '' or "i:impressions:windowMs" per capped candidate (1-based), see SERVE_MANY_SCRIPT */
    caps: string;
    invalid: boolean;
    adIds: string[];
    leases: (Lease | null)[];
  };
  resolve: (answer: ServeAnswer) => void;
  reject: (error: unknown) => void;
}

/** The lease holder this process was lost (its heartbeat lapsed and its leases may be reclaimed): ask again. */
class HolderLostError extends Error {
  constructor() {
    super('lease holder lost');
  }
}

export interface RedisServingStateOptions {
  holderTtlMs?: number;
  holderTrustMs?: number;
  /**
   * Which of these click ids have their row committed (the database). Without it, a lapsed holder's billed clicks
   * are all given back, also one committed just before its process died.
   */
  committedClicks?: (clickIds: string[]) => Promise<Set<string>>;
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
  /** Billed clicks whose row is not committed yet: hash field -> the holder whose hash holds their price. */
  private readonly pendingClicks = new Map<string, { holderId: string; field: string }>();
  private closing = false;
  private sweeper: NodeJS.Timeout | undefined;
  private lastReclaimAt = 0;
  /** This process's identity as a lease holder; a new one after the old one was (or may have been) reclaimed. */
  private holderId = newId();
  /** Billed leases were granted to this holder: its heartbeat must be kept, and checked by the scripts. */
  private holding = false;
  /** When Redis last confirmed this holder's heartbeat (a grant or a refresh). */
  private heartbeatOkAt = 0;
  private readonly holderTtlMs: number;
  private readonly holderTrustMs: number;
  private readonly committedClicks: RedisServingStateOptions['committedClicks'];

  constructor(redis: Redis, options: RedisServingStateOptions = {}) {
    redis.defineCommand('adnetLease', { lua: LEASE_SCRIPT });
    redis.defineCommand('adnetGiveBack', { lua: GIVE_BACK_SCRIPT });
    redis.defineCommand('adnetReclaim', { lua: RECLAIM_SCRIPT });
    redis.defineCommand('adnetServeMany', { lua: SERVE_MANY_SCRIPT });
    redis.defineCommand('adnetClick', { lua: CLICK_SCRIPT });
    this.redis = redis as ScriptedRedis;
    this.holderTtlMs = options.holderTtlMs ?? HOLDER_TTL_MS;
    this.holderTrustMs = options.holderTrustMs ?? HOLDER_TRUST_MS;
    this.committedClicks = options.committedClicks;
  }

  async reserveImpressions(request: ReserveRequest, candidates: ImpressionCandidate[]): Promise<ReserveResult> {
    this.ensureSweeper();
    try {
      return await this.reserve(request, candidates);
    } catch (error) {
      // The holder was lost between taking units and serving them: once more, with fresh leases.
      if (error instanceof HolderLostError) return this.reserve(request, candidates);
      throw error;
    }
  }

  private async reserve(request: ReserveRequest, candidates: ImpressionCandidate[]): Promise<ReserveResult> {
    const wallNow = Date.now();
    // Leases are billed from only while the heartbeat is known to be alive: past that, another process may
    // reclaim them at any time.
    if (this.holding && wallNow - this.heartbeatOkAt >= this.holderTrustMs) this.renewHolder();

    // Bill every candidate from its lease tentatively (the script then picks those not excluded); candidates
    // without enough lease ask for one, all of them in one script call. Invalid traffic bills nothing: it only
    // looks whether a lease covers a unit (budget is left), and takes none.
    const lookOnly = request.invalid === true;
    const taken: (Lease | null)[] = new Array<Lease | null>(candidates.length).fill(null);
    let lacking = false;
    for (let i = 0; i < candidates.length; i++) {
      taken[i] = this.take(candidates[i], request.day, wallNow, lookOnly);
      if (taken[i] === null) lacking = true;
    }
    const exhausted = lacking ? await this.leaseLacking(candidates, taken, request.day, wallNow, lookOnly) : [];

    const offered: number[] = [];
    const adIds: string[] = [];
    const leases: (Lease | null)[] = [];
    let caps = '';
    for (let i = 0; i < candidates.length; i++) {
      const lease = taken[i];
      if (lease === null) continue;
      offered.push(i);
      adIds.push(candidates[i].adId);
      leases.push(lease.priceMicros > 0 && !lookOnly ? lease : null);
      const cap = candidates[i].frequencyCap;
      if (cap) caps += `${caps === '' ? '' : ' '}${offered.length}:${cap.impressions}:${cap.windowMs}`;
    }
    let chosen: number[] = [];
    let userCapped = false;
    try {
      if (offered.length > 0) {
        ({ chosen, userCapped } = await this.serveBatched({
          excludedKey: stateKeys.excludedAds(request.userId),
          servedKey: stateKeys.servedAds(request.userId, request.adBlockId),
          cappedKey: stateKeys.cappedImpressions(request.userId),
          now: request.now,
          day: request.day,
          limit: request.limit,
          userCap: request.userImpressionsPerHour ?? 0,
          caps,
          invalid: request.invalid === true,
          adIds,
          leases,
        }));
      }
    } finally {
      // What was billed tentatively and not served goes back (all of it when the script failed). `chosen` holds
      // ascending positions in `offered`.
      let next = 0;
      for (let k = 0; k < offered.length && !lookOnly; k++) {
        if (next < chosen.length && chosen[next] === k) next++;
        else this.giveBack(taken[offered[k]]!, candidates[offered[k]].priceMicros);
      }
    }
    const served = new Array<number>(chosen.length);
    for (let k = 0; k < chosen.length; k++) served[k] = offered[chosen[k]];
    if (this.closing) await this.returnLeases([...this.leases.values()]);
    return { served, exhausted, userCapped };
  }

  /**
   * Leases for the candidates `taken` lacks, asked for in rounds (others may use up what a round brought); fills
   * in `taken` the leases billed and answers the positions of those without budget left, ascending.
   */
  private async leaseLacking(candidates: ImpressionCandidate[], taken: (Lease | null)[], day: string, wallNow: number, lookOnly: boolean): Promise<number[]> {
    const exhausted = new Set<number>();
    try {
      for (let round = 0; round < MAX_LEASE_ROUNDS; round++) {
        const lacking: number[] = [];
        for (let i = 0; i < candidates.length; i++) {
          if (taken[i] !== null || exhausted.has(i)) continue;
          taken[i] = this.take(candidates[i], day, wallNow, lookOnly);
          if (taken[i] === null) lacking.push(i);
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
      taken.forEach((lease, i) => {
        if (lease !== null && !lookOnly) this.giveBack(lease, candidates[i].priceMicros);
        taken[i] = null;
      });
      throw error;
    }
    return [...exhausted].sort((a, b) => a - b);
  }

  /**
   * The serve script of every request handled in this turn of the event loop, in one call: one command for the
   * client to build and Redis to run instead of one per request (a tenth of the ad route's CPU went to the Redis
   * client). Each request still gets exactly its own answer; a failed call fails every request in it.
   */
  private serveBatched(serve: PendingServe['serve']): Promise<ServeAnswer> {
    return new Promise((resolve, reject) => {
      this.pendingServes.push({ serve, resolve, reject });
      if (this.pendingServes.length === 1) setImmediate(() => this.sendServes());
    });
  }

  private sendServes(): void {
    const holderId = this.holderId;
    const batch: PendingServe[] = [];
    for (const pending of this.pendingServes) {
      // billed from leases of a holder given up meanwhile: those requests ask again under the new one
      if (pending.serve.leases.every((lease) => lease === null || lease.holderId === holderId)) batch.push(pending);
      else pending.reject(new HolderLostError());
    }
    this.pendingServes = [];
    if (batch.length === 0) return;
    const keys: string[] = [stateKeys.leaseHolder(holderId), stateKeys.holderLeases(holderId)];
    const args: (string | number)[] = [SERVED_TTL_MS, '0'];
    for (const { serve } of batch) {
      keys.push(serve.excludedKey, serve.servedKey, serve.cappedKey);
      args.push(serve.now, serve.limit, serve.day, serve.userCap, serve.caps, serve.invalid ? '1' : '0', serve.adIds.length, ...serve.adIds);
      for (const lease of serve.leases) {
        if (lease === null) {
          args.push(0);
        } else {
          args.push(lease.priceMicros);
          args[1] = '1';
        }
      }
    }
    this.redis.adnetServeMany(keys.length, ...keys, ...args).then(
      (answers) => {
        if (answers === -1) {
          if (this.holderId === holderId) this.renewHolder();
          batch.forEach(({ reject }) => reject(new HolderLostError()));
          return;
        }
        batch.forEach(({ resolve }, i) => resolve({ chosen: answers[i][0], userCapped: answers[i][1] === 1 }));
      },
      (error: unknown) => batch.forEach(({ reject }) => reject(error)),
    );
  }

  /**
   * Bills one unit price from the candidate's lease if it covers it; answers that lease. `lookOnly`: only whether it
   * covers one (invalid traffic, never billed), the lease left as it is.
   */
  private take(candidate: ImpressionCandidate, day: string, wallNow: number, lookOnly = false): Lease | null {
    const lease = this.leases.get(candidate.campaignId);
    if (!lease || !this.fits(lease, candidate, day)) return null;
    if (candidate.priceMicros === 0) {
      if (wallNow - lease.grantedAt >= PERMISSION_TTL_MS) return null;
    } else {
      if (lease.remainingMicros < candidate.priceMicros) return null;
      if (lookOnly) return lease;
      lease.remainingMicros -= candidate.priceMicros;
    }
    if (!lookOnly) lease.lastUsedAt = wallNow;
    return lease;
  }

  /**
   * Puts back a unit billed tentatively: into its lease while this process still holds it, or else (returned,
   * replaced, given up) straight onto the shared counters it was carved from, through its holder's hash.
   */
  private giveBack(lease: Lease, priceMicros: number): void {
    if (priceMicros === 0) return;
    if (this.leases.get(lease.campaignId) === lease) lease.remainingMicros += priceMicros;
    else void this.returnToCounters([{ holderId: lease.holderId, campaignId: lease.campaignId, day: lease.day, micros: priceMicros }]);
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

  private async requestLeases(candidates: ImpressionCandidate[], day: string, lostBefore = false): Promise<Map<string, LeaseOutcome>> {
    const outcomes = new Map<string, LeaseOutcome>();
    const wallNow = Date.now();
    const holderId = this.holderId;
    const keys: string[] = [stateKeys.holderLeases(holderId), stateKeys.leaseHolder(holderId), stateKeys.leaseHolders()];
    const args: (string | number)[] = [DAY_COUNTER_TTL_S, holderId, this.holderTtlMs, this.holding ? '1' : '0'];
    for (const candidate of candidates) {
      const previous = this.leases.get(candidate.campaignId);
      // A lease of another day, price or budget goes back before a new one is taken.
      if (previous && !this.fits(previous, candidate, day)) void this.returnLeases([previous]);
      const wanted = this.closing ? 1 : nextLeaseUnits(previous && this.fits(previous, candidate, day) ? previous : undefined, wallNow);
      keys.push(stateKeys.spent(candidate.campaignId), stateKeys.daySpent(candidate.campaignId, day));
      args.push(
        candidate.priceMicros,
        candidate.totalBudgetMicros,
        candidate.dailyBudgetMicros,
        candidate.knownSpentMicros,
        candidate.knownDaySpentMicros,
        wanted,
        leaseField(candidate.campaignId, day),
      );
    }
    const [status, ...granted] = await this.redis.adnetLease(keys.length, ...keys, ...args);
    if (status === -1 || holderId !== this.holderId) {
      // Lost before the call (nothing was granted), or given up during it (what was granted is the old holder's,
      // reclaimed once its heartbeat lapses): ask once more as a new holder.
      if (this.holderId === holderId) this.renewHolder();
      if (lostBefore) throw new HolderLostError();
      return this.requestLeases(candidates, day, true);
    }
    if (granted.some((grant, i) => Number(grant) > 0 && candidates[i].priceMicros > 0)) {
      this.holding = true;
      this.heartbeatOkAt = wallNow;
    }
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
      let carried = 0;
      if (current && this.fits(current, candidate, day) && candidate.priceMicros > 0 && current.holderId === holderId) {
        carried = current.remainingMicros;
        current.remainingMicros = 0;
      }
      this.leases.set(candidate.campaignId, {
        holderId,
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

  /**
   * Gives up this process's holder identity: its leases are dropped unreturned (another process reclaims them
   * once the old heartbeat lapses) and later grants go to a new holder.
   */
  private renewHolder(): void {
    this.holderId = newId();
    this.holding = false;
    this.leases.clear();
  }

  /** Every second: idle leases go back, the heartbeat is refreshed, and now and then lapsed holders are reclaimed. */
  private sweep(wallNow: number): void {
    this.returnIdleLeases(wallNow);
    if (this.holding) {
      const holderId = this.holderId;
      this.redis.pexpire(stateKeys.leaseHolder(holderId), this.holderTtlMs).then(
        (alive) => {
          if (holderId !== this.holderId) return;
          if (alive === 1) this.heartbeatOkAt = Math.max(this.heartbeatOkAt, wallNow);
          else this.renewHolder();
        },
        () => undefined, // Redis unreachable: the leases stop being billed from once the trust window has passed
      );
    }
    if (wallNow - this.lastReclaimAt >= RECLAIM_EVERY_MS) {
      this.lastReclaimAt = wallNow;
      this.reclaimLapsedHolders().catch(() => undefined);
      if (this.holding) this.giveBackOrphanClicks(wallNow).catch(() => undefined);
    }
  }

  /**
   * Gives back to the counters what processes that stopped without returning their leases (killed, cut off for
   * longer than the heartbeat's life) still held. Safe in any number of processes at once; answers the
   * micro-USDT given back.
   */
  async reclaimLapsedHolders(): Promise<number> {
    await this.keepCommittedClicksOfLapsedHolders();
    return Number(await this.redis.adnetReclaim(1, stateKeys.leaseHolders(), this.redis.options.keyPrefix ?? ''));
  }

  /**
   * Before a reclaim: the billed clicks in lapsed holders' hashes whose row was committed (the process died
   * between its commit and taking them off) leave the hash, so only the uncommitted ones are given back. When the
   * database cannot tell, nothing is reclaimed this time (throws).
   */
  private async keepCommittedClicksOfLapsedHolders(): Promise<void> {
    const fields: { holderId: string; field: string }[] = [];
    for (const holderId of await this.redis.smembers(stateKeys.leaseHolders())) {
      if ((await this.redis.exists(stateKeys.leaseHolder(holderId))) === 1) continue;
      for (const field of await this.redis.hkeys(stateKeys.holderLeases(holderId))) fields.push({ holderId, field });
    }
    await this.keepCommittedClicks(fields);
  }

  /**
   * Of these holder hash fields, the billed clicks whose row was committed leave the hash (they are billed for
   * good); answers the fields left. Throws when the database cannot tell, so nothing is given back blind.
   */
  private async keepCommittedClicks<T extends { holderId: string; field: string }>(fields: T[]): Promise<T[]> {
    const clicks = fields.filter(({ field }) => clickIdOf(field) !== null);
    if (!this.committedClicks || clicks.length === 0) return fields;
    const committed = await this.committedClicks(clicks.map(({ field }) => clickIdOf(field)!));
    const kept = new Set<T>();
    for (const click of clicks) {
      if (!committed.has(clickIdOf(click.field)!)) continue;
      await this.redis.hdel(stateKeys.holderLeases(click.holderId), click.field);
      kept.add(click);
    }
    return fields.filter((field) => !kept.has(field));
  }

  /** Gives leases nobody billed from lately back to the shared counters; permissions simply lapse. */
  private returnIdleLeases(wallNow: number): void {
    const idle: Lease[] = [];
    for (const lease of this.leases.values()) {
      if (lease.priceMicros === 0 ? wallNow - lease.grantedAt >= PERMISSION_TTL_MS : wallNow - lease.lastUsedAt >= LEASE_IDLE_MS) idle.push(lease);
    }
    void this.returnLeases(idle);
  }

  /** Drops the leases at once (nothing more is billed from them) and takes their rest off the shared counters. */
  private returnLeases(leases: Lease[]): Promise<void> {
    const returns: LeaseReturn[] = [];
    for (const lease of leases) {
      if (this.leases.get(lease.campaignId) === lease) this.leases.delete(lease.campaignId);
      if (lease.priceMicros === 0 || lease.remainingMicros <= 0) continue;
      returns.push({ holderId: lease.holderId, campaignId: lease.campaignId, day: lease.day, micros: lease.remainingMicros });
      lease.remainingMicros = 0;
    }
    return this.returnToCounters(returns);
  }

  /**
   * Takes unused budget off the shared counters, and off the holder's outstanding leases (see GIVE_BACK_SCRIPT).
   * A failed return leaves it in the hash: reclaimed with the holder once its heartbeat lapses.
   */
  private async returnToCounters(returns: LeaseReturn[]): Promise<void> {
    // one chunk after the other, so the serve scripts of the ad requests meanwhile run in between
    for (let from = 0; from < returns.length; from += SCRIPT_CHUNK) {
      const keys: string[] = [stateKeys.giveBackToken(newId())];
      const args: (string | number)[] = [GIVE_BACK_TOKEN_MS];
      for (const { holderId, campaignId, day, micros, field } of returns.slice(from, from + SCRIPT_CHUNK)) {
        keys.push(stateKeys.holderLeases(holderId), stateKeys.spent(campaignId), stateKeys.daySpent(campaignId, day));
        args.push(field ?? leaseField(campaignId, day), micros);
      }
      await this.redis.adnetGiveBack(keys.length, ...keys, ...args).catch(() => undefined);
    }
  }

  /**
   * Shutdown: the leases go back while Redis is still connected. The HTTP server still answers the requests in
   * flight (Nest closes it after this hook): from now on each reservation returns whatever it leaves in a lease,
   * grants that arrive late included. What is still out when the process exits is reclaimed with its holder.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    clearInterval(this.sweeper);
    await this.returnLeases([...this.leases.values()]);
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

  /**
   * Idle leases go back, the heartbeat is kept and lapsed holders are reclaimed on a timer, also while this process
   * serves nothing (taken out of a load balancer).
   */
  private ensureSweeper(): void {
    if (this.sweeper === undefined && !this.closing) {
      this.sweeper = setInterval(() => this.sweep(Date.now()), SWEEP_EVERY_MS);
      this.sweeper.unref();
    }
  }

  private async registerClickAs(request: ClickRequest): Promise<ClickOutcome> {
    this.ensureSweeper();
    const holderId = this.holderId;
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
      this.holderTtlMs,
      this.holding ? '1' : '0',
      request.billable === false ? '0' : '1',
      request.invalidRequest ? '1' : '0',
    );
    if (result === -3) {
      if (this.holderId === holderId) this.renewHolder();
      throw new HolderLostError();
    }
    if (result === -1) return { kind: 'noImpression' };
    if (result === -2) return { kind: 'duplicate' };
    const [costMicros, spentOut, statusCode] = result as [number, number, number];
    if (costMicros > 0) {
      this.pendingClicks.set(clickKey(request), { holderId, field });
      if (this.holderId === holderId) {
        // the script (re)started this holder's heartbeat: the sweep keeps it from now on
        this.holding = true;
        this.heartbeatOkAt = Math.max(this.heartbeatOkAt, Date.now());
      }
    }
    if (spentOut === 1) this.leases.delete(request.campaignId);
    const [status, invalidReason] = CLICK_STATUSES[statusCode];
    return { kind: 'counted', status, invalidReason, costMicros, budgetSpent: spentOut === 1 };
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
      await this.returnToCounters([{ holderId: pending.holderId, campaignId: request.campaignId, day: request.day, micros: costMicros, field: pending.field }]);
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

  /**
   * Billed clicks in this holder's hash that this process is not writing: the click script ran but its answer was
   * lost (Redis restarted, the connection dropped; the client may even have sent it again and been told
   * "duplicate"), or the row was committed and taking it off the hash failed. After ORPHAN_CLICK_MS those with a
   * committed row leave the hash and the others' price goes back to the counters. Answers the micro-USDT given back.
   */
  async giveBackOrphanClicks(wallNow: number): Promise<number> {
    const holderId = this.holderId;
    const writing = new Set([...this.pendingClicks.values()].map((pending) => pending.field));
    const old: { holderId: string; field: string; micros: number }[] = [];
    for (const [field, micros] of Object.entries(await this.redis.hgetall(stateKeys.holderLeases(holderId)))) {
      const billedAt = billedAtOf(field);
      if (billedAt !== null && !writing.has(field) && wallNow - billedAt >= ORPHAN_CLICK_MS) old.push({ holderId, field, micros: Number(micros) });
    }
    const orphans: LeaseReturn[] = (await this.keepCommittedClicks(old)).map(({ field, micros }) => {
      const [campaignId, day] = field.split('|', 2);
      return { holderId, campaignId, day, micros, field };
    });
    await this.returnToCounters(orphans);
    return orphans.reduce((sum, orphan) => sum + orphan.micros, 0);
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

/**
 * The holder's hash field of a billed click waiting for its row: campaign|day (the reclaim reads these two), then
 * when it was billed (wall clock, see giveBackOrphanClicks), the id its row will have (or -), then the click.
 */
function pendingClickField(request: ClickRequest, billedAt: number): string {
  return `${leaseField(request.campaignId, request.day)}|${billedAt}|${request.clickId ?? '-'}|${request.adBlockId}|${request.adId}|${request.now}|${request.userId}`;
}

/** The row id of a pending click field; null for a lease's field or a click without one. */
function clickIdOf(field: string): string | null {
  const parts = field.split('|', 4);
  return parts.length === 4 && parts[3] !== '-' ? parts[3] : null;
}

/** When the click of a pending click field was billed; null for a lease's field. */
function billedAtOf(field: string): number | null {
  const parts = field.split('|', 3);
  return parts.length === 3 ? Number(parts[2]) : null;
}
