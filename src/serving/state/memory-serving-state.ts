import {
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
  stateKeys,
  USER_CAP_WINDOW_MS,
  ViewOutcome,
  ViewRequest,
} from './serving-state';

const SWEEP_EVERY_MS = 60_000;

/**
 * Serving state in process memory, for the embedded profile (one process). Every method runs without an
 * await in between, so each is atomic on Node's single thread, like the Lua scripts of the Redis version.
 */
export class MemoryServingState implements ServingState {
  private readonly counters = new Map<string, number>();
  /** key -> time (ms): when an impression was served / a click counted / until when an ad is excluded */
  private readonly marks = new Map<string, number>();
  /** key -> when impressions counted by a cap were served, oldest first, only those within its window */
  private readonly impressionLogs = new Map<string, ImpressionLog>();
  private lastSweep = 0;

  /** One process bills straight from the counters: no leases. */
  heldLeases(): HeldLeases {
    return { leases: 0, remainingMicros: 0 };
  }

  async reserveImpressions(request: ReserveRequest, candidates: ImpressionCandidate[]): Promise<ReserveResult> {
    this.sweep(request.now);
    const served: number[] = [];
    const exhausted: number[] = [];
    const userCap = request.userImpressionsPerHour ?? 0;
    const userLog =
      userCap > 0 ? this.recentImpressions(stateKeys.userImpressionLog(request.userId, request.adBlockId), USER_CAP_WINDOW_MS, request.now) : null;
    for (let i = 0; i < candidates.length && served.length < request.limit; i++) {
      if (userLog !== null && userLog.times.length >= userCap) break;
      const candidate = candidates[i];
      if (isExcluded(this.marks.get(stateKeys.excluded(request.userId, candidate.adId)), request.now)) continue;
      const capLog = candidate.frequencyCap ? this.recentImpressionsUnder(request, candidate.adId, candidate.frequencyCap) : null;
      if (capLog === undefined) continue;
      if (!this.hasBudget(candidate, request.day)) {
        exhausted.push(i);
        continue;
      }
      if (!request.invalid) this.spend(candidate.campaignId, request.day, candidate.priceMicros);
      const servedKey = stateKeys.served(request.userId, request.adBlockId, candidate.adId);
      this.marks.set(servedKey, request.now);
      if (request.invalid) this.marks.set(stateKeys.invalidServed(servedKey), request.now);
      else this.marks.delete(stateKeys.invalidServed(servedKey));
      capLog?.times.push(request.now);
      userLog?.times.push(request.now);
      served.push(i);
    }
    return { served, exhausted, userCapped: userLog !== null && userLog.times.length >= userCap };
  }

  async preview(request: PreviewRequest, candidates: ImpressionCandidate[]): Promise<ServingPreview> {
    const { userId, adBlockId, now } = request;
    const userImpressionsInHour =
      userId !== null && adBlockId !== null ? this.countRecent(stateKeys.userImpressionLog(userId, adBlockId), USER_CAP_WINDOW_MS, now) : 0;
    return {
      userImpressionsInHour,
      candidates: candidates.map((candidate): CandidateState => ({
        excludedUntil: userId === null ? null : (this.marks.get(stateKeys.excluded(userId, candidate.adId)) ?? null),
        cappedImpressions:
          userId !== null && candidate.frequencyCap
            ? this.countRecent(stateKeys.cappedImpressionLog(userId, candidate.adId), candidate.frequencyCap.windowMs, now)
            : 0,
        spentMicros: this.counters.get(stateKeys.spent(candidate.campaignId)) ?? candidate.knownSpentMicros,
        daySpentMicros: this.counters.get(stateKeys.daySpent(candidate.campaignId, request.day)) ?? candidate.knownDaySpentMicros,
        leasedMicros: 0,
        leaseCoversUnit: false,
      })),
    };
  }

  /** How many impressions of the log under `key` are within `windowMs` (the log left as it is). */
  private countRecent(key: string, windowMs: number, now: number): number {
    const times = this.impressionLogs.get(key)?.times ?? [];
    let recent = 0;
    for (const time of times) if (now - time < windowMs) recent++;
    return recent;
  }

  /** The user's log of this capped ad, or undefined when the cap is reached. */
  private recentImpressionsUnder(request: ReserveRequest, adId: string, cap: FrequencyCap): ImpressionLog | undefined {
    const log = this.recentImpressions(stateKeys.cappedImpressionLog(request.userId, adId), cap.windowMs, request.now);
    return log.times.length < cap.impressions ? log : undefined;
  }

  /** The log under `key` without the impressions older than `windowMs`. */
  private recentImpressions(key: string, windowMs: number, now: number): ImpressionLog {
    let log = this.impressionLogs.get(key);
    if (log === undefined) {
      log = { windowMs, times: [] };
      this.impressionLogs.set(key, log);
    }
    log.windowMs = windowMs;
    let expired = 0;
    while (expired < log.times.length && now - log.times[expired] >= windowMs) expired++;
    if (expired > 0) log.times.splice(0, expired);
    return log;
  }

