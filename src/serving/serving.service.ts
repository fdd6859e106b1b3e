import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AdBlocksService } from '../ad-blocks/ad-blocks.service';
import type { Principal } from '../accounts/principal';
import { utcDay } from '../campaigns/campaign-rules';
import { Clock } from '../common/clock';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { StatsWriterService } from '../stats/stats-writer.service';
import { CampaignIndexService } from './campaign-index.service';
import { IndexedCampaign, MatchContext, selectCandidates } from './campaign-matcher';
import { isDebug, testAds } from './debug-ads';
import { AdFetchQueryDto, ServedAdDto, ServedAdsDto } from './dto/serving.dto';
import { GeoService } from './geo.service';
import { languageFromAcceptLanguage, platformFromUserAgent } from './request-context';
import { ImpressionCandidate, SERVING_STATE, ServingState } from './state/serving-state';

/** Candidates offered to the serving state per requested ad: spares for ads it refuses (budget, exclusion). */
const SPARE_CANDIDATES = 3;

@Injectable()
export class ServingService {
  constructor(
    private readonly index: CampaignIndexService,
    private readonly adBlocks: AdBlocksService,
    private readonly geo: GeoService,
    private readonly stats: StatsWriterService,
    private readonly clock: Clock,
    @Inject(SERVING_STATE) private readonly state: ServingState,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async fetchAds(principal: Principal, query: AdFetchQueryDto, request: FastifyRequest): Promise<ServedAdsDto> {
    await this.adBlocks.assertUsable(principal, query.adBlockId);
    if (isDebug(request.headers.debug)) {
      return { msg: 'test ads (debug): not counted or billed', success: true, ads: testAds(query.adBlockId, query.limit) };
    }

    const now = this.clock.now();
    const context = this.contextOf(request, now);
    const candidates = selectCandidates(this.index.ranked, context, query.limit + SPARE_CANDIDATES, this.index.skipped);
    if (candidates.length === 0) return { msg: 'no matching ads', success: true, ads: [] };

    const day = utcDay(now);
    const result = await this.state.reserveImpressions(
      { userId: query.openId, adBlockId: query.adBlockId, now, day, limit: query.limit },
      candidates.map((campaign) => toCandidate(campaign, day)),
    );
    if (result.exhausted.length > 0) this.index.markExhausted(result.exhausted.map((i) => candidates[i].id));

    const served = result.served.map((i) => candidates[i]);
    this.stats.recordImpressions(
      served.map((campaign) => {
        const costMicros = impressionPrice(campaign);
        return {
          campaignId: campaign.id,
          adBlockId: query.adBlockId,
          costMicros,
          earningsMicros: Math.floor(costMicros * this.config.publisherShare),
        };
      }),
      now,
    );
    const ads = served.map((campaign) => toServedAd(campaign, query.adBlockId));
    return { msg: ads.length > 0 ? `${ads.length} ads` : 'no matching ads', success: true, ads };
  }

  /** What the request tells about the user: region from the IP, language, platform; profile flags come later. */
  private contextOf(request: FastifyRequest, now: number): MatchContext {
    const acceptLanguage = request.headers['accept-language'];
    return {
      now,
      country: this.geo.countryOf(request.ip),
      language: languageFromAcceptLanguage(Array.isArray(acceptLanguage) ? acceptLanguage[0] : acceptLanguage),
      platform: platformFromUserAgent(request.headers['user-agent']),
      premium: false,
      highValue: false,
      linkedWallet: false,
      linkedChainWallet: false,
      walletHasBalance: false,
    };
  }
}

/** One CPM impression costs costPer/1000 (whole micro-USDT: CPM bids have at most 3 decimals); CPC ones nothing. */
export function impressionPrice(campaign: Pick<IndexedCampaign, 'billingType' | 'costPerMicros'>): number {
  return campaign.billingType === 'CPM' ? campaign.costPerMicros / 1000 : 0;
}

function toCandidate(campaign: IndexedCampaign, day: string): ImpressionCandidate {
  return { adId: campaign.adId, priceMicros: impressionPrice(campaign), ...budgetFacts(campaign, day) };
}

/** The budgets of a campaign and the spend the database knew of when the index loaded it. */
export function budgetFacts(campaign: IndexedCampaign, day: string) {
  return {
    campaignId: campaign.id,
    totalBudgetMicros: campaign.totalBudgetMicros,
    dailyBudgetMicros: campaign.dailyBudgetMicros,
    knownSpentMicros: campaign.spentMicros,
    knownDaySpentMicros: campaign.spentDay === day ? campaign.daySpentMicros : 0,
  };
}

function toServedAd(campaign: IndexedCampaign, adBlockId: string): ServedAdDto {
  return {
    adBlockId,
    adId: campaign.adId,
    campaignId: campaign.id,
    icon: campaign.creative.icon,
    image: campaign.creative.image,
    text: campaign.creative.text,
    brandName: campaign.creative.brandName,
    buttonText: campaign.creative.buttonText,
    destination: campaign.creative.destination,
  };
}
