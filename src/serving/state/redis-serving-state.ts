import type { BeforeApplicationShutdown } from '@nestjs/common';
import type { RedisClient } from '../../redis/redis.module';
import { HolderLostError, LeaseHolderOptions, RedisLeaseHolder } from './redis-lease-holder';
import { RedisClickState } from './redis-click-state';
import { RedisServeState } from './redis-serve-state';
import {
  ClickOutcome,
  ClickRequest,
  ImpressionCandidate,
  PreviewRequest,
  ReserveRequest,
  ReserveResult,
  ServingPreview,
  ServingState,
  HeldLeases,
  ViewOutcome,
  ViewRequest,
} from './serving-state';
import type { CompletionOutcome, CompletionRequest } from './serving-state';
import { withFields } from '../../common/with-fields';
import { Logger } from '@nestjs/common';
import { DependencyUnavailableError } from '../../common/errors';
import type { RedisDeadline } from '../../redis/redis-deadline';
import { EPOCH_CHECK_EVERY_MS, RedisStateEpoch } from './redis-state-epoch';
import { SpendReseed, type SpendSource } from './spend-reseed';

export type RedisServingStateOptions = Omit<LeaseHolderOptions, 'clicksBeingWritten' | 'counterSeeds'> & {
  /** Where counters Redis lost are seeded from (spend-reseed.ts); without it, from the spend the caller knew. */
  spendSource?: SpendSource;
};

const NO_ADS: ReserveResult = Object.freeze({ served: [], exhausted: [], userCapped: false }) as ReserveResult;

/**
 * Serving state shared by every process through Redis (one server or a Redis Cluster: every script keeps to one hash
 * slot, see stateKeys). An ad request costs a share of one Lua script per turn (exclusions and the served marks); its CPM billing comes from budget leases held in memory (see budget-leases.ts), so the shared budget
 * counters are touched once per lease, not once per impression, and what is served is billed off the leases in Redis
 * grouped per lease (flushBills). Clicks are two Lua scripts each (bind, bill). The lease
 * holder (redis-lease-holder.ts), the serve state and the click state share one process identity.
 */
export class RedisServingState implements ServingState, BeforeApplicationShutdown {
  private readonly holder: RedisLeaseHolder;
  private readonly serves: RedisServeState;
  private readonly clicks: RedisClickState;
  private readonly logger = new Logger('ServingState');
  private readonly epoch: RedisStateEpoch;
  /** How long after a loss the database may still miss impressions served before it (SpendSource.settleMs). */
  private readonly lossSettleMs: number;

  /**
   * `deadline` bounds each request's Redis work (REDIS_DEADLINE_MS, src/redis/redis-deadline.ts); past it an ad
   * request is answered no ads and a click or view 503, and what the work did when it ends late is undone (the
   * units taken go back to the leases, the click is unbound and its price given back, the view mark dropped). Without
   * it (tests of the scripts), requests wait for Redis.
   */
  constructor(
    redis: RedisClient,
    options: RedisServingStateOptions = {},
    private readonly deadline: RedisDeadline | null = null,
  ) {
    this.epoch = new RedisStateEpoch(redis);
    const { spendSource, ...holderOptions } = options;
    this.lossSettleMs = spendSource?.settleMs ?? EPOCH_CHECK_EVERY_MS;
    const reseed = spendSource
      ? new SpendReseed(spendSource, async () => {
          await this.epoch.check();
          return this.epoch.current;
        })
      : null;
    const counterSeeds = reseed && {
      seedOf: (campaignId: string) => reseed.seedOf(campaignId),
      used: (campaignId: string) => reseed.used(campaignId),
      want: (campaignId: string) => reseed.want(campaignId),
      lossKnown: () => reseed.lossIsRecent(this.epoch.lastLossAt, Date.now()),
    };
    this.holder = new RedisLeaseHolder(
      redis,
      withFields(holderOptions, { clicksBeingWritten: () => this.clicks.fieldsBeingWritten(), ...(counterSeeds ? { counterSeeds } : {}) }),
    );
    this.serves = new RedisServeState(redis, this.holder);
    this.clicks = new RedisClickState(redis, this.holder);
    // A new epoch: Redis lost the counters the leases were carved from (see spend-reseed.ts)
    this.epoch.onNewEpoch(() => {
      this.holder.newEpoch();
      reseed?.newEpoch();
    });
  }

  heldLeases(): HeldLeases {
    return this.holder.held;
  }

