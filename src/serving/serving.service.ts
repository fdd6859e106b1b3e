import { Inject, Injectable } from '@nestjs/common';
import { SERVING_CONFIG, ServingConfig } from './serving.config';
import { AdBlocksService, type BlockControls, ServingBlock } from '../ad-blocks/ad-blocks.service';
import type { Principal } from '../accounts/principal';
import { Clock } from '../common/clock';
import { NotFoundError } from '../common/errors';
import type { RequestFacts } from '../common/request-facts';
import { shareOfMicros } from '../common/money';
import { MetricsService } from '../metrics/metrics.service';
import { PROFILE_STORE, ProfileFacts, ProfileStore } from '../profiles/store/profile-store';
import { StatsWriterService } from '../stats/stats-writer.service';
import { TrafficClassifier } from '../trust/traffic-classifier';
import { CampaignIndexService } from './campaign-index.service';
import { IndexedCampaign, MatchContext } from './campaign-matcher';
import { isDebug, testAds } from './debug-ads';
import { AdFetchQueryDto, ServedAdDto, ServedAdsDto } from './dto/serving.dto';
import { GeoService } from './geo.service';
import { languageFromAcceptLanguage, platformFromUserAgent } from './request-context';
import { reserveInRounds } from './reserve-in-rounds';
import { SignedViewers } from './signed-viewer';
import { BudgetFacts, ImpressionCandidate, SERVING_STATE, ServingState } from './state/serving-state';
import { budgetDayOf } from '../campaigns/campaign-rules';
import { PACING_RECHECK_MS, pacingPeriod } from '../campaigns/pacing';
import { BlockOptimizationService } from './block-optimization.service';
import { withFields } from '../common/with-fields';
import { ForecastSampler } from '../forecast/forecast-sampler';
import { ClickIdStore, fillDestinationMacros, hasDestinationMacros, newClickId } from '../clicks/click-ids';

@Injectable()
export class ServingService {
  constructor(
    private readonly index: CampaignIndexService,
    private readonly adBlocks: AdBlocksService,
    private readonly geo: GeoService,
    private readonly stats: StatsWriterService,
    private readonly clock: Clock,
    @Inject(SERVING_STATE) private readonly state: ServingState,
    @Inject(SERVING_CONFIG) private readonly config: ServingConfig,
    @Inject(PROFILE_STORE) private readonly profiles: ProfileStore,
    private readonly viewers: SignedViewers,
    private readonly traffic: TrafficClassifier,
    private readonly forecastSample: ForecastSampler,
    metrics: MetricsService,
    private readonly clickIds: ClickIdStore,
    private readonly optimization: BlockOptimizationService,
  ) {
    metrics.gauge('adnet_campaign_index_campaigns', "Servable campaigns in this process's campaign index.", () => index.ranked.length);
    metrics.gauge(
      'adnet_budget_leases_held',
      'Budget leases this process bills from (MySQL + Redis profile; 0 on the embedded one).',
      () => state.heldLeases().leases,
    );
    metrics.gauge(
      'adnet_budget_leases_remaining_usdt',
      'USDT still unbilled in the budget leases this process holds: what a killed process would leave for the others to reclaim.',
      () => state.heldLeases().remainingMicros / 1_000_000,
    );
  }

  async fetchAds(principal: Principal, query: AdFetchQueryDto, facts: RequestFacts): Promise<ServedAdsDto> {
    await this.adBlocks.assertUsable(principal, query.adBlockId);
    if (isDebug(facts.header('debug'))) return this.debugAds(query, facts);
    const clickIds: (string | null)[] = [];
    const served = await this.serve(query, facts, clickIds);
    const ads = served.map((campaign, i) => toServedAd(campaign, query.adBlockId, clickIds[i]));
    return { msg: servedMessage(ads.length), success: true, ads };
  }

