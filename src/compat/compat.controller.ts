import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, PublishableKeyAllowed, Roles, routeAccessOf, SdkKeyHeaders } from '../accounts/auth.decorators';
import { accessRefusal, RouteAccess } from '../accounts/key-access';
import { hasRole, type Principal } from '../accounts/principal';
import { HandlerDeadline } from '../common/edge/route-config';
import { ApiEnvelope, ApiErrors, Envelope, ok } from '../common/envelope';
import { Facts, type RequestFacts } from '../common/request-facts';
import { ConversionsController } from '../conversions/conversions.controller';
import { ClicksController } from '../clicks/clicks.controller';
import { ExchangeController } from '../exchange/exchange.controller';
import { ProfilesController } from '../profiles/profiles.controller';
import { CompatService } from './compat.service';
import {
  SdkAdEventDto,
  SdkAdFetchDto,
  SdkAdsDto,
  SdkAdVerifyQueryDto,
  SdkCommonEventDto,
  SdkEventResultDto,
  SdkExchangeEntriesDto,
  SdkExchangeEventDto,
  SdkExchangeFetchDto,
  SdkExchangeVerifyQueryDto,
  SdkMultiAdFetchDto,
  SdkMultiExchangeFetchDto,
  SdkProfileResultDto,
  SdkSingleAdDto,
  SdkSingleExchangeEntryDto,
  SdkUserProfileDto,
  SdkVerifyResultDto,
} from './dto/sdk.dto';

/**
 * Who may do what through the SDK's routes: exactly who may on the canonical route, read from its decorators, so a
 * key (a public serve key above all) can do nothing here it could not do there.
 */
const CANONICAL = {
  click: routeAccessOf(ClicksController.prototype.click, ClicksController),
  conversion: routeAccessOf(ConversionsController.prototype.report, ConversionsController),
  exchangeClick: routeAccessOf(ExchangeController.prototype.click, ExchangeController),
  exchangeConversion: routeAccessOf(ExchangeController.prototype.conversion, ExchangeController),
  profileBatch: routeAccessOf(ProfilesController.prototype.batch, ProfilesController),
};

function assertMayCall(principal: Principal, route: RouteAccess, facts: RequestFacts): void {
  const refusal = accessRefusal(principal, route, facts.origin);
  if (refusal) throw refusal;
}

/** A key that could never report a conversion (endpoint 7 takes a full advertiser key), whatever the request. */
function cannotReportConversions(principal: Principal): boolean {
  return !hasRole(principal, 'advertiser') || principal.scope !== 'full';
}

/** What the SDK signed its events with: its app id (sent as x-api-id) when it has one, else its app key. */
function signKeyOf(facts: RequestFacts): string {
  return facts.header('x-api-id') ?? facts.header('apikey') ?? facts.header('x-api-key') ?? '';
}

const KEY_HEADERS =
  'The key in `x-api-key` or `apikey` (the SDK sends its appKey in both), or a publishable (serve) key by its keyId ' + "in `x-api-id` (the SDK's appId). ";

/**
 * The routes the npm package `ton-ai-sdk` 2.2.2 calls (its base URL pointed at this service), answered in its
 * shapes by the canonical services: docs/SWITCHING_FROM_TON_AI.md, docs/CONTRACT.md §14.
 */
@ApiTags('ton-ai-sdk')
@ApiSecurity('x-api-key')
@ApiHeader({ name: 'x-api-id', required: false, description: "A publishable (serve) key's keyId, instead of a key" })
@PublishableKeyAllowed()
@SdkKeyHeaders()
@Controller('api/v2')
export class CompatController {
  constructor(private readonly compat: CompatService) {}

  @Post('matching/ad/campaign')
  @HttpCode(200)
  @Roles('publisher')
  @HandlerDeadline('none')
  @ApiOperation({ summary: 'SDK GetTonAd: one ad for an ad block (matching/ad with limit 1)', description: KEY_HEADERS })
  @ApiEnvelope(SdkSingleAdDto)
  @ApiErrors(400, 401, 403, 404)
  async fetchAd(@CurrentPrincipal() principal: Principal, @Body() body: SdkAdFetchDto, @Facts() facts: RequestFacts): Promise<Envelope<object>> {
    return ok(await this.compat.fetchSingleAd(principal, body.adBlockId, body.viewer.openId, facts));
  }

