import { BlockOptimizationService } from './block-optimization.service';
import { marginOfPlan } from './block-optimization';
import { PACING_MARGIN } from '../campaigns/pacing';
import { Inject, Injectable } from '@nestjs/common';
import { SERVING_CONFIG, ServingConfig } from './serving.config';
import { isAdmin, type Principal } from '../accounts/principal';
import { AdBlocksService, type ServingBlock } from '../ad-blocks/ad-blocks.service';
import { CampaignsService } from '../campaigns/campaigns.service';
import type { Campaign } from '../campaigns/entities/campaign.entity';
import { Clock } from '../common/clock';
import { ValidationError } from '../common/errors';
import type { RequestFacts } from '../common/request-facts';
import type { ProfileFacts } from '../profiles/store/profile-store';
import { TrafficClassifier } from '../trust/traffic-classifier';
import { CampaignIndexService, isServable, toIndexed } from './campaign-index.service';
import { IndexedCampaign, MatchContext, selectCandidates } from './campaign-matcher';
import {
  blockControlChecks,
  campaignChecks,
  controlChecks,
  DeliveryCheck,
  FactSources,
  matchChecks,
  networkControlChecks,
  noCountryDetail,
  optimizationCheck,
  ordinal,
  pacingCheck,
  stateChecks,
} from './delivery-checks';
import { DeliveryDiagnosisDto, DeliveryDiagnosisQueryDto, DiagnosedAdDto, DiagnosisRankDto } from './dto/delivery-diagnosis.dto';
import { GeoService } from './geo.service';
import { languageFromAcceptLanguage, platformFromUserAgent } from './request-context';
import { reserveInRounds } from './reserve-in-rounds';
import { ServingService, toCandidate } from './serving.service';
import { SignedViewers, VIEWER_HEADER } from './signed-viewer';
import { ImpressionCandidate, previewReserve, SERVING_STATE, ServingState } from './state/serving-state';
import { withFields } from '../common/with-fields';

/** The checks that stop a block from answering ads whatever the campaigns. */
const BLOCK_SIDE = new Set(['block.signedViewer', 'userCap']);

/** How deep the rank of a campaign is looked for among the servable ones. */
const RANK_DEPTH = 1000;

interface Setting {
  now: number;
  facts: RequestFacts;
  block: (ServingBlock & { id: string }) | null;
  openId: string | null;
  context: MatchContext;
  sources: FactSources;
  limit: number;
}

/**
 * "Why is my ad not showing?" (docs/CONTRACT.md §15). Runs the serving path's own rules for a campaign and the facts
 * of a request (given, or this request's own), reading only: the campaign index, the matcher, the serving state's
 * preview (nothing reserved, billed, marked or counted) and the profile store.
 */
@Injectable()
export class DeliveryDiagnosisService {
  constructor(
    private readonly campaigns: CampaignsService,
    private readonly adBlocks: AdBlocksService,
    private readonly serving: ServingService,
    private readonly index: CampaignIndexService,
    private readonly geo: GeoService,
    private readonly viewers: SignedViewers,
    private readonly traffic: TrafficClassifier,
    private readonly clock: Clock,
    @Inject(SERVING_STATE) private readonly state: ServingState,
    @Inject(SERVING_CONFIG) private readonly config: ServingConfig,
    private readonly optimization: BlockOptimizationService,
  ) {}

