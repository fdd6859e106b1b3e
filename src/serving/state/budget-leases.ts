/**
 * Budget leases: how the Redis serving state bills CPM impressions without a Redis write per impression.
 *
 * The shared counters (`spend:<campaign>`, `dspend:<campaign>:<day>`) count what has been spent *or handed out*.
 * A process takes a lease, a run of unit prices carved from both counters in one atomic step, and then bills
 * impressions from it in memory. A grant never takes more than the units needed to reach the budget (the last one
 * may pass it, as the rules allow: at most one unit price), so the sum of every process's leases, hence the spend,
 * stays within one unit price of the budget. Near the end a grant is at most a quarter of what is left, so the
 * rest stays available to the other processes. Unused leases go back when idle, on another day, when the campaign's
 * price or budgets change, and at shutdown.
 *
 * A process killed outright cannot give its leases back, so Redis keeps what each process holds: a lease holder
 * (a random id per process) has a hash of what it was granted and has neither billed nor returned, per campaign and
 * day, and a heartbeat key it refreshes every second. The serve script takes the units it bills off that hash in
 * the same atomic step as it serves them, so the hash never holds a billed unit. Once a heartbeat has lapsed
 * (HOLDER_TTL_MS), any process gives that holder's hash back to the counters (the reclaim script). A process only
 * bills from its leases within HOLDER_TRUST_MS of its last confirmed heartbeat, and the serve script refuses a
 * holder whose heartbeat is gone; either way the process drops its leases, takes a new holder id and asks again,
 * so a reclaimed lease is never billed from.
 *
 * Lease sizes follow each campaign's local pace: about LEASE_TARGET_MS of serving, between MIN and MAX units.
 */
export const LEASE_TARGET_MS = 2000;
export const LEASE_MIN_UNITS = 4;
export const LEASE_MAX_UNITS = 5000;
/** A lease not billed from for this long goes back to the shared counters. */
export const LEASE_IDLE_MS = 5000;
/** For free impressions (CPC, exchange) a lease is only a permission: "budget was left", trusted this long. */
export const PERMISSION_TTL_MS = 1000;
/** A lease holder's heartbeat lives this long; once it lapsed, what the holder held goes back to the counters. */
export const HOLDER_TTL_MS = 30_000;
/** A process bills from its leases only this long after its last confirmed heartbeat (well inside the TTL). */
export const HOLDER_TRUST_MS = 10_000;
/** How often a serving process refreshes its heartbeat (and returns idle leases). */
export const HEARTBEAT_EVERY_MS = 1000;

/**
 * The heartbeat life and billing trust of a lease holder whose heartbeat lives `ttlMs` (LEASE_HOLDER_TTL_MS, at
 * least 3 s): a third of the life, as by default, but at least two heartbeats (a trust shorter than the refresh
 * period would make the process give up its leases between refreshes) and at most the life less one heartbeat, so
 * a process stops billing before another may reclaim its leases.
 */
export function holderTimings(ttlMs: number): { holderTtlMs: number; holderTrustMs: number } {
  const trust = Math.floor((ttlMs * HOLDER_TRUST_MS) / HOLDER_TTL_MS);
  return { holderTtlMs: ttlMs, holderTrustMs: Math.min(ttlMs - HEARTBEAT_EVERY_MS, Math.max(2 * HEARTBEAT_EVERY_MS, trust)) };
}

/** How often a serving process looks for lapsed holders to reclaim. */
export const RECLAIM_EVERY_MS = 5_000;

/**
 * The hash field of a lease: campaign and UTC day (the reclaim script splits it at the `|`). A billed click waiting
 * for its row has a field of its own after these two (see RedisServingState.clickCommitted).
 */
export function leaseField(campaignId: string, day: string): string {
  return `${campaignId}|${day}`;
}

export interface Lease {
  /** The holder (process identity) whose Redis hash counts this lease. */
  holderId: string;
  campaignId: string;
  day: string;
  /** Unit price the lease was granted for (0: a permission for free impressions). */
  priceMicros: number;
  totalBudgetMicros: number;
  dailyBudgetMicros: number;
  /** Micro-USDT still to bill from this lease. */
  remainingMicros: number;
  grantedUnits: number;
  grantedAt: number;
  lastUsedAt: number;
}

/** Units to ask for next: enough for about LEASE_TARGET_MS at the pace the previous lease was used up. */
export function nextLeaseUnits(previous: Lease | undefined, now: number): number {
  if (!previous || previous.priceMicros === 0) return LEASE_MIN_UNITS;
  const elapsed = Math.max(50, now - previous.grantedAt);
  const units = Math.ceil((previous.grantedUnits * LEASE_TARGET_MS) / elapsed);
  return Math.min(LEASE_MAX_UNITS, Math.max(LEASE_MIN_UNITS, units));
}

