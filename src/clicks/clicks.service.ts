import { Inject, Injectable, Logger } from '@nestjs/common';
import { RUNTIME_CONFIG, RuntimeConfig } from '../common/runtime.config';
import { SERVING_CONFIG, ServingConfig } from '../serving/serving.config';
import { TRUST_CONFIG, TrustConfig } from '../trust/trust.config';
import { AdBlocksService } from '../ad-blocks/ad-blocks.service';
import { isAdmin, type Principal } from '../accounts/principal';
import { budgetDayOf } from '../campaigns/campaign-rules';
import { Clock } from '../common/clock';
import type { RequestFacts } from '../common/request-facts';
import { newId } from '../common/ids';
import { readWithinDeadline } from '../common/stale-reads';
import { shareOfMicros } from '../common/money';
import { CampaignIndexService } from '../serving/campaign-index.service';
import { GeoService } from '../serving/geo.service';
import { platformFromUserAgent } from '../serving/request-context';
import { TEST_AD_PREFIX } from '../serving/debug-ads';
import { budgetFacts, usesMacros } from '../serving/serving.service';
import { ClickIdStore } from './click-ids';
import { ClickRequest, IMPRESSION_WINDOW_MS, SERVING_STATE, ServingState, ViewOutcome } from '../serving/state/serving-state';
import { StatsWriterService } from '../stats/stats-writer.service';
import { StatsService } from '../stats/stats.service';
import { ClickStateLostError, WriteOutcomeUnknownError } from '../common/errors';
import { TrafficClassifier } from '../trust/traffic-classifier';
import { VerificationScheduler } from '../verification/verification-scheduler.service';
import { CLICK_STORE, type ClickStore } from './click-store';
import { CLICK_MESSAGES, invalidClickMessage } from './click-messages';
import { ClickEventDataDto, ClickResultDto } from './dto/click.dto';
import { noImpression } from './no-impression';
import { Click } from './entities/click.entity';
import { withFields } from '../common/with-fields';

/**
 * A click's group commits at least this long before the click's answer gives up on it (its 503 at the route's
 * deadline): room for the database's clock to differ from this process's, so the 503 is never followed by a stored click.
 */
const COMMIT_MARGIN_MS = 1000;

/** Rule 6: after a click in production, that ad is not served to that user for 10 minutes. */
export const CLICK_EXCLUSION_MS = 10 * 60 * 1000;

@Injectable()
export class ClicksService {
  constructor(
    private readonly adBlocks: AdBlocksService,
    private readonly index: CampaignIndexService,
    private readonly stats: StatsWriterService,
    private readonly clock: Clock,
    @Inject(SERVING_STATE) private readonly state: ServingState,
    @Inject(RUNTIME_CONFIG) private readonly runtimeConfig: RuntimeConfig,
    @Inject(SERVING_CONFIG) private readonly servingConfig: ServingConfig,
    @Inject(TRUST_CONFIG) private readonly trustConfig: TrustConfig,
    private readonly verification: VerificationScheduler,
    private readonly traffic: TrafficClassifier,
    @Inject(CLICK_STORE) private readonly clicks: ClickStore,
    private readonly geo: GeoService,
    private readonly statsService: StatsService,
    private readonly clickIds: ClickIdStore,
  ) {}

  private readonly logger = new Logger(ClicksService.name);

  /**
   * Records a click on a served ad: bound to an impression of that ad for that user on that block within 24 h, one
   * per impression, and committed to the ledger before the answer. It is `counted` (billed for CPC) only when the
   * campaign is billable and the traffic valid; else recorded `unbilled` or `invalid` (docs/TRUST_AND_SAFETY.md).
   */
  async reportClick(principal: Principal, event: ClickEventDataDto, facts: RequestFacts): Promise<ClickResultDto> {
    await this.adBlocks.assertUsable(principal, event.adBlockId);
    return this.countClick(event, facts);
  }

  /**
   * Records that a served ad was seen (the ton-ai-sdk's `impression` event, docs/CONTRACT.md §14): bound like a click
   * to an impression of that ad for that user on that block within 24 h, at most one view per impression, never
   * billed. Counted in `views` unless its request or its impression is invalid traffic.
   */
  async reportView(principal: Principal, event: ClickEventDataDto, facts: RequestFacts): Promise<ViewResult> {
    await this.adBlocks.assertUsable(principal, event.adBlockId);
    if (event.adId.startsWith(TEST_AD_PREFIX)) return 'testAd';
    const now = this.clock.now();
    // the campaign's billing facts as the click arrives: past the read deadline, a 503 before anything is bound
    const found = await readWithinDeadline(this.index.forClick(event.campaignId, now));
    if (!found || found.campaign.adId !== event.adId) throw noImpression();
    const outcome = await this.state.registerView({
      userId: event.messengerUserId,
      adBlockId: event.adBlockId,
      adId: event.adId,
      now,
      invalidRequest: this.traffic.invalidReason({ ip: facts.ip, userAgent: facts.userAgent }) !== null,
    });
    if (outcome === 'noImpression') throw noImpression();
    if (outcome === 'counted') this.stats.recordViews([{ campaignId: found.campaign.id, adBlockId: event.adBlockId }], now);
    return outcome;
  }

  /**
   * How the advertiser's verification endpoint judged the user's latest counted click on the campaign (`verified`,
   * `unverified`, `pending`, `error`, or `none` without a verification URL), among the clicks made on the caller's
   * own ad blocks (any block for an admin): a publisher learns nothing of other publishers' traffic. Null: no such
   * click.
   */
  latestClickVerification(principal: Principal, campaignId: string, messengerUserId: string): Promise<string | null> {
    return this.clicks.latestVerificationStatus(campaignId, messengerUserId, isAdmin(principal) ? null : principal.accountId);
  }