  async diagnose(principal: Principal, query: DeliveryDiagnosisQueryDto, requestFacts: RequestFacts): Promise<DeliveryDiagnosisDto> {
    if (query.campaignId === undefined && query.adBlockId === undefined) {
      throw ValidationError.of('campaignId', 'is required unless adBlockId is given (campaignId, adBlockId or both)');
    }
    // 404s in the order of the query: another account's campaign or block answers like an unknown one
    const campaign = query.campaignId === undefined ? null : await this.campaigns.visibleCampaign(principal, query.campaignId);
    const block = query.adBlockId === undefined ? null : { id: query.adBlockId, ...(await this.adBlocks.usableServingBlock(principal, query.adBlockId)) };
    const setting = await this.settingOf(query, requestFacts, block);
    const checks: DeliveryCheck[] = [];
    let rank: DiagnosisRankDto | null = null;
    if (campaign !== null) {
      const indexed = toIndexed(campaign);
      checks.push(...campaignChecks(campaign, setting.now));
      checks.push(...(await this.servingCounterCheck(campaign, indexed, setting)));
      checks.push(await this.optimizationCheck(indexed, setting));
      checks.push(this.indexCheck(campaign, setting.now));
      checks.push(...matchChecks(indexed, setting.context, setting.sources));
      checks.push(...(await this.userChecks(indexed, setting)));
      // a named block's own controls; else how many of the network's blocks refuse it (never which)
      checks.push(...(block !== null ? controlChecks(indexed, block.controls) : networkControlChecks(indexed, await this.adBlocks.networkControls())));
    } else {
      checks.push(...this.factChecks(setting));
      if (block !== null) checks.push(...blockControlChecks(block.controls));
    }
    checks.push(...(await this.blockChecks(setting)));
    const answered = await this.answeredAds(setting);
    if (campaign !== null) {
      rank = await this.rankOf(campaign.id, setting, answered);
      checks.push(rankCheck(rank));
    }
    checks.push(this.trafficCheck(setting));
    // traffic: invalid requests are answered all the same; the facts alone (a block's view) only tell what is unknown
    const blocking = campaign !== null ? checks.filter((check) => check.check !== 'traffic') : checks.filter((check) => BLOCK_SIDE.has(check.check));
    const servable = blocking.every((check) => check.passed) && (campaign !== null || answered.length > 0);
    return {
      campaignId: campaign?.id ?? null,
      adBlockId: block?.id ?? null,
      servable,
      facts: {
        ip: setting.sources.ip,
        country: setting.context.country,
        language: setting.context.language,
        platform: setting.context.platform,
        openId: setting.openId,
        profile: setting.sources.profile,
        invalidTraffic: this.traffic.invalidReason({ ip: setting.facts.ip, userAgent: setting.facts.userAgent }),
        time: setting.now,
      },
      checks,
      rank,
      // what a block answers is its owner's to see (and admins'); never another advertiser's settings
      ads: block !== null && (isAdmin(principal) || block.accountId === principal.accountId) ? answered.map(toDiagnosedAd) : null,
    };
  }

  /**
   * The match context serving would build (ServingService.contextOf), with the facts the caller gave in place of
   * the request's own, and where each fact came from.
   */
  private async settingOf(query: DeliveryDiagnosisQueryDto, requestFacts: RequestFacts, block: Setting['block']): Promise<Setting> {
    const now = this.clock.now();
    const facts: RequestFacts = query.ip === undefined ? requestFacts : withFields(requestFacts, { ip: query.ip });
    const openId = query.openId ?? null;
    let profile: ProfileFacts | null = null;
    let noProfileReason: string | null = null;
    if (block === null) noProfileReason = 'give adBlockId and openId to read the profile the block’s publisher uploaded';
    else if (openId === null) noProfileReason = 'give openId to read the profile the block’s publisher uploaded';
    else {
      profile = await this.serving.profileOf(block.accountId, openId);
      if (profile === null) noProfileReason = `the block’s publisher has uploaded no profile of ${openId}`;
    }
    const derived = this.serving.contextOf(facts, now, profile);
    const context: MatchContext = withFields(derived, {
      country: query.country ?? derived.country,
      language: query.language ?? derived.language,
      platform: query.platform ?? derived.platform,
    });
    const sources: FactSources = {
      ip: facts.ip,
      country: query.country ? 'query' : this.geo.countryOf(facts.ip) ? 'ip' : derived.country ? 'profile' : null,
      language: query.language ? 'query' : profile?.language ? 'profile' : languageFromAcceptLanguage(facts.acceptLanguage) ? 'acceptLanguage' : null,
      platform: query.platform ? 'query' : platformFromUserAgent(facts.userAgent) ? 'userAgent' : null,
      profile: profile !== null,
      noProfileReason,
    };
    return { now, facts, block, openId, context, sources, limit: query.limit ?? 1 };
  }

  /** The shared budget counters of the campaign as the serving state holds them, and its pacing line. */
  private async servingCounterCheck(campaign: Campaign, indexed: IndexedCampaign, setting: Setting): Promise<DeliveryCheck[]> {
    const candidate = toCandidate(indexed, setting.now);
    const preview = await this.state.preview({ userId: null, adBlockId: null, now: setting.now }, [candidate]);
    return [stateChecks(campaign, preview.candidates[0], null, false, setting.now)[0], pacingCheck(candidate, preview.candidates[0], setting.now)];
  }

