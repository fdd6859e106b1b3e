import { dayKeyOf } from '../../common/time-zone';
import { DAY_MS } from '../../common/clock';
import {
  paceLimit,
  BoundClickStatus,
  BudgetFacts,
  ClickInvalidReason,
  ClickOutcome,
  CandidateState,
  ClickRequest,
  countersLeaveBudget,
  FrequencyCap,
  HeldLeases,
  ImpressionCandidate,
  IMPRESSION_WINDOW_MS,
  isExcluded,
  PreviewRequest,
  ReserveRequest,
  ReserveResult,
  ServingPreview,
  ServingState,
  USER_CAP_WINDOW_MS,
  ViewOutcome,
  ViewRequest,
  CompletionOutcome,
  CompletionRequest,
} from './serving-state';

const SWEEP_EVERY_MS = 60_000;
/**
 * Marks looked at per call at the most while a sweep is under way (a user whose marks cannot have expired yet counts
 * as one). A whole sweep in one call held the event loop for tens of ms (docs/PERFORMANCE.md#the-embedded-serving-state),
 * and grows with a day's traffic.
 */
export const SWEEP_MARKS_PER_CALL = 2000;

/**
 * Serving state in process memory, for the embedded profile (one process). Every method runs without an
 * await in between, so each is atomic on Node's single thread, like the Lua scripts of the Redis version.
 *
 * The state is nested by user, then block, then ad, rather than keyed by composed strings: a request's user and
 * block are looked up once, and the ad and campaign ids come from the campaign index, whose strings keep their hash.
 * Composing and hashing a fresh key for every mark and counter cost a ninth of the ad fetch's CPU.
 */
export class MemoryServingState implements ServingState {
  private readonly budgets = new Map<string, Budget>();
  private readonly users = new Map<string, UserState>();
  private lastSweep = 0;
  /** The users still to look at in the sweep under way, or null between sweeps. */
  private sweeping: IterableIterator<[string, UserState]> | null = null;

  /** One process bills straight from the counters: no leases. */
  heldLeases(): HeldLeases {
    return { leases: 0, remainingMicros: 0 };
  }

  async reserveImpressions(request: ReserveRequest, candidates: ImpressionCandidate[]): Promise<ReserveResult> {
    this.sweep(request.now);
    const served: number[] = [];
    const exhausted: number[] = [];
    const heldBack: number[] = [];
    const { now } = request;
    // Read from what exists; a user, block or log is created only to hold a mark (so a sweep never finds one empty).
    let user = this.users.get(request.userId);
    let block = user?.blocks.get(request.adBlockId);
    const userCap = request.userImpressionsPerHour ?? 0;
    let userImpressions = userCap > 0 && block?.userLog ? recentImpressions(block.userLog, USER_CAP_WINDOW_MS, now).times.length : 0;
    for (let i = 0; i < candidates.length && served.length < request.limit; i++) {
      if (userCap > 0 && userImpressions >= userCap) break;
      const candidate = candidates[i];
      if (isExcluded(user?.excluded?.get(candidate.adId), now)) continue;
      const cap = candidate.frequencyCap;
      if (cap && capReached(user?.caps.get(candidate.adId), cap, now)) continue;
      const budget = this.budget(candidate);
      if (!leavesBudget(budget, candidate, candidate.day)) {
        exhausted.push(i);
        continue;
      }
      if (candidate.pace) {
        const daySpent = dayCounter(budget, candidate, candidate.day);
        if (daySpent >= paceLimit(candidate, budget.spent, daySpent, now)) {
          heldBack.push(i);
          continue;
        }
      }
      if (!request.invalid) spend(budget, candidate, candidate.day, candidate.priceMicros);
      user ??= this.userState(request.userId);
      block ??= blockState(user, request.adBlockId);
      block.served.set(candidate.adId, now);
      if (request.invalid) (block.invalidServed ??= new Map()).set(candidate.adId, now);
      else block.invalidServed?.delete(candidate.adId);
      sweepNoLaterThan(user, now + IMPRESSION_WINDOW_MS);
      if (cap) logCappedImpression(user, candidate.adId, cap.windowMs, now);
      if (userCap > 0) {
        block.userLog ??= { windowMs: USER_CAP_WINDOW_MS, times: [] };
        block.userLog.times.push(now);
        sweepNoLaterThan(user, now + USER_CAP_WINDOW_MS);
        userImpressions++;
      }
      served.push(i);
    }
    return { served, exhausted, heldBack, userCapped: userCap > 0 && userImpressions >= userCap };
  }