  @Post('matching/ad/campaign/multi')
  @HttpCode(200)
  @Roles('publisher')
  @HandlerDeadline('none')
  @ApiOperation({ summary: 'SDK GetMultiTonAd: up to `limit` ads for an ad block (matching/ad)', description: KEY_HEADERS })
  @ApiEnvelope(SdkAdsDto)
  @ApiErrors(400, 401, 403, 404)
  async fetchAds(@CurrentPrincipal() principal: Principal, @Body() body: SdkMultiAdFetchDto, @Facts() facts: RequestFacts): Promise<Envelope<SdkAdsDto>> {
    const { msg, ads } = await this.compat.fetchAds(principal, body.adBlockId, body.viewer.openId, body.limit, facts);
    return ok({ success: true, msg, message: msg, ads });
  }

  @Post('matching/exchange/campaign/new')
  @HttpCode(200)
  @Roles('partner')
  @HandlerDeadline('none')
  @ApiOperation({ summary: 'SDK GetTonExchangeAd: one exchange entry (matching/exchange with limit 1)', description: KEY_HEADERS })
  @ApiEnvelope(SdkSingleExchangeEntryDto)
  @ApiErrors(400, 401, 403, 404, 409)
  async fetchExchangeEntry(
    @CurrentPrincipal() principal: Principal,
    @Body() body: SdkExchangeFetchDto,
    @Facts() facts: RequestFacts,
  ): Promise<Envelope<object>> {
    return ok(await this.compat.fetchSingleExchangeEntry(principal, body.exchangeCampaignId, body.viewer.telegramUserId, facts));
  }

  @Post('matching/exchange/campaign/multi/new')
  @HttpCode(200)
  @Roles('partner')
  @HandlerDeadline('none')
  @ApiOperation({ summary: 'SDK GetMultiTonExchangeAd: up to `limit` exchange entries (matching/exchange)', description: KEY_HEADERS })
  @ApiEnvelope(SdkExchangeEntriesDto)
  @ApiErrors(400, 401, 403, 404, 409)
  async fetchExchangeEntries(
    @CurrentPrincipal() principal: Principal,
    @Body() body: SdkMultiExchangeFetchDto,
    @Facts() facts: RequestFacts,
  ): Promise<Envelope<SdkExchangeEntriesDto>> {
    const entries = await this.compat.fetchExchangeEntries(principal, body.exchangeCampaignId, body.viewer.telegramUserId, body.limit, facts);
    return ok({ success: true, exchangeCampaigns: entries });
  }

  @Post('ad/report/event')
  @HttpCode(200)
  @Roles('publisher', 'advertiser')
  @ApiOperation({
    summary: 'SDK ad events: click, impression (a view), complete (a completion), conversion',
    description:
      KEY_HEADERS +
      '`click` is endpoint 6 (publisher key; bound to a served ad, once per impression). `impression` counts one view of ' +
      "the served impression in `views`, never billed, at most one per impression. `complete` (the popup's countdown ran " +
      "out) is endpoint 6's `complete`: one completion per impression at least the block's `minViewMs` after the serve, " +
      "which on a rewarded block sends the reward callback (docs/REWARDED_ADS.md). `conversion` is endpoint 7 with a full advertiser key; from any other key (TonAdInit's default " +
      'conversion with a publisher key) it is answered `conversion ignored: …`, stored nowhere and counted in ' +
      "`adnet_sdk_conversions_ignored_total`. `sign` must be the SDK's md5 sign " +
      'of eventData (else 400 naming `sign`).',
  })
  @ApiEnvelope(SdkEventResultDto)
  @ApiErrors(400, 401, 403, 404)
  async adEvent(@CurrentPrincipal() principal: Principal, @Body() body: SdkAdEventDto, @Facts() facts: RequestFacts): Promise<Envelope<SdkEventResultDto>> {
    if (body.eventType === 'conversion' && cannotReportConversions(principal)) {
      // TonAdInit sends a conversion on every start unless told not to; a publisher's key cannot attribute one, and
      // answering 403 would show up as an SDK error in every publisher's mini app.
      return ok(this.compat.ignoreConversion(body, signKeyOf(facts)));
    }
    assertMayCall(principal, body.eventType === 'conversion' ? CANONICAL.conversion : CANONICAL.click, facts);
    return ok(await this.compat.reportAdEvent(principal, body, signKeyOf(facts), facts));
  }

