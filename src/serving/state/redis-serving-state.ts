import type Redis from 'ioredis';
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

// Per candidate: KEYS spent, daySpent, excluded, served; ARGV price, total, daily, knownSpent, knownDaySpent.
// Times are compared with the service's clock (ARGV now), TTLs only clean up.
const RESERVE_SCRIPT = `
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local n = tonumber(ARGV[3])
local dayTtl = tonumber(ARGV[4])
local servedTtl = tonumber(ARGV[5])
local served = {}
local exhausted = {}
for i = 0, n - 1 do
  if #served >= limit then break end
  local k = i * 4
  local a = 6 + i * 5
  local excludedUntil = redis.call('GET', KEYS[k + 3])
  if not excludedUntil or tonumber(excludedUntil) <= now then
    local spent = redis.call('GET', KEYS[k + 1])
    if not spent then
      spent = ARGV[a + 3]
      redis.call('SET', KEYS[k + 1], spent)
    end
    local daySpent = redis.call('GET', KEYS[k + 2])
    if not daySpent then
      daySpent = ARGV[a + 4]
      redis.call('SET', KEYS[k + 2], daySpent, 'EX', dayTtl)
    end
    if tonumber(spent) >= tonumber(ARGV[a + 1]) or tonumber(daySpent) >= tonumber(ARGV[a + 2]) then
      exhausted[#exhausted + 1] = i
    else
      local price = tonumber(ARGV[a])
      if price > 0 then
        redis.call('INCRBY', KEYS[k + 1], price)
        redis.call('INCRBY', KEYS[k + 2], price)
      end
      redis.call('SET', KEYS[k + 4], now, 'PX', servedTtl)
      served[#served + 1] = i
    end
  end
end
return {served, exhausted}
`;

// KEYS served, clicked, excluded, spent, daySpent.
// ARGV now, impressionWindow, dedupWindow, exclusionMs, price, total, daily, knownSpent, knownDaySpent, dayTtl.
const CLICK_SCRIPT = `
local now = tonumber(ARGV[1])
local servedAt = redis.call('GET', KEYS[1])
if not servedAt or now - tonumber(servedAt) >= tonumber(ARGV[2]) then return -1 end
local clickedAt = redis.call('GET', KEYS[2])
if clickedAt and now - tonumber(clickedAt) < tonumber(ARGV[3]) then return -2 end
local cost = 0
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
    redis.call('INCRBY', KEYS[4], price)
    redis.call('INCRBY', KEYS[5], price)
  end
end
redis.call('SET', KEYS[2], now, 'PX', tonumber(ARGV[3]))
local exclusion = tonumber(ARGV[4])
if exclusion > 0 then redis.call('SET', KEYS[3], now + exclusion, 'PX', exclusion) end
return cost
`;

type ScriptedRedis = Redis & {
  adnetReserve(numKeys: number, ...args: (string | number)[]): Promise<[number[], number[]]>;
  adnetClick(numKeys: number, ...args: (string | number)[]): Promise<number>;
};

/** Serving state shared by every process through Redis; each operation is one Lua script (one round trip). */
export class RedisServingState implements ServingState {
  private readonly redis: ScriptedRedis;

  constructor(redis: Redis) {
    redis.defineCommand('adnetReserve', { lua: RESERVE_SCRIPT });
    redis.defineCommand('adnetClick', { lua: CLICK_SCRIPT });
    this.redis = redis as ScriptedRedis;
  }

  async reserveImpressions(request: ReserveRequest, candidates: ImpressionCandidate[]): Promise<ReserveResult> {
    const keys: string[] = [];
    const args: (string | number)[] = [request.now, request.limit, candidates.length, DAY_COUNTER_TTL_S, SERVED_TTL_MS];
    for (const candidate of candidates) {
      keys.push(
        stateKeys.spent(candidate.campaignId),
        stateKeys.daySpent(candidate.campaignId, request.day),
        stateKeys.excluded(request.userId, candidate.adId),
        stateKeys.served(request.userId, request.adBlockId, candidate.adId),
      );
      args.push(
        candidate.priceMicros,
        candidate.totalBudgetMicros,
        candidate.dailyBudgetMicros,
        candidate.knownSpentMicros,
        candidate.knownDaySpentMicros,
      );
    }
    const [served, exhausted] = await this.redis.adnetReserve(keys.length, ...keys, ...args);
    return { served, exhausted };
  }

  async registerClick(request: ClickRequest): Promise<ClickOutcome> {
    const result = await this.redis.adnetClick(
      5,
      stateKeys.served(request.userId, request.adBlockId, request.adId),
      stateKeys.clicked(request.userId, request.adBlockId, request.adId),
      stateKeys.excluded(request.userId, request.adId),
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
    );
    if (result === -1) return { kind: 'noImpression' };
    if (result === -2) return { kind: 'duplicate' };
    return { kind: 'counted', costMicros: result };
  }

  async undoClick(request: ClickRequest, costMicros: number): Promise<void> {
    const pipeline = this.redis.multi();
    if (costMicros > 0) {
      pipeline.decrby(stateKeys.spent(request.campaignId), costMicros);
      pipeline.decrby(stateKeys.daySpent(request.campaignId, request.day), costMicros);
    }
    pipeline.del(stateKeys.clicked(request.userId, request.adBlockId, request.adId));
    if (request.exclusionMs > 0) pipeline.del(stateKeys.excluded(request.userId, request.adId));
    await pipeline.exec();
  }
}
