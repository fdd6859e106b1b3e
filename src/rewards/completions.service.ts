import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AdBlocksService } from '../ad-blocks/ad-blocks.service';
import type { Principal } from '../accounts/principal';
import { COMPLETION_MESSAGES, type CompletionMessage } from '../clicks/click-messages';
import type { ClickEventDataDto } from '../clicks/dto/click.dto';
import { Clock } from '../common/clock';
import type { RequestFacts } from '../common/request-facts';
import { CampaignIndexService } from '../serving/campaign-index.service';
import { TEST_AD_PREFIX } from '../serving/debug-ads';
import { SERVING_STATE, type ServingState } from '../serving/state/serving-state';
import { StatsWriterService } from '../stats/stats-writer.service';
import { TrafficClassifier } from '../trust/traffic-classifier';
import { Inject } from '@nestjs/common';
import { utcDay } from '../common/day';
import { isDuplicateKey } from '../database/duplicate-key';
import { RewardCallbacksService, rewardEventId } from './reward-callbacks.service';
import { RewardRepository } from './reward.repository';
import { RewardDelivery } from './entities/reward-delivery.entity';

/**
 * Completed views (endpoint 6 with `eventType: complete`, docs/REWARDED_ADS.md): bound like a click to an impression
 * of that ad served to that user on that block within 24 h, at least the block's `minViewMs` after the serve by this
 * service's clock, one per impression, valid traffic only. Anything else answers success and counts nothing. A counted
 * completion's counters are committed before the answer.
 */
@Injectable()
export class CompletionsService {
  private readonly logger = new Logger(CompletionsService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly adBlocks: AdBlocksService,
    private readonly index: CampaignIndexService,
    private readonly stats: StatsWriterService,
    private readonly clock: Clock,
    @Inject(SERVING_STATE) private readonly state: ServingState,
    private readonly traffic: TrafficClassifier,
    private readonly rewards: RewardRepository,
    private readonly callbacks: RewardCallbacksService,
  ) {}

  async reportCompletion(principal: Principal, event: ClickEventDataDto, facts: RequestFacts): Promise<{ status: 'success'; msg: CompletionMessage }> {
    const block = await this.adBlocks.usableRewardSettings(principal, event.adBlockId);
    const answer = (msg: CompletionMessage) => ({ status: 'success' as const, msg });
    if (event.adId.startsWith(TEST_AD_PREFIX)) return answer(COMPLETION_MESSAGES.testAd);
    const now = this.clock.now();
    const found = await this.index.forClick(event.campaignId, now);
    if (!found || found.campaign.adId !== event.adId) return answer(COMPLETION_MESSAGES.noImpression);
    const outcome = await this.state.registerCompletion({
      userId: event.messengerUserId,
      adBlockId: event.adBlockId,
      adId: event.adId,
      now,
      minViewMs: block.minViewMs,
      invalidRequest: this.traffic.invalidReason({ ip: facts.ip, userAgent: facts.userAgent }) !== null,
    });
    if (outcome.kind !== 'counted') return answer(COMPLETION_MESSAGES[outcome.kind]);
    const campaignId = found.campaign.id;
    const { adBlockId, messengerUserId, adId } = event;
    const rewarded = block.format === 'rewarded' && block.rewardUrl !== null;
    const eventId = rewardEventId(adBlockId, messengerUserId, adId, outcome.servedAt);
    let capped = false;
    try {
      // the reward (or its place under the cap) and the counters commit together, before the answer
      await retryDeadlock(() =>
        this.dataSource.transaction(async (manager) => {
          if (rewarded) {
            capped = !(await this.rewards.takeDailyReward(manager, { adBlockId, messengerUserId, day: utcDay(now) }, block.dailyRewardCap));
            if (!capped)
              await this.rewards.insert(
                manager,
                newReward({ eventId, adBlockId, publisherId: block.accountId, messengerUserId, campaignId, adId, createdAt: now }),
              );
          }
          await this.stats.countCompletion(manager, { campaignId, adBlockId, now, rewardCapped: capped });
        }),
      );
    } catch (error) {
      // another process counted this impression's completion (its serving-state mark was lost in between)
      if (isDuplicateKey(error)) return answer(COMPLETION_MESSAGES.duplicate);
      throw error;
    }
    if (capped) this.callbacks.countCapped();
    else if (rewarded) {
      // The reward is committed; a failed enqueue leaves it pending and the workers' sweep schedules it again.
      await this.callbacks.schedule(eventId).catch((error: unknown) => this.logger.warn({ err: error, eventId }, 'reward callback not scheduled'));
    }
    return answer(COMPLETION_MESSAGES.counted);
  }
}

function newReward(
  fields: Pick<RewardDelivery, 'eventId' | 'adBlockId' | 'publisherId' | 'messengerUserId' | 'campaignId' | 'adId' | 'createdAt'>,
): RewardDelivery {
  return Object.assign(new RewardDelivery(), {
    ...fields,
    status: 'pending',
    attempts: 0,
    lastStatusCode: null,
    lastError: null,
    deliveredAt: null,
    replays: 0,
  });
}

const DEADLOCK_CODES = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT', 'SQLITE_BUSY']);

/** Runs a transaction again (three tries in all) when the database chose it as a deadlock's victim: nothing was committed. */
async function retryDeadlock<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      const code = (error as { driverError?: { code?: string } }).driverError?.code ?? (error as { code?: string }).code;
      if (attempt >= 3 || code === undefined || !DEADLOCK_CODES.has(code)) throw error;
    }
  }
}