  /**
   * fetchAds for the ton-ai-sdk (src/compat/): the same ads, each with whether its campaign has a verification
   * endpoint (the SDK's `isSupportVerified`).
   */
  async fetchVerifiableAds(
    principal: Principal,
    query: AdFetchQueryDto,
    facts: RequestFacts,
  ): Promise<{ msg: string; ads: (ServedAdDto & { verifiable: boolean })[] }> {
    await this.adBlocks.assertUsable(principal, query.adBlockId);
    if (isDebug(facts.header('debug'))) {
      const debug = await this.debugAds(query, facts);
      return { msg: debug.msg, ads: debug.ads.map((ad) => withFields(ad, { verifiable: false })) };
    }
    const clickIds: (string | null)[] = [];
    const served = await this.serve(query, facts, clickIds);
    return {
      msg: servedMessage(served.length),
      ads: served.map((campaign, i) => withFields(toServedAd(campaign, query.adBlockId, clickIds[i]), { verifiable: Boolean(campaign.verificationUrl) })),
    };
  }

  /**
   * Test ads of a block the caller may use: never counted. A block that requires signed viewers requires them here
   * too, so a publisher can try its signing without spending anything.
   */
  async debugAds(query: AdFetchQueryDto, facts: RequestFacts): Promise<ServedAdsDto> {
    await this.viewers.assertSigned(await this.blockOf(query.adBlockId), query.openId, facts);
    return { msg: DEBUG_ADS_MESSAGE, success: true, ads: testAds(query.adBlockId, query.limit) };
  }

  /**
   * Selects, reserves and counts the ads of one request whose block the caller may use: the campaigns served, best
   * first (each one impression, billed for CPM). The block's viewer rule is checked first; targeting reads the
   * profile the block's owner uploaded for this user. General invalid traffic is served the same ads, but bills
   * nothing and is counted in `invalidImpressions` (docs/TRUST_AND_SAFETY.md). `clickIds`, when given, receives each
   * served ad's click id (null for a campaign whose destination URL has no macro), remembered for its click.
   */
  async serve(query: AdFetchQueryDto, facts: RequestFacts, clickIds?: (string | null)[]): Promise<IndexedCampaign[]> {
    // What this process remembers is read without a promise: each awaited one is a microtask turn on every request.
    const block = this.adBlocks.knownServingBlock(query.adBlockId) ?? (await this.blockOf(query.adBlockId));
    if (block.requireSignedViewer) await this.viewers.assertSigned(block, query.openId, facts);
    const now = this.clock.now();
    const invalid = this.traffic.invalidReason({ ip: facts.ip, userAgent: facts.userAgent }) !== null;
    // the request's Redis calls (a profile read, rounds of the serve script) wait at most REDIS_DEADLINE_MS together
    const redisSince = Date.now();
    const known = this.profiles.known(block.accountId, query.openId);
    const context = this.contextOf(facts, now, known !== undefined ? known : await this.profileOf(block.accountId, query.openId, redisSince));
    if (!invalid) this.forecastSample.offer(query.adBlockId, context, query.limit);
    const served = await this.reserveBest(query, context, invalid, block.controls, redisSince);
    this.stats.recordImpressions(
      served.map((campaign) => {
        const costMicros = invalid ? 0 : impressionPrice(campaign);
        return {
          campaignId: campaign.id,
          adBlockId: query.adBlockId,
          costMicros,
          earningsMicros: shareOfMicros(costMicros, this.config.publisherShare),
          invalid,
          country: context.country,
          platform: context.platform,
          day: toCandidate(campaign, now).day,
        };
      }),
      now,
    );
    if (clickIds !== undefined) {
      for (const campaign of served) {
        const clickId = usesMacros(campaign) ? newClickId(now) : null;
        if (clickId !== null) this.clickIds.remember(query.adBlockId, query.openId, campaign.adId, clickId, now);
        clickIds.push(clickId);
      }
    }
    return served;
  }

