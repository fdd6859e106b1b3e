import { Injectable, Logger } from '@nestjs/common';
import type { Principal } from '../accounts/principal';
import { ValidationError } from '../common/errors';
import type { RequestFacts } from '../common/request-facts';
import { ConversionsService } from '../conversions/conversions.service';
import { ClicksService } from '../clicks/clicks.service';
import { ExchangeFetchQueryDto } from '../exchange/dto/exchange.dto';
import { ExchangeConversionsService } from '../exchange/exchange-conversions.service';
import { ExchangeService } from '../exchange/exchange.service';
import type { WalletClass } from '../profiles/dto/profile.dto';
import { MetricsService } from '../metrics/metrics.service';
import { ProfilesService } from '../profiles/profiles.service';
import { AdFetchQueryDto, DestinationResponseDto } from '../serving/dto/serving.dto';
import { ServingService } from '../serving/serving.service';
import {
  SdkAdDto,
  SdkAdEventDto,
  SdkAdVerifyQueryDto,
  SdkCommonEventDto,
  SdkDestinationDto,
  SdkEventResultDto,
  SdkExchangeEntryDto,
  SdkExchangeEventDto,
  SdkExchangeVerifyQueryDto,
  SdkProfileResultDto,
  SdkUserProfileDto,
  SdkVerifyResultDto,
} from './dto/sdk.dto';
import { CompletionsService } from '../rewards/completions.service';
import { isSdkSign, SIGNED_AD_FIELDS, SIGNED_EXCHANGE_FIELDS } from './sdk-sign';
import { withFields } from '../common/with-fields';

const WALLET_CLASS: Record<string, WalletClass> = { ton: 'primary', primary: 'primary', evm: 'evm', alt: 'alt' };

const IGNORED_CONVERSION_MESSAGE = 'conversion ignored: only a full advertiser key reports conversions';

const VIEW_MESSAGES = {
  counted: 'view counted',
  duplicate: "this impression's view was reported already: not counted again",
  invalid: 'view of invalid traffic: not counted',
  testAd: 'test ad: not counted',
} as const;

/**
 * The ton-ai-sdk 2.2.2's routes mapped onto the canonical services (docs/SWITCHING_FROM_TON_AI.md): serving,
 * clicks, views, conversions, exchange and profiles are theirs; this only translates names and answer shapes and
 * checks the SDK's `sign`. The caller's access to each canonical operation is checked by the controller.
 */
/** At most one common event per account per this interval is logged at info. */
const COMMON_EVENT_LOG_EVERY_MS = 60_000;
/** Accounts remembered for the sampling; past it the memory starts over (a few extra info lines, never growth). */
const COMMON_EVENT_LOG_ACCOUNTS = 10_000;

@Injectable()
export class CompatService {
  private readonly logger = new Logger('TonAiSdk');

  constructor(
    private readonly serving: ServingService,
    private readonly events: ClicksService,
    private readonly completions: CompletionsService,
    private readonly conversions: ConversionsService,
    private readonly exchange: ExchangeService,
    private readonly exchangeConversions: ExchangeConversionsService,
    private readonly profiles: ProfilesService,
    private readonly metrics: MetricsService,
  ) {}

  /** When each account's last common event was logged at info (sampling, see recordCommonEvent). */
  private readonly commonEventLogged = new Map<string, number>();

  async fetchAds(principal: Principal, adBlockId: string, openId: string, limit: number, facts: RequestFacts): Promise<{ msg: string; ads: SdkAdDto[] }> {
    const query = Object.assign(new AdFetchQueryDto(), { adBlockId, openId, type: 'messenger', limit });
    const { msg, ads } = await this.serving.fetchVerifiableAds(principal, query, facts);
    return {
      msg,
      ads: ads.map(({ verifiable, ...ad }) =>
        withFields(ad, {
          adFormat: 'image' as const,
          popupImage: ad.image,
          isSupportVerified: verifiable,
          destination: sdkDestination(ad.destination),
        }),
      ),
    };
  }

  /** GetTonAd's answer: the best ad's fields beside `success`, or `success: false` when none matched. */
  async fetchSingleAd(principal: Principal, adBlockId: string, openId: string, facts: RequestFacts): Promise<object> {
    const { msg, ads } = await this.fetchAds(principal, adBlockId, openId, 1, facts);
    return ads.length > 0 ? { success: true, message: msg, ...ads[0] } : { success: false, message: msg };
  }