  async preview(request: PreviewRequest, candidates: ImpressionCandidate[]): Promise<ServingPreview> {
    const { userId, adBlockId, now } = request;
    const user = userId === null ? undefined : this.users.get(userId);
    const userLog = adBlockId === null ? undefined : user?.blocks.get(adBlockId)?.userLog;
    return {
      userImpressionsInHour: userLog ? countRecent(userLog.times, USER_CAP_WINDOW_MS, now) : 0,
      candidates: candidates.map((candidate): CandidateState => {
        const budget = this.budgets.get(candidate.campaignId);
        const capLog = candidate.frequencyCap ? user?.caps.get(candidate.adId) : undefined;
        return {
          excludedUntil: user?.excluded?.get(candidate.adId) ?? null,
          cappedImpressions: capLog && candidate.frequencyCap ? countRecent(capLog.times, candidate.frequencyCap.windowMs, now) : 0,
          spentMicros: budget?.spent ?? candidate.knownSpentMicros,
          daySpentMicros: budget?.days.get(candidate.day) ?? candidate.knownDaySpentMicros,
          leasedMicros: 0,
          leaseCoversUnit: false,
        };
      }),
    };
  }

  async registerClick(request: ClickRequest): Promise<ClickOutcome> {
    const user = this.users.get(request.userId);
    const block = user?.blocks.get(request.adBlockId);
    const servedAt = block?.served.get(request.adId);
    if (user === undefined || block === undefined || servedAt === undefined || request.now - servedAt >= IMPRESSION_WINDOW_MS) {
      return { kind: 'noImpression' };
    }
    // The mark holds when the clicked impression was served: a later serve is a new impression with a click of its own.
    if (block.clicked?.get(request.adId) === servedAt) return { kind: 'duplicate' };

    let invalidReason: ClickInvalidReason | null = null;
    if (request.invalidRequest) invalidReason = 'request';
    else if (block.invalidServed?.get(request.adId) === servedAt) invalidReason = 'invalidImpression';
    else if (request.now - servedAt < (request.minDelayMs ?? 0)) invalidReason = 'tooSoon';
    let status: BoundClickStatus = invalidReason ? 'invalid' : request.billable === false ? 'unbilled' : 'counted';

    const budget = this.budget(request);
    let costMicros = 0;
    if (status === 'counted' && request.priceMicros > 0) {
      if (leavesBudget(budget, request, request.day)) {
        costMicros = request.priceMicros;
        spend(budget, request, request.day, costMicros);
      } else {
        status = 'unbilled';
      }
    }
    const budgetSpent = request.priceMicros > 0 && !leavesBudget(budget, request, request.day);
    (block.clicked ??= new Map()).set(request.adId, servedAt);
    sweepNoLaterThan(user, servedAt + IMPRESSION_WINDOW_MS);
    if (request.exclusionMs > 0) {
      (user.excluded ??= new Map()).set(request.adId, request.now + request.exclusionMs);
      sweepNoLaterThan(user, request.now + request.exclusionMs);
    }
    return { kind: 'counted', status, invalidReason, costMicros, budgetSpent };
  }

  async registerView(request: ViewRequest): Promise<ViewOutcome> {
    const user = this.users.get(request.userId);
    const block = user?.blocks.get(request.adBlockId);
    const servedAt = block?.served.get(request.adId);
    if (user === undefined || block === undefined || servedAt === undefined || request.now - servedAt >= IMPRESSION_WINDOW_MS) return 'noImpression';
    if (block.viewed?.get(request.adId) === servedAt) return 'duplicate';
    (block.viewed ??= new Map()).set(request.adId, servedAt);
    sweepNoLaterThan(user, servedAt + IMPRESSION_WINDOW_MS);
    const invalid = request.invalidRequest === true || block.invalidServed?.get(request.adId) === servedAt;
    return invalid ? 'invalid' : 'counted';
  }

  async registerCompletion(request: CompletionRequest): Promise<CompletionOutcome> {
    const user = this.users.get(request.userId);
    const block = user?.blocks.get(request.adBlockId);
    const servedAt = block?.served.get(request.adId);
    if (user === undefined || block === undefined || servedAt === undefined || request.now - servedAt >= IMPRESSION_WINDOW_MS) return { kind: 'noImpression' };
    if (block.completed?.get(request.adId) === servedAt) return { kind: 'duplicate' };
    if (request.now - servedAt < request.minViewMs) return { kind: 'tooSoon' };
    (block.completed ??= new Map()).set(request.adId, servedAt);
    sweepNoLaterThan(user, servedAt + IMPRESSION_WINDOW_MS);
    const invalid = request.invalidRequest === true || block.invalidServed?.get(request.adId) === servedAt;
    return { kind: invalid ? 'invalid' : 'counted', servedAt };
  }