  /**
   * The best matching campaigns the serving state serves (budget left, not excluded or capped for this user), among
   * those the block's controls let through.
   */
  private reserveBest(
    query: AdFetchQueryDto,
    context: MatchContext,
    invalid: boolean,
    controls: BlockControls | null,
    redisSince: number,
  ): Promise<IndexedCampaign[]> {
    const heldBackOnBlock = this.index.skippedOn(context.now, query.adBlockId);
    return reserveInRounds({
      limit: query.limit,
      candidates: (max, offered) => this.index.candidates(context, max, heldBackOnBlock, controls, offered),
      reserve: async (candidates, wanted) => {
        const offered = candidates.map((campaign) => toCandidate(campaign, context.now, this.optimization.marginOn(campaign.id, query.adBlockId)));
        const result = await this.state.reserveImpressions(
          {
            userId: query.openId,
            adBlockId: query.adBlockId,
            now: context.now,
            limit: wanted,
            userImpressionsPerHour: this.config.userImpressionsPerHour,
            invalid,
            redisSince,
          },
          offered,
        );
        if (result.exhausted.length > 0) this.index.markExhausted(result.exhausted.map((i) => candidates[i].id));
        if (result.heldBack && result.heldBack.length > 0) {
          // held back by the line of this block alone (a lower one): the campaign still serves on better blocks
          const onBlock = result.heldBack.filter((i) => offered[i].pace?.margin !== undefined).map((i) => candidates[i].id);
          const everywhere = result.heldBack.filter((i) => offered[i].pace?.margin === undefined).map((i) => candidates[i].id);
          if (everywhere.length > 0) this.index.holdBack(everywhere, context.now + PACING_RECHECK_MS);
          if (onBlock.length > 0) this.index.holdBackOnBlock(query.adBlockId, onBlock, context.now + PACING_RECHECK_MS);
        }
        return result;
      },
    });
  }

  /** The block (its owner and viewer rule); callers have checked that it exists and is the caller's. */
  private async blockOf(adBlockId: string): Promise<ServingBlock> {
    const block = await this.adBlocks.servingBlock(adBlockId);
    if (block === null) throw new NotFoundError('adBlockId', 'ad block');
    return block;
  }

  /** The publisher's uploaded profile's facts (one store read, no SQL); a store failure serves the user as unknown. */
  profileOf(accountId: string, userId: string, redisSince?: number): Promise<ProfileFacts | null> {
    return this.profiles.get(accountId, userId, redisSince).catch(() => null);
  }

  /**
   * What the request tells about the user: region from the request IP (the profile's IP only when that yields no
   * country), language from the profile else Accept-Language, platform from the User-Agent, flags from the profile.
   */
  contextOf(facts: RequestFacts, now: number, profile: ProfileFacts | null): MatchContext {
    return {
      now,
      country: this.geo.countryOf(facts.ip) ?? this.geo.countryOf(profile?.ipAddress ?? undefined),
      language: profile?.language ?? languageFromAcceptLanguage(facts.acceptLanguage),
      platform: platformFromUserAgent(facts.userAgent),
      premium: profile?.premium ?? false,
      highValue: profile?.highValue ?? false,
      linkedWallet: profile?.linkedWallet ?? false,
      linkedChainWallet: profile?.linkedChainWallet ?? false,
      walletHasBalance: profile?.walletHasBalance ?? false,
    };
  }
}

export const DEBUG_ADS_MESSAGE = 'test ads (debug): not counted or billed';

export function servedMessage(count: number): string {
  return count > 0 ? `${count} ads` : 'no matching ads';
}

/** One CPM impression costs costPer/1000 (whole micro-USDT: CPM bids have at most 3 decimals); CPC ones nothing. */
export function impressionPrice(campaign: Pick<IndexedCampaign, 'billingType' | 'costPerMicros'>): number {
  return campaign.billingType === 'CPM' ? campaign.costPerMicros / 1000 : 0;
}

/**
 * A candidate holds for its campaign version from `from` until `until` (its budget day, pacing period); `byMargin`
 * holds its variants for ad blocks with a pacing margin of their own (optimization).
 */
type CachedCandidate = ImpressionCandidate & { from: number; until: number; byMargin?: Map<number, ImpressionCandidate> };

/** Candidates are the same for a campaign version all day: built once a day, not for every request. */
const candidateCache = new WeakMap<IndexedCampaign, CachedCandidate>();

