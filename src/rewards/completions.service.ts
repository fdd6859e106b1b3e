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
    await this.dataSource.transaction(async (manager) => {
      await this.stats.countCompletion(manager, { campaignId, adBlockId: event.adBlockId, now, rewardCapped: false });
    });
    this.logger.debug({ adBlockId: event.adBlockId, campaignId }, 'completion counted');
    return answer(COMPLETION_MESSAGES.counted);
  }
}