  /** Nothing to settle: in one process a crash takes the counters with it (they are re-seeded from the database). */
  async clickCommitted(_request: ClickRequest): Promise<void> {}

  /** Kept bound: SQLite's synchronous transactions leave no outcome unknown, but the contract is the same. */
  clickOutcomeUnknown(_request: ClickRequest): void {}

  async undoClick(request: ClickRequest, costMicros: number): Promise<void> {
    if (costMicros > 0) spend(this.budget(request), request, request.day, -costMicros);
    const user = this.users.get(request.userId);
    user?.blocks.get(request.adBlockId)?.clicked?.delete(request.adId);
    if (request.exclusionMs > 0) user?.excluded?.delete(request.adId);
  }

  private userState(userId: string): UserState {
    let user = this.users.get(userId);
    if (user === undefined) {
      user = { blocks: new Map(), caps: new Map(), excluded: null, sweepAt: Infinity };
      this.users.set(userId, user);
    }
    return user;
  }

  private budget(facts: BudgetFacts): Budget {
    let budget = this.budgets.get(facts.campaignId);
    if (budget === undefined) {
      budget = { spent: facts.knownSpentMicros, days: new Map() };
      this.budgets.set(facts.campaignId, budget);
    }
    return budget;
  }

  /** How many users the state holds marks or logs of. */
  get userCount(): number {
    return this.users.size;
  }

  /** Whether a sweep has started and not yet looked at every user. */
  get sweepUnderWay(): boolean {
    return this.sweeping !== null;
  }

  /**
   * Forgets marks that can no longer matter, so memory stays bounded by a day of traffic. Every SWEEP_EVERY_MS a
   * sweep starts; it goes on a slice per call (SWEEP_MARKS_PER_CALL), each call atomic like the rest.
   */
  private sweep(now: number): void {
    if (this.sweeping === null) {
      if (now - this.lastSweep < SWEEP_EVERY_MS) return;
      this.lastSweep = now;
      this.sweeping = this.users.entries();
      // Budget days are keyed by their start (dayKeyOf): a day that began two days ago has ended in every zone.
      const ended = dayKeyOf(now - 2 * DAY_MS);
      for (const budget of this.budgets.values()) {
        for (const day of budget.days.keys()) if (day < ended) budget.days.delete(day);
      }
    }
    for (let looked = 0; looked < SWEEP_MARKS_PER_CALL;) {
      const next = this.sweeping.next();
      if (next.done) {
        this.sweeping = null;
        return;
      }
      const [userId, user] = next.value;
      looked += 1;
      // Nothing of this user's can have expired yet: its marks are not looked at one by one. Most users of a day
      // are such (an impression's mark lasts 24 h, the sweep comes every minute), so the sweep costs about one look
      // per user rather than one per mark, whose slices, on the first requests after a quiet minute, held the event
      // loop for tens of ms at 2,000 requests a second (docs/PERFORMANCE.md#the-embedded-serving-state).
      if (user.sweepAt > now) continue;
      looked += sweepUser(user, now);
      if (user.blocks.size === 0 && user.caps.size === 0 && user.excluded === null) this.users.delete(userId);
    }
  }
}

/**
 * Forgets one user's marks that can no longer matter, and notes when the soonest of those left expires (the next
 * sweep looks at the user again only from then on); answers how many marks it looked at.
 */
function sweepUser(user: UserState, now: number): number {
  let looked = 0;
  let soonest = Infinity;
  if (user.excluded !== null) {
    looked += user.excluded.size;
    for (const [adId, until] of user.excluded) {
      if (until <= now) user.excluded.delete(adId);
      else if (until < soonest) soonest = until;
    }
    if (user.excluded.size === 0) user.excluded = null;
  }
  looked += user.caps.size;
  for (const [adId, log] of user.caps) {
    if (isStale(log, now)) user.caps.delete(adId);
    else soonest = Math.min(soonest, staleFrom(log));
  }
  for (const [adBlockId, block] of user.blocks) {
    for (const marks of [block.served, block.invalidServed, block.clicked, block.viewed, block.completed]) {
      if (!marks) continue;
      looked += marks.size;
      for (const [adId, time] of marks) {
        if (now - time >= IMPRESSION_WINDOW_MS) marks.delete(adId);
        else if (time + IMPRESSION_WINDOW_MS < soonest) soonest = time + IMPRESSION_WINDOW_MS;
      }
    }
    if (block.userLog && isStale(block.userLog, now)) block.userLog = null;
    if (block.userLog) soonest = Math.min(soonest, staleFrom(block.userLog));
    if (
      block.served.size === 0 &&
      !block.invalidServed?.size &&
      !block.clicked?.size &&
      !block.viewed?.size &&
      !block.completed?.size &&
      block.userLog === null
    ) {
      user.blocks.delete(adBlockId);
    }
  }
  user.sweepAt = soonest;
  return looked;
}

