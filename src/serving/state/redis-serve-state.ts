import type { Redis } from 'ioredis';
import { groupBySlot } from '../../redis/hash-slot';
import { EncodedArguments, EncodedScript, ListedArguments } from '../../redis/encoded-script';
import type { RedisClient } from '../../redis/redis.module';
import { Lease, leaseField } from './budget-leases';
import { HolderLostError, RedisLeaseHolder } from './redis-lease-holder';
import { defineScript, loadScript } from './scripts/load-script';
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

/** serve-many.lua's answer: per request [positions served, 1 when the user's hourly cap is reached], per bill entry its shortfall. */
type ServeManyReply = [[number[], number][], number[]];

type ServeScript = RedisClient & {
  adnetServeMany(numKeys: number, ...args: (string | number)[]): Promise<ServeManyReply>;
  adnetBill(numKeys: number, ...args: (string | number)[]): Promise<number[]>;
};

/** The serve script's answer to one request: positions served, and whether the user's hourly cap is reached. */
interface ServeAnswer {
  chosen: number[];
  userCapped: boolean;
}

/** What one campaign's lease bills in a serve call: its unit price for each impression served from it. */
interface BillEntry {
  lease: Lease;
  micros: number;
}

interface PendingServe {
  serve: {
    excludedKey: string;
    servedKey: string;
    cappedKey: string;
    now: number;
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
 * script (exclusions, caps, served marks) per turn of the event loop for every request in it, which on a single Redis
 * server also takes what they served off the holder's fields in the campaigns' leases hashes. On a Redis Cluster the
 * serve script runs per user slot and a bill script per campaign slot follows it (a script's keys share one slot).
 */
export class RedisServeState {
  private readonly redis: ServeScript;
  /** serve-many.lua with its arguments encoded here, on a single Redis server (see EncodedScript). */
  private readonly serveMany: EncodedScript;
  private pendingServes: PendingServe[] = [];
  private sendScheduled = false;

  constructor(
    redis: RedisClient,
    private readonly holder: RedisLeaseHolder,
  ) {
    const BILL_LEASE = loadScript('bill-lease');
    const serveValues = { USER_LOG_FIELD, USER_CAP_WINDOW_MS, BILL_LEASE };
    defineScript(redis, 'adnetServeMany', 'serve-many', serveValues);
    this.serveMany = new EncodedScript(loadScript('serve-many', serveValues));
    defineScript(redis, 'adnetBill', 'bill', { BILL_LEASE });
    // No auto-pipelining for the serve call, which already carries every request of its turn (serveBatched): the
    // encoded call goes through sendCommand, which never pipelines, and a cluster client has it off (redis.module.ts).
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
    // each command on its own (the client pipelines those of one tick per node): a cluster pipeline must stay in one slot
    const reads: Promise<unknown>[] = [];
    const perUser = userId !== null && adIds.length > 0;
    if (userId !== null && adBlockId !== null) reads.push(this.redis.hget(stateKeys.servedAds(userId, adBlockId), USER_LOG_FIELD));
    if (perUser) {
      reads.push(this.redis.hmget(stateKeys.excludedAds(userId), ...adIds));
      reads.push(this.redis.hmget(stateKeys.cappedImpressions(userId), ...adIds));
    }
    for (const candidate of candidates) {
      reads.push(this.redis.get(stateKeys.spent(candidate.campaignId)));
      reads.push(this.redis.get(stateKeys.daySpent(candidate.campaignId, day)));
    }
    const values = await Promise.all(reads);
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
    if (this.holder.isClosing) await this.holder.returnLeasesIfClosing();
    return { served, exhausted, userCapped };
  }

  /**
   * The serve script of every request handled in this turn of the event loop, one call per user slot (all of them on
   * one Redis server): one command for the client to build and Redis to run instead of one per request (a tenth of
   * the ad route's CPU went to the Redis client). Each request still gets exactly its own answer; a failed call fails
   * every request in it.
   */
  private serveBatched(serve: PendingServe['serve']): Promise<ServeAnswer> {
    return new Promise((resolve, reject) => {
      this.pendingServes.push({ serve, resolve, reject });
      this.scheduleSend();
    });
  }

  /** At the end of this turn of the event loop, the serve scripts of the requests read in it go out, one call per slot. */
  private scheduleSend(): void {
    if (this.sendScheduled) return;
    this.sendScheduled = true;
    setImmediate(() => {
      this.sendScheduled = false;
      this.sendServes();
    });
  }

  private sendServes(): void {
    if (this.pendingServes.length === 0) return;
    const holderId = this.holder.id;
    const batch: PendingServe[] = [];
    for (const pending of this.pendingServes) {
      // billed from leases of a holder given up meanwhile: those requests ask again under the new one
      if (pending.serve.leases.every((lease) => lease === null || lease.holderId === holderId)) batch.push(pending);
      else pending.reject(new HolderLostError());
    }
    this.pendingServes = [];
    if (batch.length === 0) return;
    const groups = this.redis.isCluster ? groupBySlot(batch, (pending) => pending.serve.servedKey) : [batch];
    for (const group of groups) void this.serveGroup(group);
  }

  /**
   * One serve script for requests of one slot; answers each request. On a single Redis server the same call bills what
   * it served off the leases (one round trip and one script where a cluster needs two: at an even 2,000 req/s it
   * halved the service's Redis socket writes, docs/PERFORMANCE.md); on a cluster the bill scripts follow.
   */
  private async serveGroup(group: PendingServe[]): Promise<void> {
    const billHere = !this.redis.isCluster;
    // The keys go first in a script call: each request's three, then each bill entry's; the arguments after them.
    const call = billHere ? new EncodedArguments(this.redis.options.keyPrefix ?? '') : new ListedArguments();
    call.arg(SERVED_TTL_MS);
    call.arg(group.length);
    call.arg(billHere ? '1' : '0');
    const entries: BillEntry[] = [];
    const entryOf = new Map<Lease, number>();
    for (const { serve } of group) {
      call.key(serve.excludedKey);
      call.key(serve.servedKey);
      call.key(serve.cappedKey);
      call.arg(serve.now);
      call.arg(serve.limit);
      call.arg(serve.userCap);
      call.arg(serve.caps);
      call.arg(serve.invalid ? '1' : '0');
      call.arg(serve.adIds.length);
      for (const adId of serve.adIds) call.recurringArg(adId);
      if (!billHere) continue;
      for (const lease of serve.leases) {
        if (lease === null) {
          call.arg(0);
          continue;
        }
        // One entry per lease object: a lease replaced within the turn gets an entry of its own for the same field,
        // which bills the same in total (the script bills the entries one after the other).
        let entry = entryOf.get(lease);
        if (entry === undefined) {
          entry = entries.push({ lease, micros: lease.priceMicros });
          entryOf.set(lease, entry);
        }
        call.arg(entry);
      }
    }
    for (const { lease, micros } of entries) {
      const names = leaseNames(lease);
      call.recurringKey(names.leasesKey);
      call.recurringKey(names.spentKey);
      call.recurringKey(names.daySpentKey);
      call.recurringArg(names.field);
      call.arg(micros);
    }
    let answers: [number[], number][];
    try {
      let shortfalls: number[];
      [answers, shortfalls] =
        call instanceof EncodedArguments
          ? ((await this.serveMany.run(this.redis as Redis, call)) as ServeManyReply)
          : await this.redis.adnetServeMany(call.keys.length, ...call.keys, ...call.args);
      entries.forEach(({ lease }, j) => {
        if (Number(shortfalls[j]) > 0) this.holder.lost(lease.holderId);
      });
      if (!billHere) await this.bill(group, answers);
    } catch (error) {
      group.forEach(({ reject }) => reject(error));
      return;
    }
    group.forEach(({ resolve }, i) => resolve({ chosen: answers[i][0], userCapped: answers[i][1] === 1 }));
  }

  /**
   * On a Redis Cluster, takes what the served ads bill off their leases, one script per campaign slot, all sent at
   * once. A lease that no longer holds them (its holder was reclaimed meanwhile) has the counters charged instead, and
   * the holder is given up.
   */
  private async bill(group: PendingServe[], answers: [number[], number][]): Promise<void> {
    const billed = new Map<string, BillEntry>();
    group.forEach(({ serve }, r) => {
      for (const position of answers[r][0]) {
        const lease = serve.leases[position];
        if (lease === null) continue;
        const key = `${lease.campaignId}|${lease.holderId}|${lease.day}`;
        const entry = billed.get(key);
        if (entry) entry.micros += lease.priceMicros;
        else billed.set(key, { lease, micros: lease.priceMicros });
      }
    });
    if (billed.size === 0) return;
    const entries = [...billed.values()];
    const slots = groupBySlot(entries, ({ lease }) => stateKeys.campaignLeases(lease.campaignId));
    await Promise.all(
      slots.map(async (slot) => {
        const keys: string[] = [];
        const args: (string | number)[] = [];
        for (const { lease, micros } of slot) {
          keys.push(stateKeys.campaignLeases(lease.campaignId), stateKeys.spent(lease.campaignId), stateKeys.daySpent(lease.campaignId, lease.day));
          args.push(leaseField(lease.holderId, lease.day), micros);
        }
        const shortfalls = await this.redis.adnetBill(keys.length, ...keys, ...args);
        slot.forEach(({ lease }, i) => {
          if (Number(shortfalls[i]) > 0) this.holder.lost(lease.holderId);
        });
      }),
    );
  }
}

/** A lease's keys and field, built once per lease: the same strings on every call (see EncodedArguments' recurring ones). */
const namesOfLeases = new WeakMap<Lease, { leasesKey: string; spentKey: string; daySpentKey: string; field: string }>();

function leaseNames(lease: Lease) {
  let names = namesOfLeases.get(lease);
  if (names === undefined) {
    names = {
      leasesKey: stateKeys.campaignLeases(lease.campaignId),
      spentKey: stateKeys.spent(lease.campaignId),
      daySpentKey: stateKeys.daySpent(lease.campaignId, lease.day),
      field: leaseField(lease.holderId, lease.day),
    };
    namesOfLeases.set(lease, names);
  }
  return names;
}

/** How many times of an impression log (ms timestamps joined by spaces, see serve-many.lua) are within the window. */
function countRecent(log: string | null, now: number, windowMs: number): number {
  if (!log) return 0;
  let recent = 0;
  for (const time of log.split(' ')) if (Number(time) > now - windowMs) recent++;
  return recent;
}
