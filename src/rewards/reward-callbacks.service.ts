import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { ACCOUNT_STORE, type AccountStore } from '../accounts/account-store';
import { AdBlocksService } from '../ad-blocks/ad-blocks.service';
import type { Principal } from '../accounts/principal';
import { Clock, DAY_MS } from '../common/clock';
import { ConflictError, NotFoundError } from '../common/errors';
import { MetricsService } from '../metrics/metrics.service';
import { QUEUE_CONFIG, QueueConfig } from '../queue/queue.config';
import { QUEUE_NAMES } from '../queue/queue-names';
import { QueueService } from '../queue/queue.service';
import type { QueueJob } from '../queue/queue.types';
import { VERIFICATION_CONFIG, VerificationConfig } from '../verification/verification.config';
import { RewardDelivery, type RewardStatus } from './entities/reward-delivery.entity';
import { callReward, type RewardCallResult } from './reward-call';
import { RewardRepository } from './reward.repository';
import { REWARDS_CONFIG, RewardsConfig } from './rewards.config';

export interface RewardCallbackJob {
  eventId: string;
}

/** How long after a rotation calls also carry `x-adnet-signature-previous`, made with the old secret. */
export const PREVIOUS_SECRET_GRACE_MS = DAY_MS;
/** Each retry waits up to this fraction less than the exponential step, at random. */
const BACKOFF_JITTER = 0.2;
/** How often workers look for pending rewards whose job was lost (a crash between commit and enqueue, a restart). */
const SWEEP_EVERY_MS = 60_000;
const SWEEP_BATCH = 500;

/** The callback's stable id of one impression's reward: the same on every try and replay, whichever process counts it. */
export function rewardEventId(adBlockId: string, messengerUserId: string, adId: string, servedAt: number): string {
  return `rw_${createHash('sha256').update(`${adBlockId}\n${messengerUserId}\n${adId}\n${servedAt}`).digest('hex').slice(0, 40)}`;
}

/** The callback's JSON body (docs/REWARDED_ADS.md): built from the stored reward alone, so every try sends the same bytes. */
export function rewardBody(reward: Pick<RewardDelivery, 'eventId' | 'adBlockId' | 'messengerUserId' | 'campaignId' | 'adId' | 'createdAt'>): string {
  return JSON.stringify({
    eventId: reward.eventId,
    eventType: 'complete',
    adBlockId: reward.adBlockId,
    messengerUserId: reward.messengerUserId,
    openId: reward.messengerUserId,
    type: 'messenger',
    campaignId: reward.campaignId,
    adId: reward.adId,
    rewardedAt: reward.createdAt,
  });
}

/**
 * Reward callbacks (docs/REWARDED_ADS.md): one queued job per reward, its id derived from the reward's event id (itself
 * derived from the impression), so a re-sent completion, a retry or a second worker never makes a second reward; each
 * try POSTs the signed body to the block's rewardUrl and records the outcome in the delivery log.
 */