/**
 * The campaign as the serving state sees it at `now`: its price, cap, budgets, budget day and pacing period; with
 * `margin` (the request's ad block holds the campaign back first, src/serving/block-optimization.ts), its pacing line
 * runs that share ahead of the elapsed fraction instead of the full margin.
 */
export function toCandidate(campaign: IndexedCampaign, now: number, margin?: number): ImpressionCandidate {
  const candidate = baseCandidate(campaign, now);
  if (margin === undefined || !candidate.pace) return candidate;
  let variant = candidate.byMargin?.get(margin);
  if (variant === undefined) {
    const pace = { start: candidate.pace.start, end: candidate.pace.end, margin };
    variant = {
      campaignId: candidate.campaignId,
      totalBudgetMicros: candidate.totalBudgetMicros,
      dailyBudgetMicros: candidate.dailyBudgetMicros,
      knownSpentMicros: candidate.knownSpentMicros,
      knownDaySpentMicros: candidate.knownDaySpentMicros,
      day: candidate.day,
      adId: candidate.adId,
      priceMicros: candidate.priceMicros,
      frequencyCap: candidate.frequencyCap,
      pace,
    };
    (candidate.byMargin ??= new Map()).set(margin, variant);
  }
  return variant;
}

function baseCandidate(campaign: IndexedCampaign, now: number): CachedCandidate {
  let candidate = candidateCache.get(campaign);
  if (candidate === undefined || now < candidate.from || now >= candidate.until) {
    const day = budgetDayOf(campaign, now);
    // the pacing period changes where the day does, and where the campaign's window begins or ends within it
    let from = day.start;
    let until = day.end;
    for (const edge of [campaign.startTime, campaign.endTime]) {
      if (edge <= now) from = Math.max(from, edge);
      else until = Math.min(until, edge);
    }
    candidate = {
      adId: campaign.adId,
      priceMicros: impressionPrice(campaign),
      frequencyCap: campaign.frequencyCap ?? null,
      ...budgetFacts(campaign, day.key),
      pace: pacingPeriod(campaign.pacing, day, campaign.startTime, campaign.endTime, now),
      from,
      until,
    };
    candidateCache.set(campaign, candidate);
  }
  return candidate;
}

/** The budgets of a campaign on the budget day `day` (its key), and the spend the database knew of when the index loaded it. */
export function budgetFacts(campaign: IndexedCampaign, day: string): BudgetFacts {
  return {
    campaignId: campaign.id,
    totalBudgetMicros: campaign.totalBudgetMicros,
    dailyBudgetMicros: campaign.dailyBudgetMicros,
    knownSpentMicros: campaign.spentMicros,
    knownDaySpentMicros: campaign.spentDay === day ? campaign.daySpentMicros : 0,
    day,
  };
}

const macroUse = new WeakMap<IndexedCampaign, boolean>();

/** Whether the campaign's destination URL has `{click_id}`, `{campaign_id}` or `{ad_block_id}` (per campaign version). */
export function usesMacros(campaign: IndexedCampaign): boolean {
  let uses = macroUse.get(campaign);
  if (uses === undefined) {
    uses = hasDestinationMacros(campaign.creative.destination.url);
    macroUse.set(campaign, uses);
  }
  return uses;
}

/** The served ad; a destination URL's macros are filled with this impression's click id and the ids (docs/CONTRACT.md §20). */
export function toServedAd(campaign: IndexedCampaign, adBlockId: string, clickId: string | null = null): ServedAdDto {
  const destination = usesMacros(campaign)
    ? withFields(campaign.creative.destination, {
        url: fillDestinationMacros(campaign.creative.destination.url, { clickId, campaignId: campaign.id, adBlockId }),
      })
    : campaign.creative.destination;
  return {
    adBlockId,
    adId: campaign.adId,
    campaignId: campaign.id,
    icon: campaign.creative.icon,
    image: campaign.creative.image,
    text: campaign.creative.text,
    brandName: campaign.creative.brandName,
    buttonText: campaign.creative.buttonText,
    destination,
  };
}
