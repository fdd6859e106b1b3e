import { Inject, Injectable } from '@nestjs/common';
import { RUNTIME_CONFIG, RuntimeConfig } from '../common/runtime.config';
import { TRUST_CONFIG, TrustConfig } from '../trust/trust.config';
import type { RequestFacts } from '../common/request-facts';
import type { Principal } from '../accounts/principal';
import { budgetDayAt, DEFAULT_TIME_ZONE } from '../common/time-zone';
import { Clock } from '../common/clock';
import { ConflictError, WriteOutcomeUnknownError } from '../common/errors';
import { newId } from '../common/ids';
import { fillDestinationMacros, hasDestinationMacros } from '../clicks/click-ids';
import { CLICK_EXCLUSION_MS } from '../clicks/clicks.service';
import { noImpression } from '../clicks/no-impression';
import { GeoService } from '../serving/geo.service';
import { languageFromAcceptLanguage } from '../serving/request-context';
import { reserveInRounds } from '../serving/reserve-in-rounds';
import { ClickRequest, ImpressionCandidate, SERVING_STATE, ServingState } from '../serving/state/serving-state';
import { ExchangeClickEventDataDto, ExchangeEntriesDto, ExchangeEntryDto, ExchangeFetchQueryDto } from './dto/exchange.dto';
import { ExchangeClick } from './entities/exchange-click.entity';
import { ExchangeCampaignRef, ExchangeIndexService } from './exchange-index.service';
import { DEBTOR_SLOTS, entryIdOf, ExchangeContext, RankedExchangeCampaign, selectExchangeCandidates } from './exchange-matcher';
import { ExchangeStatsWriterService } from './exchange-stats-writer.service';
import { TrafficClassifier } from '../trust/traffic-classifier';
import { withFields } from '../common/with-fields';

/** Exchange entries cost nothing and have no budget: the serving state's budget checks always pass. */
/** Exchange entries have no budget: their serving state counters follow UTC days. */
const UTC_DAYS = { timeZone: DEFAULT_TIME_ZONE, nextTimeZone: null, timeZoneChangesAt: null };

const NO_BUDGET = {
  totalBudgetMicros: Number.MAX_SAFE_INTEGER,
  dailyBudgetMicros: Number.MAX_SAFE_INTEGER,
  knownSpentMicros: 0,
  knownDaySpentMicros: 0,
};

/**
 * Endpoints 8 and 9 on top of serving's shared state: an entry shown is an impression bound to (user, out campaign,
 * entry), clicks are bound to it, counted once per 10 minutes, and hide the entry from that user for 10 minutes in
 * production. The entry id `ex_<in>` and the out campaign id in the ad-block slot keep its keys apart from ads.
 */
@Injectable()
export class ExchangeService {
  constructor(
    private readonly index: ExchangeIndexService,
    private readonly stats: ExchangeStatsWriterService,
    private readonly geo: GeoService,
    private readonly clock: Clock,
    @Inject(SERVING_STATE) private readonly state: ServingState,
    @Inject(RUNTIME_CONFIG) private readonly runtimeConfig: RuntimeConfig,
    @Inject(TRUST_CONFIG) private readonly trustConfig: TrustConfig,
    private readonly traffic: TrafficClassifier,
  ) {}

  async fetchEntries(principal: Principal, query: ExchangeFetchQueryDto, facts: RequestFacts): Promise<ExchangeEntriesDto> {
    const out = await this.index.usable(principal, query.exchangeCampaignId, 'exchangeCampaignId');
    if (out.status === 'ended') throw new ConflictError('exchangeCampaignId: the exchange campaign has ended');

    const now = this.clock.now();
    const context: ExchangeContext = {
      callerAccountId: out.accountId,
      country: this.geo.countryOf(facts.ip),
      language: languageFromAcceptLanguage(facts.acceptLanguage),
    };
    // General invalid traffic is answered as usual, but its entries count nowhere and clicks on them move no ledger.
    const invalid = this.traffic.invalidReason({ ip: facts.ip, userAgent: facts.userAgent }) !== null;
    const served = await this.reserveBest(query, context, now, invalid);
    if (!invalid) {
      this.stats.recordImpressions(
        served.map((campaign) => ({ inId: campaign.id, outId: out.id })),
        now,
      );
    }
    return { success: true, exchangeCampaigns: served.map((campaign) => toEntry(campaign, out.id)) };
  }

  /**
   * Partners not far in debt first, as many as the limit allows; far-in-debt partners only fill what is left, at
   * most DEBTOR_SLOTS. Entries the state refuses (excluded for this user) make room for the next best.
   */
  private async reserveBest(query: ExchangeFetchQueryDto, context: ExchangeContext, now: number, invalid: boolean): Promise<RankedExchangeCampaign[]> {
    const regular = await this.reserveFrom('regular', query, context, now, query.limit, invalid);
    const room = Math.min(DEBTOR_SLOTS, query.limit - regular.length);
    if (room <= 0) return regular;
    return [...regular, ...(await this.reserveFrom('debtors', query, context, now, room, invalid))];
  }