  /** The block's estimate of the campaign's optimization event beside the campaign's, and whether it holds back there first. */
  private async optimizationCheck(indexed: IndexedCampaign, setting: Setting): Promise<DeliveryCheck> {
    const plan = await this.optimization.planOf(indexed.id, indexed.optimizationEvent);
    const adBlockId = setting.block?.id ?? null;
    const estimate = adBlockId === null ? undefined : [...plan.preferred, ...plan.heldBack].find((block) => block.adBlockId === adBlockId);
    const margin = adBlockId === null ? undefined : marginOfPlan(plan, adBlockId);
    const heldBackFirst = margin !== undefined && margin < PACING_MARGIN;
    const candidate = toCandidate(indexed, setting.now, heldBackFirst ? margin : undefined);
    const preview = await this.state.preview({ userId: null, adBlockId: null, now: setting.now }, [candidate]);
    return optimizationCheck(indexed, plan, adBlockId, estimate?.estimatedEventRate ?? null, heldBackFirst, candidate, preview.candidates[0], setting.now);
  }

  private async userChecks(indexed: IndexedCampaign, setting: Setting): Promise<DeliveryCheck[]> {
    const candidate = toCandidate(indexed, setting.now);
    const preview = await this.state.preview({ userId: setting.openId, adBlockId: setting.block?.id ?? null, now: setting.now }, [candidate]);
    const [, frequencyCap, exclusion] = stateChecks(indexed, preview.candidates[0], candidate.frequencyCap ?? null, setting.openId !== null, setting.now);
    return [frequencyCap, exclusion];
  }

  /** The serving index holds the campaigns serving reads: a change reaches it through a change notice, within a moment. */
  private indexCheck(campaign: Campaign, now: number): DeliveryCheck {
    const held = this.index.get(campaign.id) !== undefined;
    if (this.index.isExhausted(campaign.id)) {
      return { check: 'index', passed: false, detail: 'the serving state found its budget spent: skipped until the next index refresh' };
    }
    if (held) return { check: 'index', passed: true, detail: 'in the serving index' };
    if (isServable(campaign, now)) {
      return { check: 'index', passed: false, detail: `not in the serving index yet: a change reaches it within ${this.config.indexRefreshMs} ms` };
    }
    return { check: 'index', passed: false, detail: 'not in the serving index: status, schedule or budget keep it out (see those checks)' };
  }

  /** Without a campaign: what the facts let through at all. */
  private factChecks(setting: Setting): DeliveryCheck[] {
    const { context, sources } = setting;
    const from = (source: string | null) =>
      ({
        query: 'given',
        ip: `from the address ${sources.ip}`,
        profile: "from the user's profile",
        acceptLanguage: 'from Accept-Language',
        userAgent: 'from the User-Agent',
      })[source ?? ''] ?? '';
    return [
      {
        check: 'country',
        passed: context.country !== null,
        detail: context.country !== null ? `${context.country} (${from(sources.country)})` : noCountryDetail(sources),
      },
      {
        check: 'language',
        passed: context.language !== null,
        detail: context.language !== null ? `${context.language} (${from(sources.language)})` : 'no language: language-targeted campaigns cannot match',
      },
      {
        check: 'platform',
        passed: context.platform !== null,
        detail: context.platform !== null ? `${context.platform} (${from(sources.platform)})` : 'no platform: platform-targeted campaigns cannot match',
      },
    ];
  }

  /** The block's signed-viewer rule and the hourly cap of one (block, user) pair. */
  private async blockChecks(setting: Setting): Promise<DeliveryCheck[]> {
    const { block, openId } = setting;
    if (block === null) return [];
    let signedViewer: DeliveryCheck;
    if (!block.requireSignedViewer) signedViewer = { check: 'block.signedViewer', passed: true, detail: 'the block does not require signed viewers' };
    else if (openId === null) {
      signedViewer = {
        check: 'block.signedViewer',
        passed: false,
        detail: `the block requires signed viewers: ad requests need ${VIEWER_HEADER} made by your server (docs/SIGNED_VIEWERS.md); give openId and send the header to test`,
      };
    } else {
      const problem = await this.viewers.problemOf(block, openId, setting.facts);
      signedViewer = {
        check: 'block.signedViewer',
        passed: problem === null,
        detail: problem === null ? `${VIEWER_HEADER} is good for ${openId}` : `${VIEWER_HEADER} header ${problem}: ad requests get 401 and nothing is served`,
      };
    }
    const cap = this.config.userImpressionsPerHour;
    let userCap: DeliveryCheck;
    if (cap === 0) userCap = { check: 'userCap', passed: true, detail: 'off (USER_IMPRESSIONS_PER_HOUR=0)' };
    else if (openId === null) userCap = { check: 'userCap', passed: true, detail: `not checked: no user (openId) given; the cap is ${cap} per hour` };
    else {
      const preview = await this.state.preview({ userId: openId, adBlockId: block.id, now: setting.now }, []);
      const seen = preview.userImpressionsInHour;
      userCap = {
        check: 'userCap',
        passed: seen < cap,
        detail: `${seen} of ${cap} impressions to this user on this block within the last hour${seen < cap ? '' : ': no more ads for them this hour'}`,
      };
    }
    return [signedViewer, userCap];
  }

