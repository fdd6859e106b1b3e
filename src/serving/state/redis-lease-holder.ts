import { paceShare } from '../../campaigns/pacing';
import { newId } from '../../common/ids';
import type { RedisClient } from '../../redis/redis.module';
import { replicated } from '../../redis/replica-wait';
import {
  HEARTBEAT_EVERY_MS,
  HOLDER_TRUST_MS,
  HOLDER_TTL_MS,
  Lease,
  LEASE_IDLE_MS,
  nextLeaseUnits,
  PERMISSION_TTL_MS,
  RECLAIM_EVERY_MS,
  SCARCE_LEASE_IDLE_MS,
} from './budget-leases';
import { LapsedHolderReclaimer, type LeaseScripts } from './lapsed-holder-reclaimer';
import { billedAtOf, dayOf, leaseField } from './lease-fields';
import { defineScript } from './scripts/load-script';
import { HeldLeases, ImpressionCandidate, paceLimit, stateKeys } from './serving-state';
import type { FreshSpend } from './spend-reseed';

/** How long the daily spend counters live in Redis. */
export const DAY_COUNTER_TTL_S = 3 * 24 * 60 * 60;
const SWEEP_EVERY_MS = HEARTBEAT_EVERY_MS;
/**
 * A billed click this process does not know (its script's answer was lost) is given back after this long: far
 * beyond the time between the script and the process learning of it.
 */
const ORPHAN_CLICK_MS = 60_000;
/** Give-back scripts (one campaign each) sent at once: the ad requests' serve scripts run in between the chunks. */
const SCRIPT_CHUNK = 256;
/** How long a give-back's token is kept: far longer than a reconnect takes. */
const GIVE_BACK_TOKEN_MS = 10 * 60 * 1000;
/** How many times one reservation asks for leases again when other requests used up what it waited for. */
const MAX_LEASE_ROUNDS = 6;

/** Budget going back to the shared counters through the holder's field in its campaign's leases hash. */
export interface LeaseReturn {
  holderId: string;
  campaignId: string;
  day: string;
  micros: number;
  /** The leases hash field, when not the holder's lease of the campaign (a pending click's). */
  field?: string;
}

/**
 * `paced`: budget is left, but the campaign is ahead of its pacing line (lease.lua); `missing`: the counters this
 * process knew are gone (Redis lost them); not served until seeded afresh.
 */
type LeaseOutcome = 'granted' | 'exhausted' | 'paced' | 'missing';

/** The lease holder this process was lost (its heartbeat lapsed and its leases may be reclaimed): ask again. */
export class HolderLostError extends Error {
  constructor() {
    super('lease holder lost');
  }
}

export interface LeaseHolderOptions {
  holderTtlMs?: number;
  holderTrustMs?: number;
  /** How long an unused lease is kept (LEASE_IDLE_MS by default; a scarce one at most SCARCE_LEASE_IDLE_MS). */
  leaseIdleMs?: number;
  /**
   * Which of these click ids have their row committed (the database). Without it, a lapsed holder's billed clicks
   * are all given back, also one committed just before its process died.
   */
  committedClicks?: (clickIds: string[]) => Promise<Set<string>>;
  /** The hash fields of the billed clicks this process is writing the rows of: the orphan sweep leaves them. */
  clicksBeingWritten?: () => Set<string>;
  /**
   * Fresh seeds for counters Redis lost (spend-reseed.ts), and whether this process saw such a loss. Without them
   * (tests of the scripts), missing counters are seeded from the spend the caller knew.
   */
  counterSeeds?: CounterSeeds;
}

/** What the lease requests ask of SpendReseed and RedisStateEpoch (see RedisServingState). */
export interface CounterSeeds {
  seedOf(campaignId: string): FreshSpend | undefined;
  /** The seed was sent with a lease request that found or made the counters: later requests need it no more. */
  used(campaignId: string): void;
  want(campaignId: string): void;
  /** Redis lost its data lately: a counter missing now may be one it lost, whether or not this process knew it. */
  lossKnown(): boolean;
}

