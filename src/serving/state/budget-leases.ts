/**
 * Budget leases: how the Redis serving state bills CPM impressions without a Redis write per impression.
 *
 * The shared counters (`spend:<campaign>`, `dspend:<campaign>:<day>`) count what has been spent *or handed out*.
 * A process takes a lease, a run of unit prices carved from both counters in one atomic step, and then bills
 * impressions from it in memory. A grant never takes more than the units needed to reach the budget (the last one
 * may pass it, as the rules allow: at most one unit price), so the sum of every process's leases, hence the spend,
 * stays within one unit price of the budget. Near the end a grant is at most a quarter of what is left, so the
 * rest stays available to the other processes. Unused leases go back when idle (a scarce one sooner), on another
 * day, when the campaign's price or budgets change, and at shutdown.
 *
 * A process killed outright cannot give its leases back, so Redis keeps what each process holds: each campaign has
 * a hash of what each lease holder (a random id per process) was granted and has neither billed nor returned, a
 * field per holder and day, and each holder a heartbeat key it refreshes every second. What the process served from a
 * lease is taken off its field by the bill script, one sum per lease every BILL_EVERY_MS (redis-serve-state.ts) and
 * before those impressions reach the database, so the hash holds served units for at most that long. Once a heartbeat has lapsed
 * (HOLDER_TTL_MS), any process gives that holder's fields back to the counters (the reclaim script, per campaign).
 * A process only bills from its leases within HOLDER_TRUST_MS of its last confirmed heartbeat; when billing finds
 * the holder's field gone (reclaimed), it charges the counters instead, as far as the budgets still take it (the
 * rest is waived: served unbilled), and the process drops its leases, takes a new holder id and asks again. The
 * scripts are in scripts/ (holder.lua, lease.lua, serve-many.lua and bill.lua, give-back.lua, reclaim.lua), the
 * holder's lifecycle in redis-lease-holder.ts; docs/SCALING.md (Redis Cluster) says why each step keeps to one hash
 * slot.
 *
 * Lease sizes follow each campaign's local pace: about LEASE_TARGET_MS of serving, between MIN and MAX units.
 */
export const LEASE_TARGET_MS = 2000;
export const LEASE_MIN_UNITS = 4;
export const LEASE_MAX_UNITS = 5000;
/**
 * A lease not billed from for this long goes back to the shared counters (LEASE_IDLE_MS, the default). Longer keeps
 * leases through a lull, so the first second after it need not ask for every campaign's lease again; longer idle
 * times did not give a lower p99 (docs/PERFORMANCE.md#lease-idle-time), so 5 s stays.
 */
export const LEASE_IDLE_MS = 5000;
/**
 * A scarce lease (granted fewer units than asked for: the budget left was short, so it holds up to a quarter of
 * it) goes back after this long idle, or after the configured idle time if shorter, whatever LEASE_IDLE_MS says:
 * what it holds is what the other processes lack.
 */
export const SCARCE_LEASE_IDLE_MS = 5000;
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

export interface Lease {
  /** The holder (process identity) whose Redis hash counts this lease. */
  readonly holderId: string;
  readonly campaignId: string;
  readonly day: string;
  /** Unit price the lease was granted for (0: a permission for free impressions). */
  priceMicros: number;
  totalBudgetMicros: number;
  dailyBudgetMicros: number;
  /** Micro-USDT still to bill from this lease. */
  remainingMicros: number;
  grantedUnits: number;
  /** Granted fewer units than asked for: it goes back after SCARCE_LEASE_IDLE_MS idle. */
  scarce: boolean;
  grantedAt: number;
  lastUsedAt: number;
  /**
   * The shared counters as the last lease request of this campaign left them (this lease carved from them): an ad
   * block with a lower pacing line holds the campaign back once they reach it (src/serving/block-optimization.ts).
   */
  countersAt: { spentMicros: number; daySpentMicros: number };
}

/** Units to ask for next: enough for about LEASE_TARGET_MS at the pace the previous lease was used up. */
export function nextLeaseUnits(previous: Lease | undefined, now: number): number {
  if (!previous || previous.priceMicros === 0) return LEASE_MIN_UNITS;
  const elapsed = Math.max(50, now - previous.grantedAt);
  const units = Math.ceil((previous.grantedUnits * LEASE_TARGET_MS) / elapsed);
  return Math.min(LEASE_MAX_UNITS, Math.max(LEASE_MIN_UNITS, units));
}