  /** GetTonExchangeAd's answer: the best entry's fields beside `success`, or `success: false` when none matched. */
  async fetchSingleExchangeEntry(principal: Principal, exchangeCampaignId: string, openId: string, facts: RequestFacts): Promise<object> {
    const [entry] = await this.fetchExchangeEntries(principal, exchangeCampaignId, openId, 1, facts);
    return entry ? { success: true, message: '1 entries', ...entry } : { success: false, message: 'no matching exchange entries' };
  }

  async fetchExchangeEntries(
    principal: Principal,
    exchangeCampaignId: string,
    openId: string,
    limit: number,
    facts: RequestFacts,
  ): Promise<SdkExchangeEntryDto[]> {
    const query = Object.assign(new ExchangeFetchQueryDto(), { exchangeCampaignId, openId, type: 'messenger', limit });
    const { exchangeCampaigns } = await this.exchange.fetchEntries(principal, query, facts);
    return exchangeCampaigns.map((entry) => ({
      inExchangeCampaignId: entry.inExchangeCampaignId,
      outExchangeCampaignId: entry.outExchangeCampaignId,
      adFormat: 'image' as const,
      icon: entry.icon ?? '',
      ...(entry.image === undefined ? {} : { image: entry.image }),
      text: entry.text ?? '',
      isSupportVerified: false,
      destination: sdkDestination(entry.destination!),
    }));
  }

  /**
   * The SDK's ad event. `click`: a click (endpoint 6). `impression`: a view of the served impression, never billed,
   * at most one per impression. `complete` (the popup's countdown ran out): endpoint 6's completion, the same event as
   * `eventType: complete` there (docs/REWARDED_ADS.md). `conversion`: a conversion
   * (endpoint 7). `signKey` is what the SDK signed with: its app id, else its app key.
   */
  async reportAdEvent(principal: Principal, body: SdkAdEventDto, signKey: string, facts: RequestFacts): Promise<SdkEventResultDto> {
    assertSigned(body.sign, body.eventData, SIGNED_AD_FIELDS, signKey);
    const event = body.eventData;
    if (body.eventType === 'conversion') {
      const outcome = await this.conversions.report(principal, event.openId);
      return { status: 'success', msg: outcome.attributed ? 'conversion attributed' : 'conversion stored, not attributed to a click' };
    }
    const served = {
      adBlockId: required(event.adBlockId, 'eventData.adBlockId'),
      adId: required(event.adId, 'eventData.adId'),
      campaignId: required(event.campaignId, 'eventData.campaignId'),
      messengerUserId: event.openId,
    };
    if (body.eventType === 'click') {
      const result = await this.events.reportClick(principal, served, facts);
      return { status: 'success', msg: result.msg };
    }
    if (body.eventType === 'complete') return { status: 'success', msg: (await this.completions.reportCompletion(principal, served, facts)).msg };
    return { status: 'success', msg: VIEW_MESSAGES[await this.events.reportView(principal, served, facts)] };
  }

  /**
   * A conversion from a key that cannot report one (TonAdInit's default conversion with a publisher's key): its sign is
   * checked like any event's, then nothing is stored; the metrics count it.
   */
  ignoreConversion(body: SdkAdEventDto, signKey: string): SdkEventResultDto {
    assertSigned(body.sign, body.eventData, SIGNED_AD_FIELDS, signKey);
    this.metrics.countSdkConversionIgnored();
    return { status: 'success', msg: IGNORED_CONVERSION_MESSAGE };
  }

  /**
   * The SDK's exchange event. `click`: an exchange click (endpoint 9). `conversion` (SendTonExchangeConversion, sent by
   * the app the user was brought to): an exchange conversion of the caller's received user (docs/CONTRACT.md §14).
   * `impression` and `complete`: the out campaign must be the caller's; nothing is counted (each entry answered is
   * already one impression).
   */
  async reportExchangeEvent(principal: Principal, body: SdkExchangeEventDto, signKey: string, facts: RequestFacts): Promise<SdkEventResultDto> {
    assertSigned(body.sign, body.eventData, SIGNED_EXCHANGE_FIELDS, signKey);
    const event = body.eventData;
    if (body.eventType === 'conversion') {
      const outcome = await this.exchangeConversions.report(principal, event.telegramUserId);
      return { status: 'success', msg: outcome.attributed ? 'conversion attributed' : 'conversion stored, not attributed to an exchange click' };
    }
    const outExchangeCampaignId = required(event.outExchangeCampaignId, 'eventData.outExchangeCampaignId');
    const inExchangeCampaignId = required(event.inExchangeCampaignId, 'eventData.inExchangeCampaignId');
    if (body.eventType === 'click') {
      await this.exchange.reportClick(principal, { messengerUserId: event.telegramUserId, inExchangeCampaignId, outExchangeCampaignId }, facts);
      return { status: 'success', msg: 'click reported' };
    }
    await this.exchange.assertUsableOut(principal, outExchangeCampaignId, 'eventData.outExchangeCampaignId');
    return { status: 'success', msg: `${body.eventType}: not counted (each entry answered is one impression)` };
  }