/**
 * This process as a holder of budget leases (see budget-leases.ts): the leases it bills from in memory, its
 * heartbeat, the give-backs to the shared counters and the orphan clicks' sweep; the reclaim of other processes' lapsed
 * holders is LapsedHolderReclaimer's (lapsed-holder-reclaimer.ts), run from this holder's sweep.
 */
export class RedisLeaseHolder {
  private readonly redis: LeaseScripts;
  private readonly leases = new Map<string, Lease>();
  /** Lease requests under way per campaign: concurrent requests wait for the same one. */
  private readonly acquiring = new Map<string, Promise<Map<string, LeaseOutcome> | null>>();
  private closing = false;
  private sweeper: NodeJS.Timeout | undefined;
  private lastReclaimAt = 0;
  /** This process's identity as a lease holder; a new one after the old one was (or may have been) reclaimed. */
  private holderId = newId();
  /** Billed leases were granted to this holder: its heartbeat must be kept, and checked by the scripts. */
  private holding = false;
  /** When Redis last confirmed this holder's heartbeat (a grant or a refresh). */
  private heartbeatOkAt = 0;
  /** Campaigns recorded in this holder's campaigns set (holder.lua): where a reclaim of it looks. */
  private readonly registered = new Set<string>();
  readonly holderTtlMs: number;
  private readonly holderTrustMs: number;
  private readonly leaseIdleMs: number;
  private readonly scarceLeaseIdleMs: number;
  private readonly reclaimer: LapsedHolderReclaimer;
  private readonly clicksBeingWritten: () => Set<string>;
  private readonly counterSeeds: CounterSeeds | null;
  /**
   * Campaign and day (`id|day`) whose counters a lease request of this process found or made in Redis: should they
   * be missing later, Redis lost them, and the spend this process knows (its cache) is not a safe seed.
   */
  private readonly countersSeen = new Set<string>();

  constructor(redis: RedisClient, options: LeaseHolderOptions = {}) {
    defineScript(redis, 'adnetHolder', 'holder');
    defineScript(redis, 'adnetLease', 'lease');
    defineScript(redis, 'adnetGiveBack', 'give-back');
    defineScript(redis, 'adnetReclaim', 'reclaim');
    defineScript(redis, 'adnetForgetHolder', 'forget-holder');
    this.redis = redis as LeaseScripts;
    this.reclaimer = new LapsedHolderReclaimer(this.redis, options.committedClicks);
    this.holderTtlMs = options.holderTtlMs ?? HOLDER_TTL_MS;
    this.holderTrustMs = options.holderTrustMs ?? HOLDER_TRUST_MS;
    this.leaseIdleMs = options.leaseIdleMs ?? LEASE_IDLE_MS;
    this.scarceLeaseIdleMs = Math.min(this.leaseIdleMs, SCARCE_LEASE_IDLE_MS);
    this.clicksBeingWritten = options.clicksBeingWritten ?? (() => new Set());
    this.counterSeeds = options.counterSeeds ?? null;
  }

  /**
   * Redis began a new epoch (it lost its data): this holder's leases were carved from counters that are gone, so they
   * are dropped (what they served is billed, and written to the database before anyone seeds the counters again).
   */
  newEpoch(): void {
    this.renewHolder();
  }

  /** The current holder id: the one the scripts are sent for. */
  get id(): string {
    return this.holderId;
  }

  /** The budget leases this process bills from now, and the micro-USDT they still hold. */
  get held(): HeldLeases {
    let remainingMicros = 0;
    for (const lease of this.leases.values()) remainingMicros += lease.remainingMicros;
    return { leases: this.leases.size, remainingMicros };
  }

  /** Whether the scripts must find this holder's heartbeat alive (it was granted billed leases). */
  get expectsHeartbeat(): boolean {
    return this.holding;
  }