  /**
   * Ads without Redis are none: an ad served without its served mark could not take its click (a click on a served
   * ad is never refused), and the budget counters could not be asked.
   */
  reserveImpressions(request: ReserveRequest, candidates: ImpressionCandidate[]): Promise<ReserveResult> {
    this.epoch.start();
    if (this.deadline === null) return this.serves.reserveImpressions(request, candidates);
    const ticket = { abandoned: false };
    return this.deadline
      .run(() => this.serves.reserveImpressions(request, candidates, ticket), { onDeadline: () => (ticket.abandoned = true), since: request.redisSince })
      .catch((error: unknown) => {
        // HolderLostError here: the holder was lost again while the request tried once more under a new one (Redis
        // restarted empty twice in a row): answered without ads, nothing served or billed
        if (error instanceof DependencyUnavailableError || error instanceof HolderLostError) return NO_ADS;
        throw error;
      });
  }

  preview(request: PreviewRequest, candidates: ImpressionCandidate[]): Promise<ServingPreview> {
    if (this.deadline === null) return this.serves.preview(request, candidates);
    return this.deadline.run(() => this.serves.preview(request, candidates));
  }

  registerClick(request: ClickRequest): Promise<ClickOutcome> {
    this.epoch.start();
    if (this.deadline === null) return this.clicks.registerClick(request).then((outcome) => this.withLoss(outcome, request.now));
    return this.deadline.run(() => this.clicks.registerClick(request).then((outcome) => this.withLoss(outcome, request.now)), {
      late: (outcome) => {
        if (outcome.kind !== 'counted') return;
        this.clicks.undoClick(request, outcome.costMicros).catch((error: unknown) => this.logger.error({ err: error }, 'a refused click stays bound'));
      },
    });
  }

  clickCommitted(request: ClickRequest): Promise<void> {
    return this.clicks.clickCommitted(request);
  }

  clickOutcomeUnknown(request: ClickRequest): void {
    this.clicks.clickOutcomeUnknown(request);
  }

  /**
   * A click without its served mark, while a loss of Redis' data is recent: its mark may be what was lost. The epoch
   * is read again first: Redis may have restarted empty since the last periodic check, and a click on an ad served
   * before it must not be answered "no matching impression".
   */
  private async withLoss(outcome: ClickOutcome, now: number): Promise<ClickOutcome> {
    if (outcome.kind !== 'noImpression') return outcome;
    await this.epoch.check();
    const stateLostAt = this.epoch.lostAt(now);
    if (stateLostAt === null) return outcome;
    return { kind: 'noImpression', stateLostAt, settlesAt: stateLostAt + this.lossSettleMs };
  }

  /** Within the deadline, or it goes on after the caller was answered (the click is refused either way). */
  undoClick(request: ClickRequest, costMicros: number): Promise<void> {
    const undo = this.clicks.undoClick(request, costMicros);
    if (this.deadline === null) return undo;
    undo.catch((error: unknown) => this.logger.error({ err: error }, 'a refused click stays bound'));
    return this.deadline.bounded(undo).catch(() => undefined);
  }

  registerView(request: ViewRequest): Promise<ViewOutcome> {
    if (this.deadline === null) return this.clicks.registerView(request);
    return this.deadline.run(() => this.clicks.registerView(request), {
      late: (outcome) => {
        if (outcome !== 'counted' && outcome !== 'invalid') return;
        this.clicks.forgetView(request).catch((error: unknown) => this.logger.error({ err: error }, 'a refused view stays marked'));
      },
    });
  }

  registerCompletion(request: CompletionRequest): Promise<CompletionOutcome> {
    return this.clicks.registerCompletion(request);
  }

  /**
   * Gives back to the counters what processes that stopped without returning their leases (killed, cut off for
   * longer than the heartbeat's life) still held. Safe in any number of processes at once; answers the
   * micro-USDT given back.
   */
  reclaimLapsedHolders(): Promise<number> {
    return this.holder.reclaimLapsedHolders();
  }

  /** The sweep's step that gives idle leases back, as if run at `wallNow` (it runs every second). */
  returnIdleLeases(wallNow: number): Promise<void> {
    return this.holder.returnIdleLeases(wallNow);
  }

  /** Gives back the price of this holder's billed clicks nobody is writing a row for (see RedisLeaseHolder). */
  giveBackOrphanClicks(wallNow: number): Promise<number> {
    return this.holder.giveBackOrphanClicks(wallNow);
  }

  /**
   * Bills what was served from the leases so far off their fields in Redis (it happens every BILL_EVERY_MS anyway);
   * the stats writer awaits it before it counts impressions in the database (see ServingModule).
   */
  flushBills(): Promise<void> {
    return this.serves.flushBills();
  }

  /** Hears of impression spend a bill could not charge, the budget spent meanwhile (see RedisServeState.onWaivedSpend). */
  onWaivedSpend(waived: (campaignId: string, micros: number) => void): void {
    this.serves.onWaivedSpend(waived);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.epoch.stop();
    // Billed first, while Redis is connected; a bill that fails is tried again before the impressions are written.
    await this.serves.flushBills().catch(() => undefined);
    await this.holder.shutdown();
  }
}