/**
 * The sweep must look at this user's marks from `at` on (something of it expires then). Every write of a mark or
 * log calls it, so `sweepAt` is never later than the soonest expiry; earlier only costs a look.
 */
function sweepNoLaterThan(user: UserState, at: number): void {
  if (at < user.sweepAt) user.sweepAt = at;
}

/** A campaign's budget counters: spent in all, and per UTC day (each seeded from the database's figures). */
interface Budget {
  spent: number;
  days: Map<string, number>;
}

interface UserState {
  blocks: Map<string, BlockState>;
  /** ad id -> the user's impressions of its capped campaign, within the cap's window */
  caps: Map<string, ImpressionLog>;
  /** ad id -> until when it is hidden from the user after a click (rule 6) */
  excluded: Map<string, number> | null;
  /** From when the sweep must look at the user's marks: no later than the soonest of them expires. */
  sweepAt: number;
}

/** What happened to one user on one block; each map is ad id -> when the impression concerned was served. */
interface BlockState {
  served: Map<string, number>;
  /** impressions served as invalid traffic */
  invalidServed: Map<string, number> | null;
  /** the impression a click used up: it takes no second click */
  clicked: Map<string, number> | null;
  /** the impression whose view was reported: it takes no second view */
  viewed: Map<string, number> | null;
  /** the impression whose completion was counted: it takes no second one */
  completed?: Map<string, number> | null;
  /** when ads were served to the user on the block within the last hour (USER_IMPRESSIONS_PER_HOUR) */
  userLog: ImpressionLog | null;
}

interface ImpressionLog {
  windowMs: number;
  /** ms, ascending */
  times: number[];
}

function blockState(user: UserState, adBlockId: string): BlockState {
  let block = user.blocks.get(adBlockId);
  if (block === undefined) {
    block = { served: new Map(), invalidServed: null, clicked: null, viewed: null, userLog: null };
    user.blocks.set(adBlockId, block);
  }
  return block;
}

function dayCounter(budget: Budget, facts: BudgetFacts, day: string): number {
  let spent = budget.days.get(day);
  if (spent === undefined) {
    spent = facts.knownDaySpentMicros;
    budget.days.set(day, spent);
  }
  return spent;
}

function leavesBudget(budget: Budget, facts: BudgetFacts, day: string): boolean {
  return countersLeaveBudget(facts, budget.spent, dayCounter(budget, facts, day));
}

function spend(budget: Budget, facts: BudgetFacts, day: string, micros: number): void {
  budget.spent += micros;
  budget.days.set(day, dayCounter(budget, facts, day) + micros);
}

/** How many of `times` are within `windowMs` (the log left as it is). */
function countRecent(times: number[], windowMs: number, now: number): number {
  let recent = 0;
  for (const time of times) if (now - time < windowMs) recent++;
  return recent;
}

/** Whether the user's impressions of this capped ad within the cap's window reach its cap (its log trimmed to them). */
function capReached(log: ImpressionLog | undefined, cap: FrequencyCap, now: number): boolean {
  const recent = log === undefined ? 0 : recentImpressions(log, cap.windowMs, now).times.length;
  return recent >= cap.impressions;
}

/** Adds an impression at `now` to the user's log of this capped ad. */
function logCappedImpression(user: UserState, adId: string, windowMs: number, now: number): void {
  let log = user.caps.get(adId);
  if (log === undefined) {
    log = { windowMs, times: [] };
    user.caps.set(adId, log);
  }
  log.times.push(now);
  sweepNoLaterThan(user, now + windowMs);
}

/** The log without the impressions older than `windowMs`. */
function recentImpressions(log: ImpressionLog, windowMs: number, now: number): ImpressionLog {
  log.windowMs = windowMs;
  let expired = 0;
  while (expired < log.times.length && now - log.times[expired] >= windowMs) expired++;
  if (expired > 0) log.times.splice(0, expired);
  return log;
}

function isStale(log: ImpressionLog, now: number): boolean {
  return now >= staleFrom(log);
}

/** When the log's newest impression leaves its window (an empty log is stale already). */
function staleFrom(log: ImpressionLog): number {
  const newest = log.times[log.times.length - 1];
  return newest === undefined ? -Infinity : newest + log.windowMs;
}