  get isClosing(): boolean {
    return this.closing;
  }

  /**
   * Leases are billed from only while the heartbeat is known to be alive: past that, another process may reclaim
   * them at any time, so the holder is given up.
   */
  renewIfUntrusted(wallNow: number): void {
    if (this.holding && wallNow - this.heartbeatOkAt >= this.holderTrustMs) this.renewHolder();
  }

  /** A script found `holderId`'s heartbeat gone: if it is still this process's holder, it is given up. */
  lost(holderId: string): void {
    if (this.holderId === holderId) this.renewHolder();
  }

  /** A script (re)started `holderId`'s heartbeat: if it is still this process's holder, the sweep keeps it. */
  heartbeatStarted(holderId: string): void {
    if (this.holderId === holderId) {
      this.holding = true;
      this.heartbeatOkAt = Math.max(this.heartbeatOkAt, Date.now());
    }
  }

  /** The campaign's budget is spent: its lease is dropped (what it held is billed or goes back with the holder). */
  dropLease(campaignId: string): void {
    this.leases.delete(campaignId);
  }

  /** Micro-USDT this process holds in its lease of the campaign for `day` and has not billed (0 without one). */
  heldMicros(campaignId: string, day: string): number {
    const lease = this.leases.get(campaignId);
    return lease !== undefined && lease.day === day ? lease.remainingMicros : 0;
  }

  /**
   * Bills one unit price from the candidate's lease if it covers it; answers that lease. `lookOnly`: only whether it
   * covers one (invalid traffic, never billed), the lease left as it is.
   */
  take(candidate: ImpressionCandidate, wallNow: number, lookOnly = false): Lease | null {
    const lease = this.leases.get(candidate.campaignId);
    if (!lease || !this.fits(lease, candidate)) return null;
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
   * replaced, given up) straight onto the shared counters it was carved from, through its holder's field in the leases hash.
   */
  giveBack(lease: Lease, priceMicros: number): void {
    if (priceMicros === 0) return;
    if (this.leases.get(lease.campaignId) === lease) lease.remainingMicros += priceMicros;
    else void this.returnToCounters([{ holderId: lease.holderId, campaignId: lease.campaignId, day: lease.day, micros: priceMicros }]);
  }

  /**
   * Leases for the candidates `taken` lacks, asked for in rounds (others may use up what a round brought); fills
   * in `taken` the leases billed and answers the positions of those without budget left, and of those ahead of
   * their pacing line, each ascending.
   */
  async leaseLacking(
    candidates: ImpressionCandidate[],
    taken: (Lease | null)[],
    wallNow: number,
    lookOnly: boolean,
    now = wallNow,
  ): Promise<{ exhausted: number[]; heldBack: number[] }> {
    const exhausted = new Set<number>();
    const heldBack = new Set<number>();
    const missing = new Set<number>();
    try {
      for (let round = 0; round < MAX_LEASE_ROUNDS; round++) {
        const lacking: number[] = [];
        for (let i = 0; i < candidates.length; i++) {
          if (taken[i] !== null || exhausted.has(i) || heldBack.has(i) || missing.has(i)) continue;
          if (this.pastBlockLine(candidates[i], now)) {
            heldBack.add(i);
            continue;
          }
          taken[i] = this.take(candidates[i], wallNow, lookOnly);
          if (taken[i] === null) lacking.push(i);
        }
        if (lacking.length === 0) break;
        const outcome = await this.acquire(
          lacking.map((i) => candidates[i]),
          now,
        );
        lacking.forEach((i, k) => {
          if (outcome[k] === 'exhausted') exhausted.add(i);
          else if (outcome[k] === 'paced') heldBack.add(i);
          else if (outcome[k] === 'missing') missing.add(i);
        });
      }
    } catch (error) {
      taken.forEach((lease, i) => {
        if (lease !== null && !lookOnly) this.giveBack(lease, candidates[i].priceMicros);
        taken[i] = null;
      });
      throw error;
    }
    return { exhausted: [...exhausted].sort((a, b) => a - b), heldBack: [...heldBack].sort((a, b) => a - b) };
  }

