import type Redis from 'ioredis';
import { Lease } from './budget-leases';
import { HolderLostError, RedisLeaseHolder } from './redis-lease-holder';
import { defineScript } from './scripts/load-script';
import {
  ImpressionCandidate,
  IMPRESSION_WINDOW_MS,
  PreviewRequest,
  ReserveRequest,
  ReserveResult,
  ServingPreview,
  stateKeys,
  USER_CAP_WINDOW_MS,
} from './serving-state';

const SERVED_TTL_MS = IMPRESSION_WINDOW_MS + 60 * 60 * 1000;
/** The served hash's field holding when ads were served to its (user, block) within the hour (never an ad id). */
const USER_LOG_FIELD = '#hour';

type ServeScript = Redis & {
  adnetServeMany(numKeys: number, ...args: (string | number)[]): Promise<[number[], number][] | -1>;
};

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
    /** '' or "i:impressions:windowMs" per capped candidate (1-based), see serve-many.lua */
    caps: string;
    invalid: boolean;
    adIds: string[];
    leases: (Lease | null)[];
  };
  resolve: (answer: ServeAnswer) => void;
  reject: (error: unknown) => void;
}

/**
 * Ad requests on the Redis serving state: CPM units billed from the holder's leases in memory, then one serve
 * script (exclusions, caps, served marks) per turn of the event loop for every request in it.
 */
export class RedisServeState {
  private readonly redis: ServeScript;
  private pendingServes: PendingServe[] = [];

  constructor(
    redis: Redis,
    private readonly holder: RedisLeaseHolder,
  ) {
    defineScript(redis, 'adnetServeMany', 'serve-many', { USER_LOG_FIELD, USER_CAP_WINDOW_MS });
    this.redis = redis as ServeScript;
  }

  async reserveImpressions(request: ReserveRequest, candidates: ImpressionCandidate[]): Promise<ReserveResult> {
    this.holder.ensureSweeper();
    try {
      return await this.reserve(request, candidates);
    } catch (error) {
      // The holder was lost between taking units and serving them: once more, with fresh leases.
      if (error instanceof HolderLostError) return this.reserve(request, candidates);
      throw error;
    }
  }

  /**
   * Reads what the serve script and the leases decide on, in one pipelined round trip, writing nothing: the user's
   * hourly log on the block, the exclusions and frequency-cap logs of the candidates' ads, the shared budget
   * counters (what they hold, or the spend the database knew when they hold nothing yet, as the lease script seeds
   * them) and this process's leases.
   */
  async preview(request: PreviewRequest, candidates: ImpressionCandidate[]): Promise<ServingPreview> {
    const { userId, adBlockId, now, day } = request;
    const adIds = candidates.map((candidate) => candidate.adId);
    const pipeline = this.redis.pipeline();
    const perUser = userId !== null && adIds.length > 0;
    if (userId !== null && adBlockId !== null) pipeline.hget(stateKeys.servedAds(userId, adBlockId), USER_LOG_FIELD);
    if (perUser) {
      pipeline.hmget(stateKeys.excludedAds(userId), ...adIds);
      pipeline.hmget(stateKeys.cappedImpressions(userId), ...adIds);
    }
    for (const candidate of candidates) {
      pipeline.get(stateKeys.spent(candidate.campaignId));
      pipeline.get(stateKeys.daySpent(candidate.campaignId, day));
    }
    const answers = (await pipeline.exec()) ?? [];
    for (const [error] of answers) if (error) throw error;
    const values = answers.map(([, value]) => value);
    let next = 0;
    const userLog = userId !== null && adBlockId !== null ? (values[next++] as string | null) : null;
    const excluded = perUser ? (values[next++] as (string | null)[]) : [];
    const capped = perUser ? (values[next++] as (string | null)[]) : [];
    const wallNow = Date.now();
    return {
      userImpressionsInHour: countRecent(userLog, now, USER_CAP_WINDOW_MS),
      candidates: candidates.map((candidate, i) => {
        const spent = values[next + 2 * i] as string | null;
        const daySpent = values[next + 2 * i + 1] as string | null;
        return {
          excludedUntil: excluded[i] ? Number(excluded[i]) : null,
          cappedImpressions: candidate.frequencyCap ? countRecent(capped[i] ?? null, now, candidate.frequencyCap.windowMs) : 0,
          spentMicros: spent === null ? candidate.knownSpentMicros : Number(spent),
          daySpentMicros: daySpent === null ? candidate.knownDaySpentMicros : Number(daySpent),
          leasedMicros: this.holder.heldMicros(candidate.campaignId, day),
          leaseCoversUnit: this.holder.take(candidate, day, wallNow, true) !== null,
        };
      }),
    };
  }

  private async reserve(request: ReserveRequest, candidates: ImpressionCandidate[]): Promise<ReserveResult> {
    const wallNow = Date.now();
    this.holder.renewIfUntrusted(wallNow);

    // Bill every candidate from its lease tentatively (the script then picks those not excluded); candidates
    // without enough lease ask for one, all of them in one script call. Invalid traffic bills nothing: it only
    // looks whether a lease covers a unit (budget is left), and takes none.
    const lookOnly = request.invalid === true;
    const taken: (Lease | null)[] = new Array<Lease | null>(candidates.length).fill(null);
    let lacking = false;
    for (let i = 0; i < candidates.length; i++) {
      taken[i] = this.holder.take(candidates[i], request.day, wallNow, lookOnly);
      if (taken[i] === null) lacking = true;
    }
    const exhausted = lacking ? await this.holder.leaseLacking(candidates, taken, request.day, wallNow, lookOnly) : [];

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
        else this.holder.giveBack(taken[offered[k]]!, candidates[offered[k]].priceMicros);
      }
    }
    const served = new Array<number>(chosen.length);
    for (let k = 0; k < chosen.length; k++) served[k] = offered[chosen[k]];
    await this.holder.returnLeasesIfClosing();
    return { served, exhausted, userCapped };
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
    const holderId = this.holder.id;
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
          this.holder.lost(holderId);
          batch.forEach(({ reject }) => reject(new HolderLostError()));
          return;
        }
        batch.forEach(({ resolve }, i) => resolve({ chosen: answers[i][0], userCapped: answers[i][1] === 1 }));
      },
      (error: unknown) => batch.forEach(({ reject }) => reject(error)),
    );
  }
}

/** How many times of an impression log (ms timestamps joined by spaces, see serve-many.lua) are within the window. */
function countRecent(log: string | null, now: number, windowMs: number): number {
  if (!log) return 0;
  let recent = 0;
  for (const time of log.split(' ')) if (Number(time) > now - windowMs) recent++;
  return recent;
}
