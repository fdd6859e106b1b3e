import type { Redis } from 'ioredis';
import { newId } from '../../common/ids';
import { groupBySlot } from '../../redis/hash-slot';
import { EncodedArguments, EncodedScript, ListedArguments } from '../../redis/encoded-script';
import type { RedisClient } from '../../redis/redis.module';
import { Lease } from './budget-leases';
import { leaseField } from './lease-fields';
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

/** serve-many.lua's answer: per request [positions served, 1 when the user's hourly cap is reached]. */
type ServeManyReply = [number[], number][];

type ServeScript = RedisClient & {
  adnetServeMany(numKeys: number, ...args: (string | number)[]): Promise<ServeManyReply>;
  adnetBill(numKeys: number, ...args: (string | number)[]): Promise<number[]>;
};

/** The serve script's answer to one request: positions served, and whether the user's hourly cap is reached. */
interface ServeAnswer {
  chosen: number[];
  userCapped: boolean;
}

/**
 * How often what was served from the leases is billed off their fields in Redis (and always before the impressions
 * are counted in the database, see flushBills): a killed process's unbilled impressions are given back to the
 * budget with its leases, so this bounds what it can have served that neither the bill nor the budget counts.
 */
export const BILL_EVERY_MS = 100;

/** What a reservation lacking no lease learns of its candidates' budgets. */
const NONE_LACKING: { exhausted: number[]; heldBack: number[] } = { exhausted: [], heldBack: [] };

/** How long a bill's token is kept: a bill sent again (its answer lost) within it charges nothing more. */
const BILL_TOKEN_MS = 10 * 60 * 1000;

/** One bill script's worth: the sums of one slot's leases, under a token, so the call sent again bills them once. */
interface BillBatch {
  token: string;
  leases: Lease[];
  micros: number[];
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
    /** per ad id, the lease its unit was billed from in memory (null: nothing to bill) */
    leases: (Lease | null)[];
    /** the request's deadline (see ServeTicket) */
    ticket: ServeTicket;
  };
  resolve: (answer: ServeAnswer) => void;
  reject: (error: unknown) => void;
}

/**
 * One ad request's hold on what it reserves: once `abandoned` (its Redis deadline passed and it was answered with no
 * ads, see RedisServingState), what it took from the leases goes back and nothing it is answered late is billed.
 */
export interface ServeTicket {
  abandoned: boolean;
}

/**
 * Ad requests on the Redis serving state: CPM units billed from the holder's leases in memory, then one serve
 * script (exclusions, caps, served marks) per turn of the event loop for every request in it (per user slot on a
 * Redis Cluster). What they served is taken off the holder's fields in the campaigns' leases hashes in bills grouped
 * per lease, every BILL_EVERY_MS and before the impressions reach the database (flushBills): one HINCRBY per lease
 * and bill instead of one per campaign and turn, which was a third of Redis' CPU per ad request
 * (docs/PERFORMANCE.md#impressions-billed-off-the-leases-every-100-ms).
 */
export class RedisServeState {
  private readonly redis: ServeScript;
  /** serve-many.lua with its arguments encoded here, on a single Redis server (see EncodedScript). */
  private readonly serveMany: EncodedScript;
  private pendingServes: PendingServe[] = [];
  private sendScheduled = false;
  /** Micro-USDT served from each lease and not yet billed off its field in Redis. */
  private unbilled = new Map<Lease, number>();
  /**
   * Bills sent whose answer did not come (failed, or lost with a reconnect): each may or may not have run, so each is
   * sent again as it was, same token and sums, before any later bill is reported done.
   */
  private unconfirmed: BillBatch[] = [];
  private billTimer: NodeJS.Timeout | undefined;
  /** The bill under way (bills go one at a time, in order); settled, never rejected. */
  private billing: Promise<void> = Promise.resolve();
  /** Told of what a bill could not charge (see onWaivedSpend). */
  private waived: (campaignId: string, micros: number) => void = () => undefined;

  constructor(
    redis: RedisClient,
    private readonly holder: RedisLeaseHolder,
  ) {
    const serveValues = { USER_LOG_FIELD, USER_CAP_WINDOW_MS };
    defineScript(redis, 'adnetServeMany', 'serve-many', serveValues);
    this.serveMany = new EncodedScript(loadScript('serve-many', serveValues));
    defineScript(redis, 'adnetBill', 'bill');
    // No auto-pipelining for the serve call, which already carries every request of its turn (serveBatched): the
    // encoded call goes through sendCommand, which never pipelines, and a cluster client has it off (redis.module.ts).
    this.redis = redis as ServeScript;
  }