  /**
   * The candidate has a lower pacing line on this request's ad block (optimization) and the campaign's counters, as
   * this process last saw them, reached it: it holds back here while its lease still serves better blocks.
   */
  private pastBlockLine(candidate: ImpressionCandidate, now: number): boolean {
    if (candidate.pace?.margin === undefined) return false;
    const lease = this.leases.get(candidate.campaignId);
    if (!lease || !this.fits(lease, candidate)) return false;
    const { spentMicros, daySpentMicros } = lease.countersAt;
    return daySpentMicros >= paceLimit(candidate, spentMicros, daySpentMicros, now);
  }

  /** A lease serves only the day, price and budgets it was granted for. */
  private fits(lease: Lease, candidate: ImpressionCandidate): boolean {
    return (
      lease.day === candidate.day &&
      lease.priceMicros === candidate.priceMicros &&
      lease.totalBudgetMicros === candidate.totalBudgetMicros &&
      lease.dailyBudgetMicros === candidate.dailyBudgetMicros
    );
  }

  /**
   * Asks for leases of these campaigns (one script call), or waits for the request already under way for them.
   * Answers per candidate whether budget was granted, none is left, or the request failed (neither).
   */
  /** `now`: the request's time (the service's clock), which the pacing line is drawn at. */
  private async acquire(candidates: ImpressionCandidate[], now: number): Promise<(LeaseOutcome | undefined)[]> {
    const waits = new Map<string, Promise<Map<string, LeaseOutcome> | null>>();
    const asking: ImpressionCandidate[] = [];
    // A request for a block's lower line answers differently from one for the full line: they are not shared.
    const keyOf = (candidate: ImpressionCandidate) =>
      candidate.pace?.margin === undefined ? candidate.campaignId : `${candidate.campaignId}|${candidate.pace.margin}`;
    for (const candidate of candidates) {
      const key = keyOf(candidate);
      const pending = this.acquiring.get(key);
      if (pending) waits.set(key, pending);
      else if (!asking.some((other) => keyOf(other) === key)) asking.push(candidate);
    }
    let failure: unknown;
    if (asking.length > 0) {
      const request = this.requestLeases(asking, now);
      const settled = request.catch((error: unknown) => {
        failure = error;
        return null;
      });
      for (const candidate of asking) {
        this.acquiring.set(keyOf(candidate), settled);
        waits.set(keyOf(candidate), settled);
      }
      void settled.finally(() => asking.forEach((candidate) => this.acquiring.delete(keyOf(candidate))));
    }
    const outcomes = new Map<string, LeaseOutcome | undefined>();
    for (const [key, wait] of waits) outcomes.set(key, (await wait)?.get(key.split('|')[0]));
    if (failure !== undefined) throw failure;
    return candidates.map((candidate) => outcomes.get(keyOf(candidate)));
  }

  /**
   * Before this holder takes budget of these campaigns (leases, billed clicks): its heartbeat is checked (once it
   * holds leases) and (re)started, and the campaigns recorded where a reclaim of the holder looks (holder.lua, in the
   * holder's slot), and the holder is in the set of holders. `always`: also when every campaign is recorded (a lease
   * request checks the heartbeat each time). Throws HolderLostError when the holder was lost (it is given up).
   */
  async prepareToHold(campaignIds: string[], always: boolean): Promise<void> {
    const holderId = this.holderId;
    const unrecorded = [...new Set(campaignIds)].filter((campaignId) => !this.registered.has(campaignId));
    if (!always && this.holding && unrecorded.length === 0) return;
    const [status] = await Promise.all([
      replicated<number>(
        this.redis,
        'adnetHolder',
        2,
        stateKeys.leaseHolder(holderId),
        stateKeys.holderCampaigns(holderId),
        this.holderTtlMs,
        this.holding ? '1' : '0',
        ...unrecorded,
      ),
      this.redis.sadd(stateKeys.leaseHolders(), holderId),
    ]);
    if (status === -1) {
      this.lost(holderId);
      throw new HolderLostError();
    }
    if (holderId === this.holderId) for (const campaignId of unrecorded) this.registered.add(campaignId);
  }