  /** reportClick once the caller is known to may use the block. */
  async countClick(event: ClickEventDataDto, facts: RequestFacts): Promise<ClickResultDto> {
    if (event.adId.startsWith(TEST_AD_PREFIX)) return { status: 'success', msg: CLICK_MESSAGES.testAd };

    const now = this.clock.now();
    // the campaign's billing facts as the click arrives: past the read deadline, a 503 before anything is bound
    const found = await readWithinDeadline(this.index.forClick(event.campaignId, now));
    if (!found || found.campaign.adId !== event.adId) throw noImpression();
    const { campaign, billable } = found;
    const requestInvalid = this.traffic.invalidReason({ ip: facts.ip, userAgent: facts.userAgent });
    const day = budgetDayOf(campaign, now).key;
    const clickId = newId(now);
    const request: ClickRequest = withFields(budgetFacts(campaign, day), {
      userId: event.messengerUserId,
      adBlockId: event.adBlockId,
      adId: event.adId,
      now,
      priceMicros: campaign.billingType === 'CPC' ? campaign.costPerMicros : 0,
      exclusionMs: this.runtimeConfig.appEnv === 'test' ? 0 : CLICK_EXCLUSION_MS,
      clickId,
      billable,
      invalidRequest: requestInvalid !== null,
      minDelayMs: this.trustConfig.minClickDelayMs,
    });
    const outcome = await this.state.registerClick(request);
    if (outcome.kind === 'noImpression') {
      // Redis lost the served marks lately: one of this campaign's impressions on the block before it may be the one.
      // While the loss settles the database may not hold them yet, so the click is asked to come back.
      if (outcome.stateLostAt !== undefined) {
        if (outcome.settlesAt !== undefined && now < outcome.settlesAt) {
          throw new ClickStateLostError(Math.max(1, Math.ceil((outcome.settlesAt - Math.max(now, outcome.stateLostAt)) / 1000)));
        }
        if (await readWithinDeadline(this.statsService.servedOnBlockBetween(campaign.id, event.adBlockId, now - IMPRESSION_WINDOW_MS, outcome.stateLostAt))) {
          throw new ClickStateLostError();
        }
      }
      throw noImpression();
    }
    if (outcome.kind === 'duplicate') return { status: 'success', msg: CLICK_MESSAGES.duplicate };
    const counted = outcome.status === 'counted';
    // the click keeps its impression's click id (docs/CONTRACT.md §20); a lost one leaves the click without
    const clickToken = usesMacros(campaign)
      ? await this.clickIds.find(event.adBlockId, event.messengerUserId, event.adId, now).catch((error: unknown) => {
          this.logger.warn({ err: error }, 'click id not read');
          return null;
        })
      : null;

    const click = Object.assign(new Click(), {
      id: clickId,
      campaignId: campaign.id,
      advertiserId: campaign.accountId,
      adBlockId: event.adBlockId,
      adId: event.adId,
      messengerUserId: event.messengerUserId,
      costMicros: outcome.costMicros,
      earningsMicros: shareOfMicros(outcome.costMicros, this.servingConfig.publisherShare),
      createdAt: now,
      status: outcome.status,
      invalidReason: outcome.invalidReason === 'request' ? requestInvalid : outcome.invalidReason,
      verificationStatus: counted && campaign.verificationUrl ? 'pending' : 'none',
      verificationAttempts: 0,
      verificationError: null,
      verifiedAt: null,
      clickToken,
    });
    try {
      // the report rollup's country and platform: those of the click's request
      await this.stats.recordClick(
        withFields(click, {
          country: this.geo.countryOf(facts.ip),
          platform: platformFromUserAgent(facts.userAgent),
          day,
          commitBy: facts.answerBy === undefined ? undefined : facts.answerBy - COMMIT_MARGIN_MS,
        }),
      );
    } catch (error) {
      // A write whose outcome is not known may have committed: the click stays bound, so sent again it is a
      // duplicate and never a second row, and its price stays aside until the database shows whether its row exists.
      if (error instanceof WriteOutcomeUnknownError) this.state.clickOutcomeUnknown(request);
      else await this.state.undoClick(request, outcome.costMicros);
      throw error;
    }
    // Not awaited: the answer need not wait for it (a missed one is settled against the database later).
    this.state.clickCommitted(request).catch((error: unknown) => this.logger.warn({ err: error }, 'committed click not settled in the serving state'));
    if (click.verificationStatus === 'pending') {
      // The click is committed; a failed enqueue leaves it pending and the workers' sweep schedules it again. Not
      // awaited: the answer never waits for the queue's Redis (docs/OPERATIONS.md, Faults).
      void this.verification.schedule(click.id).catch((error) => this.logger.warn({ err: error, clickId: click.id }, 'verification not scheduled'));
    }
    // This process stops serving it at once; the others within a lease's permission (a second) or their next refresh.
    if (outcome.budgetSpent) this.index.markExhausted([campaign.id]);
    if (outcome.status === 'invalid') return { status: 'success', msg: invalidClickMessage(outcome.invalidReason, requestInvalid) };
    return { status: 'success', msg: CLICK_MESSAGES[outcome.status] };
  }
}

export type ViewResult = Exclude<ViewOutcome, 'noImpression'> | 'testAd';