// KEYS holder's leases (hash), holder's heartbeat, the set of holders, then per campaign spent, daySpent.
// ARGV dayTtl, holderId, holderTtlMs, expectAlive ('1': the holder holds leases, so its heartbeat must be there),
// then per campaign price, total, daily, knownSpent, knownDaySpent, units, lease field.
// Answers {-1} when the holder was lost, else {0, then per campaign the micro-USDT granted (0: no budget left; for
// price 0, 1 means budget is left)}.
export const LEASE_SCRIPT = `
if ARGV[4] == '1' and redis.call('EXISTS', KEYS[2]) == 0 then return {-1} end
local dayTtl = tonumber(ARGV[1])
local granted = {0}
local held = false
for i = 1, (#KEYS - 3) / 2 do
  local a = 5 + (i - 1) * 7
  local price = tonumber(ARGV[a])
  local spentKey = KEYS[2 + 2 * i]
  local daySpentKey = KEYS[3 + 2 * i]
  local spent = redis.call('GET', spentKey)
  if not spent then
    spent = ARGV[a + 3]
    redis.call('SET', spentKey, spent)
  end
  local daySpent = redis.call('GET', daySpentKey)
  if not daySpent then
    daySpent = ARGV[a + 4]
    redis.call('SET', daySpentKey, daySpent, 'EX', dayTtl)
  end
  local left = math.min(tonumber(ARGV[a + 1]) - tonumber(spent), tonumber(ARGV[a + 2]) - tonumber(daySpent))
  local grant = 0
  if left > 0 then
    if price <= 0 then
      grant = 1
    else
      local units = math.min(tonumber(ARGV[a + 5]), math.ceil(left / price), math.floor(left / (4 * price)))
      if units < 1 then units = 1 end
      grant = units * price
      redis.call('INCRBY', spentKey, grant)
      redis.call('INCRBY', daySpentKey, grant)
      redis.call('HINCRBY', KEYS[1], ARGV[a + 6], grant)
      held = true
    end
  end
  granted[i + 1] = grant
end
if held then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
  redis.call('SADD', KEYS[3], ARGV[2])
end
return granted
`;

// KEYS this call's token, then per return: holder's leases (hash), spent, daySpent; ARGV the token's life in ms, then
// per return: lease field, micro-USDT. Takes off the counters only what the holder's hash still holds (nothing once
// the holder was reclaimed), and only counters that exist: a decrement would create a counter Redis lost below
// zero, the whole budget spendable again. Runs once per token: the client sends a command again after a reconnect
// when its answer was lost, and a second run would give back units of the live lease.
export const GIVE_BACK_SCRIPT = `
if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then return 0 end
for i = 1, (#KEYS - 1) / 3 do
  local k = 1 + 3 * i
  local held = tonumber(redis.call('HGET', KEYS[k - 2], ARGV[2 * i]) or '0')
  local amount = math.min(held, tonumber(ARGV[2 * i + 1]))
  if amount > 0 then
    if held - amount <= 0 then
      redis.call('HDEL', KEYS[k - 2], ARGV[2 * i])
    else
      redis.call('HINCRBY', KEYS[k - 2], ARGV[2 * i], -amount)
    end
    if redis.call('EXISTS', KEYS[k - 1]) == 1 then redis.call('DECRBY', KEYS[k - 1], amount) end
    if redis.call('EXISTS', KEYS[k]) == 1 then redis.call('DECRBY', KEYS[k], amount) end
  end
end
return 1
`;

// KEYS the set of holders; ARGV the client's key prefix. Gives back everything held by holders whose heartbeat has
// lapsed, and forgets them. The key names are built here (they are not known before the set is read): keep them in
// step with stateKeys (leaseHolder, holderLeases, spent, daySpent). Answers the micro-USDT given back.
export const RECLAIM_SCRIPT = `
local prefix = ARGV[1]
local reclaimed = 0
for _, holder in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if redis.call('EXISTS', prefix .. 'leaseholder:' .. holder) == 0 then
    local hash = prefix .. 'leases:' .. holder
    local entries = redis.call('HGETALL', hash)
    for j = 1, #entries, 2 do
      local micros = tonumber(entries[j + 1])
      local bar = string.find(entries[j], '|', 1, true)
      if micros > 0 and bar then
        local campaign = string.sub(entries[j], 1, bar - 1)
        local dayEnd = string.find(entries[j], '|', bar + 1, true)
        local day = dayEnd and string.sub(entries[j], bar + 1, dayEnd - 1) or string.sub(entries[j], bar + 1)
        local spent = prefix .. 'spend:' .. campaign
        local daySpent = prefix .. 'dspend:' .. campaign .. ':' .. day
        if redis.call('EXISTS', spent) == 1 then redis.call('DECRBY', spent, micros) end
        if redis.call('EXISTS', daySpent) == 1 then redis.call('DECRBY', daySpent, micros) end
        reclaimed = reclaimed + micros
      end
    end
    redis.call('DEL', hash)
    redis.call('SREM', KEYS[1], holder)
  end
end
return reclaimed
`;