  private async requestLeases(candidates: ImpressionCandidate[], now: number, lostBefore = false): Promise<Map<string, LeaseOutcome>> {
    const outcomes = new Map<string, LeaseOutcome>();
    const wallNow = Date.now();
    const holderId = this.holderId;
    let lost = false;
    const priced = candidates.filter((candidate) => candidate.priceMicros > 0).map((candidate) => candidate.campaignId);
    if (priced.length > 0) {
      try {
        await this.prepareToHold(priced, true);
      } catch (error) {
        if (!(error instanceof HolderLostError)) throw error;
        lost = true;
      }
    }
    // one script per campaign, each in its campaign's slot, all sent at once
    const wantedUnits: number[] = [];
    const granted = lost
      ? []
      : await Promise.all(
          candidates.map((candidate, i) => {
            const day = candidate.day;
            const previous = this.leases.get(candidate.campaignId);
            // A lease of another day, price or budget goes back before a new one is taken.
            if (previous && !this.fits(previous, candidate)) void this.returnLeases([previous]);
            const wanted = this.closing ? 1 : nextLeaseUnits(previous && this.fits(previous, candidate) ? previous : undefined, wallNow);
            wantedUnits[i] = wanted;
            const seed = this.seedFor(candidate, day);
            return replicated<[number, number, number]>(
              this.redis,
              'adnetLease',
              3,
              stateKeys.campaignLeases(candidate.campaignId),
              stateKeys.spent(candidate.campaignId),
              stateKeys.daySpent(candidate.campaignId, day),
              DAY_COUNTER_TTL_S,
              candidate.priceMicros,
              candidate.totalBudgetMicros,
              candidate.dailyBudgetMicros,
              seed.spentMicros,
              seed.daySpentMicros,
              wanted,
              leaseField(holderId, day),
              seed.mustExist ? '1' : '0',
              candidate.pace ? paceShare(candidate.pace, now) : -1,
            );
          }),
        );
    if (lost || holderId !== this.holderId) {
      // Lost before the call (nothing was granted), or given up during it (what was granted is the old holder's,
      // reclaimed once its heartbeat lapses): ask once more as a new holder.
      if (this.holderId === holderId) this.renewHolder();
      if (lostBefore) throw new HolderLostError();
      return this.requestLeases(candidates, now, true);
    }
    if (granted.some((answer, i) => Number(answer[0]) > 0 && candidates[i].priceMicros > 0)) {
      this.holding = true;
      this.heartbeatOkAt = wallNow;
    }
    candidates.forEach((candidate, i) => {
      const grant = Number(granted[i][0]);
      const countersAt = { spentMicros: Number(granted[i][1]), daySpentMicros: Number(granted[i][2]) };
      const day = candidate.day;
      if (grant === -2) {
        // Redis lost these counters: none is granted until a fresh read seeds them (SpendReseed). They stay known as
        // seen, so that a request before that read (or before the epoch check has seen the loss) must find them
        // too, and never seeds them from the index's older spend.
        this.counterSeeds?.want(candidate.campaignId);
        outcomes.set(candidate.campaignId, 'missing');
        return;
      }
      this.countersSeen.add(`${candidate.campaignId}|${day}`);
      if (candidate.priceMicros > 0) this.counterSeeds?.used(candidate.campaignId);
      const grantedUnits = candidate.priceMicros > 0 ? grant / candidate.priceMicros : 0;
      if (grant < 0 && candidate.pace?.margin !== undefined) {
        // Ahead of this block's lower line only: the lease keeps serving the better blocks, and knows the counters now.
        const current = this.leases.get(candidate.campaignId);
        if (current && this.fits(current, candidate)) current.countersAt = countersAt;
        outcomes.set(candidate.campaignId, 'paced');
        return;
      }
      if (grant <= 0) {
        // Units given back to the lease meanwhile go back to the counters with it, not lost with the lease.
        const current = this.leases.get(candidate.campaignId);
        if (current) void this.returnLeases([current]);
        outcomes.set(candidate.campaignId, grant < 0 ? 'paced' : 'exhausted');
        return;
      }
      const current = this.leases.get(candidate.campaignId);
      let carried = 0;
      if (current && this.fits(current, candidate) && candidate.priceMicros > 0 && current.holderId === holderId) {
        carried = current.remainingMicros;
        current.remainingMicros = 0;
      }
      this.leases.set(candidate.campaignId, {
        holderId,
        campaignId: candidate.campaignId,
        day: candidate.day,
        priceMicros: candidate.priceMicros,
        totalBudgetMicros: candidate.totalBudgetMicros,
        dailyBudgetMicros: candidate.dailyBudgetMicros,
        remainingMicros: candidate.priceMicros > 0 ? carried + grant : 0,
        grantedUnits,
        scarce: candidate.priceMicros > 0 && grantedUnits < wantedUnits[i],
        grantedAt: wallNow,
        lastUsedAt: wallNow,
        countersAt,
      });
      outcomes.set(candidate.campaignId, 'granted');
    });
    return outcomes;
  }

