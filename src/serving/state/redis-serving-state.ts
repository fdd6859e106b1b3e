import type { BeforeApplicationShutdown } from '@nestjs/common';
import type { RedisClient } from '../../redis/redis.module';
import { LeaseHolderOptions, RedisLeaseHolder } from './redis-lease-holder';
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

export type RedisServingStateOptions = Omit<LeaseHolderOptions, 'clicksBeingWritten'>;

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

  constructor(redis: RedisClient, options: RedisServingStateOptions = {}) {
    this.holder = new RedisLeaseHolder(redis, withFields(options, { clicksBeingWritten: () => this.clicks.fieldsBeingWritten() }));
    this.serves = new RedisServeState(redis, this.holder);
    this.clicks = new RedisClickState(redis, this.holder);
  }

  heldLeases(): HeldLeases {
    return this.holder.held;
  }

  reserveImpressions(request: ReserveRequest, candidates: ImpressionCandidate[]): Promise<ReserveResult> {
    return this.serves.reserveImpressions(request, candidates);
  }

  preview(request: PreviewRequest, candidates: ImpressionCandidate[]): Promise<ServingPreview> {
    return this.serves.preview(request, candidates);
  }

  registerClick(request: ClickRequest): Promise<ClickOutcome> {
    return this.clicks.registerClick(request);
  }

  clickCommitted(request: ClickRequest): Promise<void> {
    return this.clicks.clickCommitted(request);
  }

  undoClick(request: ClickRequest, costMicros: number): Promise<void> {
    return this.clicks.undoClick(request, costMicros);
  }

  registerView(request: ViewRequest): Promise<ViewOutcome> {
    return this.clicks.registerView(request);
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
    // Billed first, while Redis is connected; a bill that fails is tried again before the impressions are written.
    await this.serves.flushBills().catch(() => undefined);
    await this.holder.shutdown();
  }
}