  /**
   * The ads a request with these facts would answer: the serving rounds (reserveInRounds) over the index's candidates,
   * each round decided by the serving state's preview instead of a reservation.
   */
  private async answeredAds(setting: Setting): Promise<IndexedCampaign[]> {
    const { context, openId, block } = setting;
    let servedSoFar = 0;
    return reserveInRounds({
      limit: setting.limit,
      candidates: (max, offered) => this.index.candidates(context, max, undefined, block?.controls ?? null, offered),
      reserve: async (candidates, wanted) => {
        const offered = candidates.map((campaign) => toCandidate(campaign, setting.now));
        const preview = await this.state.preview({ userId: openId, adBlockId: block?.id ?? null, now: context.now }, offered);
        // the impressions of the earlier rounds count against the hourly cap, as they would have been recorded
        preview.userImpressionsInHour += servedSoFar;
        const result = previewReserve({ now: context.now, limit: wanted, userImpressionsPerHour: this.userCapFor(setting) }, offered, preview);
        servedSoFar += result.served.length;
        return result;
      },
    });
  }

  /** Where the campaign places among those the serving state would serve for these facts (no limit), best first. */
  private async rankOf(campaignId: string, setting: Setting, answered: IndexedCampaign[]): Promise<DiagnosisRankDto> {
    const matching = selectCandidates(this.index.ranked, setting.context, RANK_DEPTH, this.index.allSkippedAt(setting.now), setting.block?.controls ?? null);
    const candidates: ImpressionCandidate[] = matching.map((campaign) => toCandidate(campaign, setting.now));
    const preview = await this.state.preview({ userId: setting.openId, adBlockId: setting.block?.id ?? null, now: setting.now }, candidates);
    const servable = previewReserve({ now: setting.now, limit: Number.MAX_SAFE_INTEGER }, candidates, preview).served.map((i) => matching[i].id);
    const place = servable.indexOf(campaignId);
    return {
      position: place < 0 ? null : place + 1,
      servableCampaigns: servable.length,
      limit: setting.limit,
      served: answered.some((campaign) => campaign.id === campaignId),
    };
  }

  private userCapFor(setting: Setting): number {
    return setting.block !== null && setting.openId !== null ? this.config.userImpressionsPerHour : 0;
  }

  private trafficCheck(setting: Setting): DeliveryCheck {
    const reason = this.traffic.invalidReason({ ip: setting.facts.ip, userAgent: setting.facts.userAgent });
    const why = {
      emptyUserAgent: 'no User-Agent',
      bot: 'a bot, crawler or HTTP library User-Agent',
      datacenter: `a data-centre address (${setting.facts.ip})`,
    };
    return reason === null
      ? { check: 'traffic', passed: true, detail: 'valid traffic: impressions are counted and billed' }
      : {
          check: 'traffic',
          passed: false,
          detail: `invalid traffic (${why[reason]}): the ads are answered, but not billed and counted as invalidImpressions, not impressions`,
        };
  }
}

function rankCheck(rank: DiagnosisRankDto): DeliveryCheck {
  const within = `a request for ${rank.limit} ${rank.limit === 1 ? 'ad' : 'ads'}`;
  if (rank.position === null) {
    return { check: 'rank', passed: false, detail: `not among the ${rank.servableCampaigns} campaigns servable for these facts` };
  }
  const place = `${ordinal(rank.position)} of ${rank.servableCampaigns} servable for these facts`;
  if (rank.served) return { check: 'rank', passed: true, detail: `${place}: served by ${within}` };
  if (rank.position <= rank.limit) return { check: 'rank', passed: false, detail: `${place}, but the user's hourly cap on this block leaves no room for it` };
  return { check: 'rank', passed: false, detail: `${place}: ${within} answers only the best ${rank.limit}; a higher bid places it higher` };
}

function toDiagnosedAd(campaign: IndexedCampaign): DiagnosedAdDto {
  return { campaignId: campaign.id, adId: campaign.adId, brandName: campaign.creative.brandName };
}