  /**
   * The spend a lease request seeds the campaign's counters with, should Redis not hold them, and whether it may seed
   * them at all. A fresh read after a loss (SpendReseed) when there is one; else the spend the caller knew (the
   * index's), as long as this process neither knew these counters nor knows of a recent loss: then a missing counter
   * is a new one (a new campaign, a new day, a new Redis), not a lost one. A fresh seed serves one request that finds
   * or makes the counters; later ones must find them. Free impressions (permissions) seed as before.
   */
  private seedFor(candidate: ImpressionCandidate, day: string): { spentMicros: number; daySpentMicros: number; mustExist: boolean } {
    const known = { spentMicros: candidate.knownSpentMicros, daySpentMicros: candidate.knownDaySpentMicros, mustExist: false };
    if (this.counterSeeds === null || candidate.priceMicros === 0) return known;
    const fresh = this.counterSeeds.seedOf(candidate.campaignId);
    if (fresh !== undefined) {
      return {
        spentMicros: Math.max(known.spentMicros, fresh.spentMicros),
        daySpentMicros: fresh.spentDay === day ? Math.max(known.daySpentMicros, fresh.daySpentMicros) : known.daySpentMicros,
        mustExist: false,
      };
    }
    known.mustExist = this.countersSeen.has(`${candidate.campaignId}|${day}`) || this.counterSeeds.lossKnown();
    return known;
  }

  /**
   * Gives up this process's holder identity: its leases are dropped unreturned (another process reclaims them
   * once the old heartbeat lapses) and later grants go to a new holder.
   */
  private renewHolder(): void {
    this.holderId = newId();
    this.holding = false;
    this.leases.clear();
    this.registered.clear();
  }

