/**
 * Budget leases: how the Redis serving state bills CPM impressions without a Redis write per impression.
 *
 * The shared counters (`spend:<campaign>`, `dspend:<campaign>:<day>`) count what has been spent *or handed out*.
 * A process takes a lease, a run of unit prices carved from both counters in one atomic step, and then bills
 * impressions from it in memory. A grant never takes more than the units needed to reach the budget (the last one
 * may pass it, as the rules allow: at most one unit price), so the sum of every process's leases, hence the spend,
 * stays within one unit price of the budget. Near the end a grant is at most a quarter of what is left, so the
 * rest stays available to the other processes. Unused leases go back when idle, on another day, when the campaign's
 * price or budgets change, and at shutdown; a process killed outright strands what it held (under-delivery, never
 * overspend) until the counters are next seeded from the database.
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

export interface Lease {
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

// Per campaign: KEYS spent, daySpent; ARGV (from 2) price, total, daily, knownSpent, knownDaySpent, units.
// Answers per campaign the micro-USDT granted (0: no budget left; for price 0, 1 means budget is left).
export const LEASE_SCRIPT = `
local dayTtl = tonumber(ARGV[1])
local granted = {}
for i = 1, #KEYS / 2 do
  local a = 2 + (i - 1) * 6
  local price = tonumber(ARGV[a])
  local spent = redis.call('GET', KEYS[2 * i - 1])
  if not spent then
    spent = ARGV[a + 3]
    redis.call('SET', KEYS[2 * i - 1], spent)
  end
  local daySpent = redis.call('GET', KEYS[2 * i])
  if not daySpent then
    daySpent = ARGV[a + 4]
    redis.call('SET', KEYS[2 * i], daySpent, 'EX', dayTtl)
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
      redis.call('INCRBY', KEYS[2 * i - 1], grant)
      redis.call('INCRBY', KEYS[2 * i], grant)
    end
  end
  granted[i] = grant
end
return granted
`;