  async registerClick(request: ClickRequest): Promise<ClickOutcome> {
    const servedKey = stateKeys.served(request.userId, request.adBlockId, request.adId);
    const servedAt = this.marks.get(servedKey);
    if (servedAt === undefined || request.now - servedAt >= IMPRESSION_WINDOW_MS) return { kind: 'noImpression' };
    const clickedKey = stateKeys.clicked(request.userId, request.adBlockId, request.adId);
    // The mark holds when the clicked impression was served: a later serve is a new impression with a click of its own.
    if (this.marks.get(clickedKey) === servedAt) return { kind: 'duplicate' };

    let invalidReason: ClickInvalidReason | null = null;
    if (request.invalidRequest) invalidReason = 'request';
    else if (this.marks.get(stateKeys.invalidServed(servedKey)) === servedAt) invalidReason = 'invalidImpression';
    else if (request.now - servedAt < (request.minDelayMs ?? 0)) invalidReason = 'tooSoon';
    let status: BoundClickStatus = invalidReason ? 'invalid' : request.billable === false ? 'unbilled' : 'counted';

    let costMicros = 0;
    if (status === 'counted' && request.priceMicros > 0) {
      if (this.hasBudget(request, request.day)) {
        costMicros = request.priceMicros;
        this.spend(request.campaignId, request.day, costMicros);
      } else {
        status = 'unbilled';
      }
    }
    const budgetSpent = request.priceMicros > 0 && !this.hasBudget(request, request.day);
    this.marks.set(clickedKey, servedAt);
    if (request.exclusionMs > 0) {
      this.marks.set(stateKeys.excluded(request.userId, request.adId), request.now + request.exclusionMs);
    }
    return { kind: 'counted', status, invalidReason, costMicros, budgetSpent };
  }

  async registerView(request: ViewRequest): Promise<ViewOutcome> {
    const servedKey = stateKeys.served(request.userId, request.adBlockId, request.adId);
    const servedAt = this.marks.get(servedKey);
    if (servedAt === undefined || request.now - servedAt >= IMPRESSION_WINDOW_MS) return 'noImpression';
    const viewedKey = stateKeys.viewed(request.userId, request.adBlockId, request.adId);
    if (this.marks.get(viewedKey) === servedAt) return 'duplicate';
    this.marks.set(viewedKey, servedAt);
    const invalid = request.invalidRequest === true || this.marks.get(stateKeys.invalidServed(servedKey)) === servedAt;
    return invalid ? 'invalid' : 'counted';
  }

  /** Nothing to settle: in one process a crash takes the counters with it (they are re-seeded from the database). */
  async clickCommitted(_request: ClickRequest): Promise<void> {}

  async undoClick(request: ClickRequest, costMicros: number): Promise<void> {
    if (costMicros > 0) this.spend(request.campaignId, request.day, -costMicros);
    this.marks.delete(stateKeys.clicked(request.userId, request.adBlockId, request.adId));
    if (request.exclusionMs > 0) this.marks.delete(stateKeys.excluded(request.userId, request.adId));
  }

  private hasBudget(facts: BudgetFacts, day: string): boolean {
    const spent = this.counter(stateKeys.spent(facts.campaignId), facts.knownSpentMicros);
    const daySpent = this.counter(stateKeys.daySpent(facts.campaignId, day), facts.knownDaySpentMicros);
    return countersLeaveBudget(facts, spent, daySpent);
  }

  private spend(campaignId: string, day: string, micros: number): void {
    for (const key of [stateKeys.spent(campaignId), stateKeys.daySpent(campaignId, day)]) {
      this.counters.set(key, (this.counters.get(key) ?? 0) + micros);
    }
  }

  private counter(key: string, seed: number): number {
    let value = this.counters.get(key);
    if (value === undefined) {
      value = seed;
      this.counters.set(key, value);
    }
    return value;
  }

  /** Forgets marks that can no longer matter, so memory stays bounded by a day of traffic. */
  private sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    for (const [key, time] of this.marks) {
      const expired = key.startsWith('excl:') ? time <= now : now - time >= IMPRESSION_WINDOW_MS;
      if (expired) this.marks.delete(key);
    }
    for (const [key, log] of this.impressionLogs) {
      const newest = log.times[log.times.length - 1];
      if (newest === undefined || now - newest >= log.windowMs) this.impressionLogs.delete(key);
    }
    const today = new Date(now).toISOString().slice(0, 10);
    for (const key of this.counters.keys()) {
      if (key.startsWith('dspend:') && key.slice(-10) < today) this.counters.delete(key);
    }
  }
}

interface ImpressionLog {
  windowMs: number;
  /** ms, ascending */
  times: number[];
}