  /** Every second: idle leases go back, the heartbeat is refreshed, and now and then lapsed holders are reclaimed. */
  private sweep(wallNow: number): void {
    void this.returnIdleLeases(wallNow);
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
   * longer than the heartbeat's life) still held (LapsedHolderReclaimer). Answers the micro-USDT given back.
   */
  reclaimLapsedHolders(): Promise<number> {
    return this.reclaimer.reclaimLapsedHolders();
  }

  /** Gives leases nobody billed from lately back to the shared counters (scarce ones sooner); permissions simply lapse. */
  returnIdleLeases(wallNow: number): Promise<void> {
    const idle: Lease[] = [];
    for (const lease of this.leases.values()) {
      if (lease.priceMicros === 0) {
        if (wallNow - lease.grantedAt >= PERMISSION_TTL_MS) idle.push(lease);
      } else if (wallNow - lease.lastUsedAt >= (lease.scarce ? this.scarceLeaseIdleMs : this.leaseIdleMs)) idle.push(lease);
    }
    return this.returnLeases(idle);
  }

  /** Drops the leases at once (nothing more is billed from them) and takes their rest off the shared counters. */
  returnLeases(leases: Lease[]): Promise<void> {
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
   * Takes unused budget off the shared counters, and off the holder's outstanding leases (see give-back.lua).
   * A failed return leaves it in the hash: reclaimed with the holder once its heartbeat lapses.
   */
  async returnToCounters(returns: LeaseReturn[]): Promise<void> {
    // one script per return, in its campaign's slot; a chunk at a time, so the ad requests' serve scripts run between
    for (let from = 0; from < returns.length; from += SCRIPT_CHUNK) {
      await Promise.all(
        returns
          .slice(from, from + SCRIPT_CHUNK)
          .map(({ holderId, campaignId, day, micros, field }) =>
            replicated<number>(
              this.redis,
              'adnetGiveBack',
              4,
              stateKeys.giveBackToken(campaignId, newId()),
              stateKeys.campaignLeases(campaignId),
              stateKeys.spent(campaignId),
              stateKeys.daySpent(campaignId, day),
              GIVE_BACK_TOKEN_MS,
              field ?? leaseField(holderId, day),
              micros,
            ).catch(() => undefined),
          ),
      );
    }
  }

  /** A reservation finished while shutting down: whatever it left in a lease goes back at once. */
  async returnLeasesIfClosing(): Promise<void> {
    if (this.closing) await this.returnLeases([...this.leases.values()]);
  }

  /**
   * Shutdown: the leases go back while Redis is still connected. The HTTP server still answers the requests in
   * flight (Nest closes it after this hook): from now on each reservation returns whatever it leaves in a lease,
   * grants that arrive late included. What is still out when the process exits is reclaimed with its holder.
   */
  async shutdown(): Promise<void> {
    this.closing = true;
    clearInterval(this.sweeper);
    await this.returnLeases([...this.leases.values()]);
  }

  /**
   * Idle leases go back, the heartbeat is kept and lapsed holders are reclaimed on a timer, also while this process
   * serves nothing (taken out of a load balancer).
   */
  ensureSweeper(): void {
    if (this.sweeper === undefined && !this.closing) {
      this.sweeper = setInterval(() => this.sweep(Date.now()), SWEEP_EVERY_MS);
      this.sweeper.unref();
    }
  }

  /**
   * Billed clicks of this holder (its fields in the campaigns' leases hashes) that this process is not writing: the
   * bill script ran but its answer was lost (Redis restarted, the connection dropped; the client may even have sent
   * the click again and been told "duplicate"), or the row was committed and taking it off the hash failed. After ORPHAN_CLICK_MS those with a
   * committed row leave the hash and the others' price goes back to the counters. Answers the micro-USDT given back.
   */
  async giveBackOrphanClicks(wallNow: number): Promise<number> {
    const holderId = this.holderId;
    const writing = this.clicksBeingWritten();
    const old = (await this.reclaimer.fieldsOf(holderId)).filter(({ field }) => {
      const billedAt = billedAtOf(field);
      return billedAt !== null && !writing.has(field) && wallNow - billedAt >= ORPHAN_CLICK_MS;
    });
    const orphans: LeaseReturn[] = (await this.reclaimer.keepCommittedClicks(old)).map(({ campaignId, field, micros }) => ({
      holderId,
      campaignId,
      day: dayOf(field),
      micros,
      field,
    }));
    await this.returnToCounters(orphans);
    return orphans.reduce((sum, orphan) => sum + orphan.micros, 0);
  }
}