@Injectable()
export class RewardCallbacksService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RewardCallbacksService.name);
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly rewards: RewardRepository,
    private readonly adBlocks: AdBlocksService,
    @Inject(ACCOUNT_STORE) private readonly accounts: AccountStore,
    private readonly queues: QueueService,
    private readonly clock: Clock,
    private readonly metrics: MetricsService,
    @Inject(REWARDS_CONFIG) private readonly config: RewardsConfig,
    @Inject(VERIFICATION_CONFIG) private readonly verification: VerificationConfig,
    @Inject(QUEUE_CONFIG) private readonly queueConfig: QueueConfig,
  ) {}

  /** Queues the reward's callback; `replay` > 0 is a replay asked for, a job of its own. */
  async schedule(eventId: string, replay = 0): Promise<void> {
    // jobId from the reward (and the replay's number): adding the same job twice does nothing
    const jobId = replay > 0 ? `reward-${eventId}-replay-${replay}` : `reward-${eventId}`;
    await this.queues
      .queue<RewardCallbackJob>(QUEUE_NAMES.rewardCallback)
      .add('reward-callback', { eventId }, { jobId, attempts: this.config.rewardAttempts, backoffMs: this.config.rewardBackoffMs, jitter: BACKOFF_JITTER });
  }

  /** One try of a job; throws to have the queue retry it while tries are left. */
  async deliver(job: QueueJob<RewardCallbackJob>): Promise<RewardStatus | 'gone'> {
    const reward = await this.rewards.find(job.data.eventId);
    if (reward === null) return 'gone';
    // a job run again after its callback was delivered (a worker stopped before finishing it): nothing to send
    if (reward.status === 'delivered') return 'delivered';
    const result = await this.call(reward.adBlockId, reward.publisherId, rewardBody(reward));
    const final = job.attemptsMade + 1 >= job.attempts;
    const status: RewardStatus = result.delivered ? 'delivered' : final ? 'failed' : 'pending';
    await this.rewards.recordAttempt(reward.eventId, { status, statusCode: result.statusCode, error: result.error, at: this.clock.now() });
    this.metrics.countRewardCallback(result.delivered ? 'delivered' : final ? 'failed' : 'retried');
    if (!result.delivered) throw new Error(`reward ${reward.eventId} not delivered: ${result.error}`);
    return status;
  }

  /** The block's delivery log, newest first (the block's owner or an admin). */
  async log(principal: Principal, adBlockId: string, status: RewardStatus | undefined, skip: number, take: number): Promise<[RewardDelivery[], number]> {
    await this.adBlocks.usableRewardSettings(principal, adBlockId);
    return this.rewards.page(adBlockId, status, skip, take);
  }

  /** Sends a reward's callback again, same eventId, as a job of its own with the usual retries. */
  async replay(principal: Principal, eventId: string): Promise<RewardDelivery> {
    const reward = await this.rewards.find(eventId);
    const notFound = new NotFoundError('eventId', 'reward');
    if (reward === null) throw notFound;
    try {
      await this.adBlocks.usableRewardSettings(principal, reward.adBlockId);
    } catch (error) {
      if (error instanceof NotFoundError) throw notFound;
      throw error;
    }
    const replay = await this.rewards.markReplay(eventId);
    await this.schedule(eventId, replay);
    return (await this.rewards.find(eventId))!;
  }

  /** A signed `eventType: test` call to the block's rewardUrl at once; nothing is stored. */
  async test(principal: Principal, adBlockId: string): Promise<RewardCallResult> {
    const block = await this.adBlocks.usableRewardSettings(principal, adBlockId);
    if (block.rewardUrl === null)
      throw new ConflictError('adBlockId: the ad block has no rewardUrl', { errors: [{ field: 'adBlockId', message: 'the ad block has no rewardUrl' }] });
    const now = this.clock.now();
    const rawBody = JSON.stringify({
      eventId: `test_${randomBytes(12).toString('hex')}`,
      eventType: 'test',
      adBlockId,
      messengerUserId: 'test',
      openId: 'test',
      type: 'messenger',
      campaignId: null,
      adId: null,
      rewardedAt: now,
    });
    return this.call(adBlockId, block.accountId, rawBody);
  }

  /** A completion past the block's daily cap: counted apart, no callback. */
  countCapped(): void {
    this.metrics.countRewardCallback('capped');
  }

  onApplicationBootstrap(): void {
    if (!this.queueConfig.queueWorkers) return;
    const sweep = () => void this.sweep().catch((error) => this.logger.warn({ err: error }, 'reward sweep failed'));
    this.timer = setInterval(sweep, SWEEP_EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Schedules again the rewards pending for longer than every try of theirs could take (their job was lost). */
  async sweep(): Promise<number> {
    const { rewardBackoffMs, rewardTimeoutMs, rewardAttempts } = this.config;
    const longestRun = rewardBackoffMs * (2 ** (rewardAttempts - 1) - 1) + rewardTimeoutMs * rewardAttempts;
    const stale = await this.rewards.pendingSince(this.clock.now() - longestRun - SWEEP_EVERY_MS, SWEEP_BATCH);
    for (const reward of stale) await this.schedule(reward.eventId, reward.replays);
    if (stale.length > 0) this.logger.log(`scheduled ${stale.length} pending reward callback(s) again`);
    return stale.length;
  }

  private async call(adBlockId: string, publisherId: string, rawBody: string): Promise<RewardCallResult> {
    const block = await this.adBlocks.rewardSettings(adBlockId);
    if (block === null || block.rewardUrl === null) return { delivered: false, statusCode: null, ms: 0, error: 'the ad block has no rewardUrl' };
    const now = this.clock.now();
    const account = await this.accounts.webhookSecretsOf(publisherId);
    if (account === null) return { delivered: false, statusCode: null, ms: 0, error: 'the publisher account is gone' };
    const rotatedAt = account.webhookSecretRotatedAt;
    const previousSecret = rotatedAt !== null && now - rotatedAt < PREVIOUS_SECRET_GRACE_MS ? account.previousWebhookSecret : null;
    return callReward({
      url: block.rewardUrl,
      rawBody,
      secret: account.webhookSecret,
      previousSecret,
      timestamp: now,
      timeoutMs: this.config.rewardTimeoutMs,
      allowPrivate: this.verification.verificationAllowPrivate,
    });
  }
}