  @Post('exchange/report/event/new')
  @HttpCode(200)
  @Roles('partner')
  @ApiOperation({
    summary: 'SDK exchange events: click (endpoint 9), conversion (the exchange conversion); impression and complete acknowledged',
    description:
      KEY_HEADERS +
      '`click` is endpoint 9. `conversion` is `exchange/event/report/conversion` for `eventData.telegramUserId` and ' +
      'needs a full key of the partner whose campaign received the user. `impression` and `complete` are acknowledged, ' +
      "not counted. `sign` must be the SDK's md5 sign of eventData (else 400 naming `sign`).",
  })
  @ApiEnvelope(SdkEventResultDto)
  @ApiErrors(400, 401, 403, 404)
  async exchangeEvent(
    @CurrentPrincipal() principal: Principal,
    @Body() body: SdkExchangeEventDto,
    @Facts() facts: RequestFacts,
  ): Promise<Envelope<SdkEventResultDto>> {
    assertMayCall(principal, body.eventType === 'conversion' ? CANONICAL.exchangeConversion : CANONICAL.exchangeClick, facts);
    return ok(await this.compat.reportExchangeEvent(principal, body, signKeyOf(facts), facts));
  }

  @Post('sdk/user/profile')
  @HttpCode(200)
  @ApiOperation({
    summary: "SDK UpdateUserProfile: the user's wallet as a profile (endpoint 10, full key); `events` accepted",
    description:
      KEY_HEADERS +
      'Any key may report `events` (the SDK sends `onBoard` at init; not stored). A wallet is stored as a profile ' +
      'batch of one record, which needs what user/profile/batch needs: a full publisher key (403 otherwise).',
  })
  @ApiEnvelope(SdkProfileResultDto)
  @ApiErrors(400, 401, 403)
  async userProfile(
    @CurrentPrincipal() principal: Principal,
    @Body() body: SdkUserProfileDto,
    @Facts() facts: RequestFacts,
  ): Promise<Envelope<SdkProfileResultDto>> {
    if (body.walletAddress !== undefined) assertMayCall(principal, CANONICAL.profileBatch, facts);
    return ok(await this.compat.updateProfile(principal, body));
  }

  @Post('common/event/report')
  @HttpCode(200)
  @ApiOperation({ summary: 'SDK SendCommonEvent and its own error reports: logged for the operators, not stored', description: KEY_HEADERS })
  @ApiEnvelope(SdkEventResultDto)
  @ApiErrors(400, 401, 403)
  commonEvent(@CurrentPrincipal() principal: Principal, @Body() body: SdkCommonEventDto): Envelope<SdkEventResultDto> {
    this.compat.recordCommonEvent(principal, body);
    return ok({ status: 'success', msg: 'logged' });
  }

  @Get('ad/verify/conversion')
  @Roles('publisher')
  @ApiOperation({
    summary: "SDK ad verification read: the advertiser's verdict on the user's latest counted click on the campaign",
    description: KEY_HEADERS + 'Only clicks made on your own ad blocks count; `isVerified` is true when the verification endpoint answered `true`.',
  })
  @ApiEnvelope(SdkVerifyResultDto)
  @ApiErrors(400, 401, 403)
  async adVerification(@CurrentPrincipal() principal: Principal, @Query() query: SdkAdVerifyQueryDto): Promise<Envelope<SdkVerifyResultDto>> {
    return ok(await this.compat.adVerification(principal, query));
  }

  @Get('exchange/verify/conversion')
  @Roles('partner')
  @ApiOperation({
    summary: 'SDK exchange verification read: whether the user converted in the promoted campaign (an exchange conversion)',
    description:
      KEY_HEADERS +
      '`exchangeCampaignId` is the promoted (in) campaign of the entry the user clicked. `isVerified` is true when ' +
      "that campaign's partner reported an exchange conversion credited to the user's latest click into it sent from " +
      'your own exchange campaigns; false without one, or without such a click.',
  })
  @ApiEnvelope(SdkVerifyResultDto)
  @ApiErrors(400, 401, 403)
  async exchangeVerification(@CurrentPrincipal() principal: Principal, @Query() query: SdkExchangeVerifyQueryDto): Promise<Envelope<SdkVerifyResultDto>> {
    return ok(await this.compat.exchangeVerification(principal, query));
  }
}