  /**
   * UpdateUserProfile: a wallet becomes a profile batch of one record (endpoint 10; the controller lets only the keys
   * through that may send one, full publisher keys); the SDK's `events` (`onBoard` at init) are accepted, not stored.
   */
  async updateProfile(principal: Principal, body: SdkUserProfileDto): Promise<SdkProfileResultDto> {
    if (body.walletAddress === undefined && body.walletClassify === undefined) return { messengerUserId: body.openId };
    const walletAddress = required(body.walletAddress, 'walletAddress');
    const walletClassify = WALLET_CLASS[required(body.walletClassify, 'walletClassify')];
    const accountId = await this.profiles.ownerOf(principal, undefined);
    const batchId = await this.profiles.accept(accountId, [{ messengerUserId: body.openId, walletAddress, walletClassify }]);
    return { messengerUserId: body.openId, batchId };
  }

  /**
   * The SDK's common events are mostly its own error reports, sent with a public key: counted in /metrics (errors
   * apart) and not stored. A script could send them as fast as the rate limit allows, so the log gets a sample: one
   * line per account per minute at info, the rest at debug.
   */
  recordCommonEvent(principal: Principal, body: SdkCommonEventDto, now: number = Date.now()): void {
    const kind = body.eventName.startsWith('error-') ? 'error' : 'other';
    this.metrics.countSdkCommonEvent(kind);
    const line = { accountId: principal.accountId, keyId: principal.keyId, eventName: body.eventName, openId: body.openId };
    const last = this.commonEventLogged.get(principal.accountId);
    if (last !== undefined && now - last < COMMON_EVENT_LOG_EVERY_MS) {
      this.logger.debug(line, 'ton-ai-sdk event');
      return;
    }
    if (this.commonEventLogged.size >= COMMON_EVENT_LOG_ACCOUNTS) this.commonEventLogged.clear();
    this.commonEventLogged.set(principal.accountId, now);
    this.logger.log(line, 'ton-ai-sdk event (one per account per minute logged at info; all counted in adnet_sdk_common_events_total)');
  }

  async adVerification(principal: Principal, query: SdkAdVerifyQueryDto): Promise<SdkVerifyResultDto> {
    const status = await this.events.latestClickVerification(principal, query.campaignId, query.openId);
    if (status === null) return { isVerified: false, message: 'no counted click of this user on this campaign from your ad blocks' };
    return { isVerified: status === 'verified', message: VERIFICATION_MESSAGES[status] ?? `verification ${status}` };
  }

  /**
   * The SDK asks, with the promoted (in) campaign of an entry the user clicked, whether the user converted there: the
   * exchange conversion its partner reported for the user's latest click into it, among the clicks the caller's own
   * exchange campaigns sent.
   */
  async exchangeVerification(principal: Principal, query: SdkExchangeVerifyQueryDto): Promise<SdkVerifyResultDto> {
    const converted = await this.exchangeConversions.latestClickConverted(principal, query.exchangeCampaignId, query.openId);
    if (converted === null) return { isVerified: false, message: 'no exchange click of this user into this campaign from your exchange campaigns' };
    return converted
      ? { isVerified: true, message: "converted: the promoted campaign's partner reported a conversion" }
      : { isVerified: false, message: 'no conversion reported for the latest click yet' };
  }
}

const VERIFICATION_MESSAGES: Record<string, string> = {
  verified: 'verified by the advertiser',
  unverified: 'the advertiser answered false',
  pending: 'verification pending',
  error: "the advertiser's verification endpoint did not answer",
  none: 'the campaign has no verification endpoint',
};

function sdkDestination(destination: DestinationResponseDto): SdkDestinationDto {
  return { actionType: destination.actionType, url: destination.url, destinationConfig: { url: destination.url } };
}

function required(value: string | undefined, field: string): string {
  if (value === undefined) throw ValidationError.of(field, 'is required');
  return value;
}

function assertSigned(sign: string, eventData: object, signedFields: readonly string[], signKey: string): void {
  if (!isSdkSign(sign, eventData as Record<string, unknown>, signedFields, signKey)) {
    throw ValidationError.of('sign', 'does not match eventData (the ton-ai-sdk md5 sign, with the x-api-id or else the key sent)');
  }
}