  private reserveFrom(
    group: 'regular' | 'debtors',
    query: ExchangeFetchQueryDto,
    context: ExchangeContext,
    now: number,
    limit: number,
    invalid: boolean,
  ): Promise<RankedExchangeCampaign[]> {
    const day = budgetDayAt(UTC_DAYS, now).key;
    return reserveInRounds({
      limit,
      candidates: (max, offered) => selectExchangeCandidates(this.index.ranked, context, max, offered)[group],
      reserve: (candidates, wanted) =>
        this.state.reserveImpressions(
          { userId: query.openId, adBlockId: query.exchangeCampaignId, now, limit: wanted, invalid },
          candidates.map((campaign) => toCandidate(campaign, day)),
        ),
    });
  }

  /** Checks that the out campaign is the caller's (404 naming `field` otherwise, as for an unknown id). */
  async assertUsableOut(principal: Principal, outExchangeCampaignId: string, field: string): Promise<void> {
    await this.index.usable(principal, outExchangeCampaignId, field);
  }

  /**
   * Counts a click on a served entry (endpoint 9): bound to an impression of that entry for that user in that out
   * campaign within 24 h, one per impression; the click row, the ledger (out credited, in debited) and the hourly
   * counters are committed in one transaction before the answer. An invalid click (its request or its impression
   * invalid traffic, or sooner than MIN_CLICK_DELAY_MS after it) uses up the impression and is stored nowhere.
   */
  async reportClick(principal: Principal, event: ExchangeClickEventDataDto, facts: RequestFacts): Promise<void> {
    const out = await this.index.usable(principal, event.outExchangeCampaignId, 'eventData.outExchangeCampaignId');
    const promoted = await this.index.lookup(event.inExchangeCampaignId);
    if (!promoted || promoted.accountId === out.accountId) throw noImpression();

    const now = this.clock.now();
    const entryId = entryIdOf(promoted.id);
    // the row's id, known to the binding: a bind re-sent after a lost reply answers as the first (click-bind.lua)
    const clickId = newId(now);
    const request: ClickRequest = withFields(NO_BUDGET, {
      campaignId: entryId,
      adId: entryId,
      adBlockId: out.id,
      userId: event.messengerUserId,
      now,
      day: budgetDayAt(UTC_DAYS, now).key,
      priceMicros: 0,
      exclusionMs: this.runtimeConfig.appEnv === 'test' ? 0 : CLICK_EXCLUSION_MS,
      invalidRequest: this.traffic.invalidReason({ ip: facts.ip, userAgent: facts.userAgent }) !== null,
      minDelayMs: this.trustConfig.minClickDelayMs,
      clickId,
    });
    const outcome = await this.state.registerClick(request);
    if (outcome.kind === 'noImpression') throw noImpression();
    if (outcome.kind === 'duplicate' || outcome.status !== 'counted') return;

    try {
      await this.stats.recordClick(toClick(clickId, out, promoted, event.messengerUserId, now));
    } catch (error) {
      // as an ad click (ClicksService): one whose write may have committed stays bound, so it is never counted twice
      if (error instanceof WriteOutcomeUnknownError) this.state.clickOutcomeUnknown(request);
      else await this.state.undoClick(request, 0);
      throw error;
    }
    this.index.noteClick(out, promoted);
  }
}

/** Exchange entries cost nothing and have no budget: their day only names the counters the serving state keeps. */
function toCandidate(campaign: RankedExchangeCampaign, day: string): ImpressionCandidate {
  return withFields(NO_BUDGET, { campaignId: campaign.entryId, adId: campaign.entryId, priceMicros: 0, day });
}

/**
 * The entry as answered. Its destination URL's macros are those of served ads (docs/CONTRACT.md §20): `{campaign_id}`
 * is the promoted exchange campaign, `{ad_block_id}` the out campaign it is shown in, and `{click_id}` is left empty,
 * as exchange conversions are credited by user, never by click id.
 */
function toEntry(campaign: RankedExchangeCampaign, outId: string): ExchangeEntryDto {
  const destination = campaign.creative.destination;
  const entry: ExchangeEntryDto = {
    inExchangeCampaignId: campaign.id,
    outExchangeCampaignId: outId,
    icon: campaign.creative.icon,
    text: campaign.creative.text,
    destination: hasDestinationMacros(destination.url)
      ? withFields(destination, { url: fillDestinationMacros(destination.url, { clickId: null, campaignId: campaign.id, adBlockId: outId }) })
      : destination,
  };
  if (campaign.creative.image) entry.image = campaign.creative.image;
  return entry;
}

function toClick(id: string, out: ExchangeCampaignRef, promoted: ExchangeCampaignRef, messengerUserId: string, now: number): ExchangeClick {
  return Object.assign(new ExchangeClick(), {
    id,
    inExchangeCampaignId: promoted.id,
    outExchangeCampaignId: out.id,
    inAccountId: promoted.accountId,
    outAccountId: out.accountId,
    messengerUserId,
    createdAt: now,
  });
}