  async reserveImpressions(request: ReserveRequest, candidates: ImpressionCandidate[], ticket: ServeTicket = { abandoned: false }): Promise<ReserveResult> {
    this.holder.ensureSweeper();
    try {
      return await this.reserve(request, candidates, ticket);
    } catch (error) {
      // The holder was lost between taking units and serving them: once more, with fresh leases.
      if (error instanceof HolderLostError && !ticket.abandoned) return this.reserve(request, candidates, ticket);
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
    const { userId, adBlockId, now } = request;
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
      reads.push(this.redis.get(stateKeys.daySpent(candidate.campaignId, candidate.day)));
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
          leasedMicros: this.holder.heldMicros(candidate.campaignId, candidate.day),
          leaseCoversUnit: this.holder.take(candidate, wallNow, true) !== null,
        };
      }),
    };
  }

  private async reserve(request: ReserveRequest, candidates: ImpressionCandidate[], ticket: ServeTicket): Promise<ReserveResult> {
    const wallNow = Date.now();
    this.holder.renewIfUntrusted(wallNow);

    // Bill every candidate from its lease tentatively (the script then picks those not excluded); candidates
    // without enough lease ask for one, all of them in one script call. Invalid traffic bills nothing: it only
    // looks whether a lease covers a unit (budget is left), and takes none.
    const lookOnly = request.invalid === true;
    const taken: (Lease | null)[] = new Array<Lease | null>(candidates.length).fill(null);
    let lacking = false;
    for (let i = 0; i < candidates.length; i++) {
      taken[i] = this.holder.take(candidates[i], wallNow, lookOnly);
      if (taken[i] === null) lacking = true;
    }
    const { exhausted, heldBack } = lacking ? await this.holder.leaseLacking(candidates, taken, wallNow, lookOnly, request.now) : NONE_LACKING;
    if (ticket.abandoned) {
      // answered already (no ads): the units taken go back to their leases, nothing is marked served
      for (let i = 0; i < candidates.length && !lookOnly; i++) if (taken[i] !== null) this.holder.giveBack(taken[i]!, candidates[i].priceMicros);
      return { served: [], exhausted: [], userCapped: false };
    }

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
          ticket,
        }));
      }
    } finally {
      // What was billed tentatively and not served goes back (all of it when the script failed, or answered after the
      // request's deadline: serveGroup billed none of it then). `chosen` holds ascending positions in `offered`.
      if (ticket.abandoned) chosen = [];
      let next = 0;
      for (let k = 0; k < offered.length && !lookOnly; k++) {
        if (next < chosen.length && chosen[next] === k) next++;
        else this.holder.giveBack(taken[offered[k]]!, candidates[offered[k]].priceMicros);
      }
    }
    const served = new Array<number>(chosen.length);
    for (let k = 0; k < chosen.length; k++) served[k] = offered[chosen[k]];
    if (this.holder.isClosing) {
      // Shutting down: billed now, before the database's last write of the impressions and before Redis closes.
      // a failed bill is the request's no more than a failed return is: the stats writer's last write tries it again
      await this.flushBills().catch(() => undefined);
      await this.holder.returnLeasesIfClosing();
    }
    return { served, exhausted, heldBack, userCapped };
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

  /** One serve script for requests of one slot; answers each request and notes what each served lease is to be billed. */
  private async serveGroup(group: PendingServe[]): Promise<void> {
    // The keys go first in a script call: each request's three; the arguments after them.
    const call = this.redis.isCluster ? new ListedArguments() : new EncodedArguments(this.redis.options.keyPrefix ?? '');
    call.arg(SERVED_TTL_MS);
    call.arg(group.length);
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
    }
    let answers: ServeManyReply;
    try {
      answers =
        call instanceof EncodedArguments
          ? ((await this.serveMany.run(this.redis as Redis, call)) as ServeManyReply)
          : await this.redis.adnetServeMany(call.keys.length, ...call.keys, ...call.args);
    } catch (error) {
      group.forEach(({ reject }) => reject(error));
      return;
    }
    group.forEach(({ serve }, r) => {
      if (serve.ticket.abandoned) return;
      for (const position of answers[r][0]) {
        const lease = serve.leases[position];
        if (lease !== null) this.unbilled.set(lease, (this.unbilled.get(lease) ?? 0) + lease.priceMicros);
      }
    });
    this.scheduleBill();
    group.forEach(({ resolve }, i) => resolve({ chosen: answers[i][0], userCapped: answers[i][1] === 1 }));
  }

  /**
   * Takes what was served from the leases so far off their fields in Redis: one bill script per slot (one call on a
   * single Redis server), a sum per lease. A field that no longer holds it (its holder was reclaimed meanwhile) has
   * the counters charged instead, and the holder is given up. Bills go one at a time, in order, and each takes what
   * is due when its turn comes, so it resolves once everything served before the call is billed, and fails when that
   * did not happen: a bill that failed before it is sent again first, under its token (bill.lua runs a token once), and
   * must succeed too. So the stats writer, which waits for this, never writes an impression that was not billed.
   */
  flushBills(): Promise<void> {
    clearTimeout(this.billTimer);
    this.billTimer = undefined;
    const bill = this.billing.then(() => this.billDue());
    this.billing = bill.catch(() => undefined);
    return bill;
  }

  /**
   * `waived` hears, before the bill that found it resolves, of impression spend no budget could take: served from a
   * lease its holder lost (cut off or frozen past the heartbeat's life) while other processes spent the budget it
   * went back to. Those impressions were served and not billed; the stats writer takes their price off the campaign's
   * next impressions it writes.
   */
  onWaivedSpend(waived: (campaignId: string, micros: number) => void): void {
    this.waived = waived;
  }

  private scheduleBill(): void {
    if ((this.unbilled.size === 0 && this.unconfirmed.length === 0) || this.billTimer !== undefined) return;
    this.billTimer = setTimeout(() => void this.flushBills().catch(() => undefined), BILL_EVERY_MS);
    this.billTimer.unref();
  }

  private async billDue(): Promise<void> {
    const batches = this.unconfirmed;
    this.unconfirmed = [];
    if (this.unbilled.size > 0) {
      batches.push(...this.batchesOf(this.unbilled));
      this.unbilled = new Map();
    }
    if (batches.length === 0) return;
    const failures = await Promise.all(batches.map((batch) => this.sendBill(batch)));
    const failure = failures.find((error) => error !== null);
    if (failure !== undefined) {
      this.scheduleBill();
      throw failure;
    }
  }

  private batchesOf(due: Map<Lease, number>): BillBatch[] {
    const leases = [...due.keys()];
    const slots = this.redis.isCluster ? groupBySlot(leases, (lease) => stateKeys.campaignLeases(lease.campaignId)) : [leases];
    return slots.map((slot) => ({ token: newId(), leases: slot, micros: slot.map((lease) => due.get(lease)!) }));
  }

  /** One bill script; a failure keeps the batch to be sent again as it is, and is answered (null: billed). */
  private async sendBill(batch: BillBatch): Promise<unknown> {
    // the token's key in the slot of the batch's first lease (all of them share it)
    const keys = [stateKeys.billToken(batch.leases[0].campaignId, batch.token)];
    const args: (string | number)[] = [BILL_TOKEN_MS];
    batch.leases.forEach((lease, i) => {
      const names = leaseNames(lease);
      keys.push(names.leasesKey, names.spentKey, names.daySpentKey);
      args.push(names.field, batch.micros[i], lease.priceMicros, lease.totalBudgetMicros, lease.dailyBudgetMicros);
    });
    // per lease: its shortfall, and the part of it the budgets could not take
    let answer: number[];
    try {
      answer = await this.redis.adnetBill(keys.length, ...keys, ...args);
    } catch (error) {
      this.unconfirmed.push(batch);
      return error;
    }
    // outside the try: the answer is taken once, and a batch sent again would report its waived spend again
    batch.leases.forEach((lease, i) => {
      if (Number(answer[2 * i]) > 0) this.holder.lost(lease.holderId);
      const waived = Number(answer[2 * i + 1]);
      if (waived > 0) this.waived(lease.campaignId, waived);
    });
    return null;
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
