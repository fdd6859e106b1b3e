/**
 * The npm package `ton-ai-sdk` 2.2.2, unchanged, from node_modules, against this service (docs/SWITCHING_FROM_TON_AI.md):
 * every function and component it exports, in a mini app's browser (test/support/ton-ai-sdk-browser.ts), with only
 * its base URL pointed here; the service's stats are checked exactly after each step.
 */
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ExchangeStatsWriterService } from '../../src/exchange/exchange-stats-writer.service';
import { ConversionsService } from '../../src/conversions/conversions.service';
import { MetricsService } from '../../src/metrics/metrics.service';
import { ProfilesService } from '../../src/profiles/profiles.service';
import { principalOf } from '../support/app-context';
import { TEST_PROFILE } from '../support/profile';
import { blockDetail, createServable, setStatus } from '../support/serving-fixtures';
import { campaignDetail, flushStats, refreshIndex } from '../support/serving-helpers';
import { callback, DEVICE_FINGERPRINT, Json, MiniAppBrowser, MINI_APP_ORIGIN } from '../support/ton-ai-sdk-browser';
import { startTestApp, TestApp } from '../support/test-app';
import { openCampaign, createAdBlock, createAccount } from '../support/factories';

type Account = { accountId: string; apiKey: string };

const KEYS = '/api/v2/openapi/account/keys';
const LANDING = 'https://example.com/landing';
const EXCHANGE_LANDING = 'https://t.me/partner_b_bot/app';
const SEEN_ALREADY = "this impression's view was reported already: not counted again";
const COMPLETED_TOO_SOON = "completion not counted: sooner than the block's minViewMs after the ad was served";
const WALLET = 'UQBvW8Z5huBkMJYdnfAEM5JqTNkuWX3diqYENkWsIL0XggGG';

let users = 0;
/** A Telegram user id (numeric, as Telegram's are) nobody else in the run uses. */
function telegramUser(): string {
  users += 1;
  return String(7_000_000_000 + (Date.now() % 1_000_000_000) + users);
}

/** The advertiser's verification endpoint: answers `true` for every user. */
class VerificationEndpoint {
  readonly calls: string[] = [];
  private server: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((request: IncomingMessage, response: ServerResponse) => {
      this.calls.push(new URL(request.url ?? '/', 'http://localhost').searchParams.get('messenger_id') ?? '');
      response.writeHead(200, { 'content-type': 'text/plain' }).end('true');
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/verify`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe(`ton-ai-sdk 2.2.2 against this service [${TEST_PROFILE}]`, () => {
  let t: TestApp;
  let baseUrl: string;
  let publisher: Account;
  let advertiser: Account;
  let partnerA: Account;
  let partnerB: Account;
  let publisherServeKey: { keyId: string; apiKey: string };
  let partnerServeKey: { keyId: string; apiKey: string };
  let adBlockId: string;
  let cpmCampaignId: string;
  let exchangeA: string;
  let exchangeB: string;
  const endpoint = new VerificationEndpoint();
  let browser: MiniAppBrowser;

  const serveKey = async (account: Account) =>
    (
      await t
        .http()
        .post(KEYS)
        .set('x-api-key', account.apiKey)
        .send({ scope: 'serve', label: 'mini app', allowedOrigins: [MINI_APP_ORIGIN] })
        .expect(200)
    ).body.data as { keyId: string; apiKey: string };
  const exchangeCampaign = async (account: Account, name: string, url: string) =>
    (
      await t
        .http()
        .post('/api/v2/openapi/exchange/campaign/create')
        .set('x-api-key', account.apiKey)
        .send({
          name,
          icon: 'https://cdn.example.com/x-icon.png',
          image: 'https://cdn.example.com/x.png',
          text: `Play ${name}`,
          destination: { actionType: 'open.miniapp', url },
        })
        .expect(200)
    ).body.data.exchangeCampaignId as string;
  const exchangeDetail = async (account: Account, exchangeCampaignId: string) => {
    await t.app.get(ExchangeStatsWriterService).flush();
    return (await t.http().get('/api/v2/openapi/exchange/campaign/detail').query({ exchangeCampaignId }).set('x-api-key', account.apiKey).expect(200)).body
      .data;
  };
  const stats = async (campaignId: string) => {
    await flushStats(t);
    const detail = await campaignDetail(t, campaignId);
    return { impressions: detail.impressions, views: detail.views, clicks: detail.clicks, conversions: detail.conversions, cost: detail.cost };
  };
  /**
   * A fresh mini app for `user`, the SDK initialised as a publisher's frontend with TonAdInit's defaults: a serve key
   * by its keyId (appId); it sends the onBoard profile and its default conversion (answered, ignored).
   */
  const publisherApp = async (user: string) => {
    await browser.open(user);
    await browser.call('TonAdInit', [{ appId: publisherServeKey.keyId, baseUrl }]);
    await browser.step(2);
  };
  const ignoredConversions = async () =>
    (await t.app.get(MetricsService).registry.getSingleMetric('adnet_sdk_conversions_ignored_total')!.get()).values[0]?.value ?? 0;
  const IGNORED = 'conversion ignored: only a full advertiser key reports conversions';
  const paths = (exchanges: { path: string; status: number }[]) => exchanges.map((exchange) => [exchange.path.split('?')[0], exchange.status]);

  beforeAll(async () => {
    await endpoint.start();
    t = await startTestApp({ VERIFY_DELAY_MS: '0', VERIFICATION_ALLOW_PRIVATE: 'true' });
    await t.app.listen(0, '127.0.0.1');
    const port = (t.app.getHttpServer().address() as AddressInfo).port;
    // A host name holding "ton.ai": TonAdInit keeps only such a baseUrl; *.localhost is the loopback in browsers.
    baseUrl = `http://ton.ai.localhost:${port}`;
    [publisher, advertiser, partnerA, partnerB] = await Promise.all([
      createAccount(t, ['publisher'], 'Puzzle mini app'),
      createAccount(t, ['advertiser'], 'Acme Games'),
      createAccount(t, ['partner'], 'Partner A'),
      createAccount(t, ['partner'], 'Partner B'),
    ]);
    publisherServeKey = await serveKey(publisher);
    partnerServeKey = await serveKey(partnerA);
    adBlockId = await createAdBlock(t, publisher.apiKey, 'Home banner');
    cpmCampaignId = await createServable(t, advertiser.apiKey, openCampaign({ bidding: { billingType: 'CPM', costPer: 2 } }));
    exchangeA = await exchangeCampaign(partnerA, 'Partner A game', 'https://t.me/partner_a_bot/app');
    exchangeB = await exchangeCampaign(partnerB, 'Partner B game', EXCHANGE_LANDING);
    browser = new MiniAppBrowser(port);
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await endpoint.stop();
  });

  it('covers every export of the package (a new one would fail here until a test drives it)', async () => {
    await browser.open(telegramUser());
    expect(await browser.exports()).toEqual(
      [
        ...['GetDeviceId', 'GetMultiTonAd', 'GetMultiTonExchangeAd', 'GetTelegramUserInfo', 'GetTonAd', 'GetTonExchangeAd'],
        ...['OnAdClick', 'OnAdVerified', 'OnExchangeAdClick', 'OnExchangeAdVerified', 'OpenAdUrl', 'RenderWeidget'],
        ...['SendCommonEvent', 'SendTonAdClickEvent', 'SendTonAdConversion', 'SendTonExchangeClickEvent', 'SendTonExchangeConversion'],
        ...['SetDiscordUserOpenId', 'SetTelegramUserOpenId', 'SetUserOpenId', 'SetWebUserOpenId'],
        ...['TonAdBanner', 'TonAdInit', 'TonAdPopup', 'TonAdPopupShow', 'TonExchangeAdPopup', 'TonExchangeAdPopupShow', 'TonExchangeBanner'],
        'UpdateUserProfile',
      ].sort(),
    );
  });

  describe('a publisher mini app, the SDK initialised with a serve key by its keyId (appId)', () => {
    const user = telegramUser();
    let fetched: Json;

    it('TonAdInit with its defaults reports the onBoard profile with x-api-id, and its default conversion is answered and ignored', async () => {
      const ignoredBefore = await ignoredConversions();
      await browser.open(user);
      expect(await browser.call('TonAdInit', [{ appId: publisherServeKey.keyId, baseUrl }])).toEqual({ init: 'Success' });
      const made = await browser.step(2);
      const profile = made.find((exchange) => exchange.path === '/api/v2/sdk/user/profile')!;
      const conversion = made.find((exchange) => exchange.path === '/api/v2/ad/report/event')!;
      expect(conversion).toMatchObject({
        status: 200,
        body: { eventType: 'conversion', eventData: { openId: user } },
        response: { code: 0, message: 'success', data: { status: 'success', msg: IGNORED } },
      });
      expect(await ignoredConversions()).toBe(ignoredBefore + 1);
      // stored nowhere: not as the publisher's own conversion either
      const summary = await t.app.get(ConversionsService).summary(principalOf(publisher.accountId, ['publisher']), { from: 0 });
      expect([summary.attributed, summary.unattributed]).toEqual([0, 0]);
      expect(profile).toMatchObject({
        method: 'POST',
        path: '/api/v2/sdk/user/profile',
        status: 200,
        body: { events: ['onBoard'], openId: user, type: 'telegram', deviceId: String(DEVICE_FINGERPRINT) },
        response: { code: 0, message: 'success', data: { messengerUserId: user } },
      });
      expect(profile.headers['x-api-id']).toBe(publisherServeKey.keyId);
      expect(profile.headers['x-api-key']).toBeUndefined();
      expect(profile.headers['sdk-version']).toBe('V2.2.2');
      expect(await browser.call('GetDeviceId')).toBe(String(DEVICE_FINGERPRINT));
      expect(await browser.call('GetTelegramUserInfo')).toEqual({ id: Number(user) });
    });

    it('GetTonAd and GetMultiTonAd answer the ads in the SDK shape, each one billed impression', async () => {
      const single = await browser.call('GetTonAd', [adBlockId]);
      expect(single.success).toBe(true);
      expect(single.data).toMatchObject({
        success: true,
        adBlockId,
        campaignId: cpmCampaignId,
        adId: `ad_${cpmCampaignId}`,
        adFormat: 'image',
        isSupportVerified: false,
        url: LANDING,
        destination: { actionType: 'visit.website', url: LANDING, destinationConfig: { url: LANDING } },
      });
      const multi = await browser.call('GetMultiTonAd', [adBlockId, 3]);
      expect(multi.success).toBe(true);
      expect(multi.ads.map((ad: Json) => [ad.campaignId, ad.url])).toEqual([[cpmCampaignId, LANDING]]);
      fetched = multi.ads[0];
      expect(paths(await browser.step(2))).toEqual([
        ['/api/v2/matching/ad/campaign', 200],
        ['/api/v2/matching/ad/campaign/multi', 200],
      ]);
      // CPM 2 USDT: 0.002 per impression
      expect(await stats(cpmCampaignId)).toEqual({ impressions: 2, views: 0, clicks: 0, conversions: 0, cost: 0.004 });
    });

    it('SendTonAdClickEvent counts one click on the served ad, signed; a second report of it is not counted', async () => {
      await browser.call('SendTonAdClickEvent', [fetched]);
      const [click] = await browser.step(1);
      expect(click).toMatchObject({
        path: '/api/v2/ad/report/event',
        status: 200,
        body: { eventType: 'click', eventData: { adBlockId, campaignId: cpmCampaignId, adId: `ad_${cpmCampaignId}`, openId: user, type: 'telegram' } },
        response: { code: 0, data: { status: 'success', msg: 'click counted' } },
      });
      expect(click.body!.sign).toMatch(/^[0-9a-f]{32}$/);
      await browser.call('SendTonAdClickEvent', [fetched]);
      const [repeat] = await browser.step(1);
      expect(repeat.response).toMatchObject({ code: 0, data: { msg: 'duplicate click: not counted again' } });
      expect(await stats(cpmCampaignId)).toEqual({ impressions: 2, views: 0, clicks: 1, conversions: 0, cost: 0.004 });
    });

    it('SetWebUserOpenId and SetDiscordUserOpenId: users this service does not serve get a 400 naming viewer.type; SetTelegramUserOpenId and SetUserOpenId set a Telegram user', async () => {
      await browser.call('SetWebUserOpenId', ['web-visitor-1']);
      expect(await browser.call('GetTonAd', [adBlockId])).toEqual({ success: false, message: 'Request failed with status code 400' });
      await browser.call('SetDiscordUserOpenId', ['discord-visitor-1']);
      expect(await browser.call('GetMultiTonAd', [adBlockId, 2])).toEqual({ success: false, message: 'Request failed with status code 400' });
      // each failure is followed by the SDK's own error report
      const made = await browser.step(4);
      expect(paths(made)).toEqual([
        ['/api/v2/matching/ad/campaign', 400],
        ['/api/v2/common/event/report', 200],
        ['/api/v2/matching/ad/campaign/multi', 400],
        ['/api/v2/common/event/report', 200],
      ]);
      expect(made[0].response).toMatchObject({ code: 400, data: { errors: [{ field: 'viewer.type' }] } });
      expect(t.logs.some((line) => line.includes('ton-ai-sdk event') && line.includes('GetTonAd error'))).toBe(true);
      await browser.call('SetTelegramUserOpenId', ['tg-user-x']);
      expect((await browser.state()).localStorage).toMatchObject({ TON_AI_OPEN_USER_ID: 'tg-user-x', TON_AI_USER_TYPE: 'telegram' });
      await browser.call('SetUserOpenId', [user]);
      expect((await browser.state()).localStorage).toMatchObject({ TON_AI_OPEN_USER_ID: user, TON_AI_USER_TYPE: 'telegram' });
      expect(await stats(cpmCampaignId)).toEqual({ impressions: 2, views: 0, clicks: 1, conversions: 0, cost: 0.004 });
    });
  });

  describe('the SDK components, their impression reports counted as views', () => {
    it('TonAdBanner: one view for its impression; a tap opens the link through Telegram and counts the click', async () => {
      await publisherApp(telegramUser());
      await browser.render('TonAdBanner', { blockId: adBlockId });
      const [fetch, impression] = await browser.step(2);
      expect(fetch.path).toBe('/api/v2/matching/ad/campaign');
      expect(impression).toMatchObject({ body: { eventType: 'impression' }, response: { data: { msg: 'view counted' } } });
      await browser.click('.aspect-ratio-box');
      const [click] = await browser.step(1);
      expect(click.response).toMatchObject({ data: { msg: 'click counted' } });
      expect((await browser.state()).openedLinks).toEqual([LANDING]);
      expect(await stats(cpmCampaignId)).toEqual({ impressions: 3, views: 1, clicks: 2, conversions: 0, cost: 0.006 });
    });

    it('RenderWeidget renders a banner into a container by id: one more impression and view', async () => {
      await publisherApp(telegramUser());
      await browser.call('RenderWeidget', ['ad-slot', '$component:TonAdBanner', { blockId: adBlockId }]);
      const [, impression] = await browser.step(2);
      expect(impression.response).toMatchObject({ data: { msg: 'view counted' } });
      expect(await stats(cpmCampaignId)).toEqual({ impressions: 4, views: 2, clicks: 2, conversions: 0, cost: 0.008 });
    });

    it("TonAdPopupShow: the popup's impression every 2 s counts one view of its one impression, its complete is a completion", async () => {
      await publisherApp(telegramUser());
      await browser.call('TonAdPopupShow', [{ blockId: adBlockId, countdown: 10, onAdComplete: callback('complete') }]);
      const made = await browser.step(6);
      expect(made.map((exchange) => [exchange.body?.eventType ?? exchange.path, exchange.response?.data.msg ?? 'ad'])).toEqual([
        ['/api/v2/matching/ad/campaign', 'ad'],
        ['impression', 'view counted'],
        ['impression', SEEN_ALREADY],
        ['impression', SEEN_ALREADY],
        ['impression', SEEN_ALREADY],
        // the SDK's seconds run fast in this browser: the service's clock saw less than the block's minViewMs
        ['complete', COMPLETED_TOO_SOON],
      ]);
      expect(made.slice(1, 5).map((exchange) => exchange.body!.eventData.num)).toEqual([1, 2, 3, 4]);
      expect((await browser.state()).callbacks.complete.map((ad) => ad.campaignId)).toEqual([cpmCampaignId]);
      expect(await stats(cpmCampaignId)).toEqual({ impressions: 5, views: 3, clicks: 2, conversions: 0, cost: 0.01 });
    }, 60_000);

    it('TonAdPopup with an ad already fetched: no new impression; its view counts once', async () => {
      await publisherApp(telegramUser());
      const { data: ad } = await browser.call('GetTonAd', [adBlockId]);
      await browser.step(1);
      await browser.render('TonAdPopup', { tonAd: ad, countdown: 10, onAdClose: callback('closed') }, 'closed');
      const made = await browser.step(5);
      expect(made.map((exchange) => exchange.body?.eventType)).toEqual(['impression', 'impression', 'impression', 'impression', 'complete']);
      expect(made.map((exchange) => exchange.response?.data.msg)).toEqual(['view counted', ...Array(3).fill(SEEN_ALREADY), COMPLETED_TOO_SOON]);
      expect(await stats(cpmCampaignId)).toEqual({ impressions: 6, views: 4, clicks: 2, conversions: 0, cost: 0.012 });
    }, 60_000);

    it('OnAdClick and OpenAdUrl: the link opens at once; without a verification endpoint the click is reported 8 s later', async () => {
      await publisherApp(telegramUser());
      const { data: ad } = await browser.call('GetTonAd', [adBlockId]);
      await browser.step(1);
      await browser.call('OpenAdUrl', [ad.destination]);
      expect((await browser.state()).openedLinks).toEqual([LANDING]);
      await browser.call('OnAdClick', [ad, callback('verified')], 'verified');
      const state = await browser.state();
      expect(state.openedLinks).toEqual([LANDING, LANDING]);
      expect(state.callbacks.verified).toMatchObject([{ success: true }]);
      const [click] = await browser.step(1);
      expect(click.response).toMatchObject({ data: { msg: 'click counted' } });
      expect(await stats(cpmCampaignId)).toEqual({ impressions: 7, views: 4, clicks: 3, conversions: 0, cost: 0.014 });
    }, 30_000);
  });

  describe("a campaign with a verification endpoint, then the advertiser's own app reporting the conversion", () => {
    const user = telegramUser();
    let cpcCampaignId: string;

    it('OnAdClick on a verifiable ad: the click at once, then ad/verify/conversion until the advertiser said true', async () => {
      await setStatus(t, advertiser.apiKey, cpmCampaignId, 'end');
      cpcCampaignId = await createServable(t, advertiser.apiKey, {
        ...openCampaign({ bidding: { billingType: 'CPC', costPer: 0.5 } }),
        verificationUrl: endpoint.url,
      });
      await refreshIndex(t);
      await publisherApp(user);
      const { data: ad } = await browser.call('GetTonAd', [adBlockId]);
      await browser.step(1);
      expect(ad).toMatchObject({ campaignId: cpcCampaignId, isSupportVerified: true });
      await browser.call('OnAdClick', [ad, callback('verified')], 'verified');
      expect((await browser.state()).callbacks.verified).toMatchObject([{ success: true }]);
      // The SDK sends the click without awaiting it and reads the verdict 2 s later, a time this browser's fast clock
      // shortens: a read can overtake the click, or the call to the advertiser's endpoint, and is then answered that
      // the click is not counted or not verified yet; the SDK reads again until it is.
      const made = await browser.step(2);
      const clicks = made.filter((exchange) => exchange.path === '/api/v2/ad/report/event');
      expect(clicks.map((exchange) => exchange.response)).toMatchObject([{ data: { msg: 'click counted' } }]);
      const reads = made.filter((exchange) => exchange !== clicks[0]);
      expect(reads.every((exchange) => exchange.path.startsWith('/api/v2/ad/verify/conversion?'))).toBe(true);
      expect(reads[reads.length - 1].response).toEqual({ code: 0, message: 'success', data: { isVerified: true, message: 'verified by the advertiser' } });
      const notYet = ['no counted click of this user on this campaign from your ad blocks', 'verification pending'];
      for (const early of reads.slice(0, -1)) {
        expect(early.response?.data).toEqual({ isVerified: false, message: expect.stringMatching(new RegExp(`^(${notYet.join('|')})$`)) });
      }
      expect(endpoint.calls).toEqual([user]);
      const detail = await campaignDetail(t, cpcCampaignId);
      expect([detail.impressions, detail.clicks, detail.verifiedClicks, detail.cost]).toEqual([1, 1, 1, 0.5]);
    }, 30_000);

    it('OnAdVerified alone reads the verdict again', async () => {
      const ad = { campaignId: cpcCampaignId, isSupportVerified: true, adBlockId, adId: `ad_${cpcCampaignId}` };
      await browser.call('OnAdVerified', [{ ad, onVerifySuccess: callback('again'), times: 1 }], 'again');
      expect((await browser.state()).callbacks.again).toMatchObject([{ success: true }]);
      const [read] = await browser.step(1);
      expect(read.response).toMatchObject({ data: { isVerified: true } });
    }, 30_000);

    it("TonAdInit in the advertiser's app with its full key: the default conversion is attributed to the click; SendTonAdConversion again is kept unattributed", async () => {
      await browser.open(user);
      await browser.call('TonAdInit', [{ appKey: advertiser.apiKey, baseUrl }]);
      const made = await browser.step(2);
      const conversion = made.find((exchange) => exchange.path === '/api/v2/ad/report/event')!;
      expect(conversion).toMatchObject({
        body: { eventType: 'conversion', eventData: { openId: user } },
        response: { data: { msg: 'conversion attributed' } },
      });
      expect(conversion.headers['x-api-key']).toBe(advertiser.apiKey);
      expect(conversion.headers.apikey).toBe(advertiser.apiKey);
      await browser.call('SendTonAdConversion', [user]);
      const [again] = await browser.step(1);
      expect(again.response).toMatchObject({ data: { msg: 'conversion stored, not attributed to a click' } });
      const detail = await campaignDetail(t, cpcCampaignId);
      expect([detail.clicks, detail.conversions, detail.cr]).toEqual([1, 1, 1]);
    });

    it("SendTonAdConversion with a publisher's serve key is answered as ignored: nothing stored, counted in /metrics", async () => {
      await publisherApp(user);
      const ignoredBefore = await ignoredConversions();
      await browser.call('SendTonAdConversion', [user]);
      const [conversion] = await browser.step(1);
      expect(conversion).toMatchObject({ status: 200, response: { code: 0, data: { msg: IGNORED } } });
      expect(await ignoredConversions()).toBe(ignoredBefore + 1);
      expect((await campaignDetail(t, cpcCampaignId)).conversions).toBe(1);
    });
  });

  describe("the exchange, in partner A's mini app with its serve key as appKey", () => {
    const partnerApp = async (user: string) => {
      await browser.open(user);
      await browser.call('TonAdInit', [{ appKey: partnerServeKey.apiKey, baseUrl, disableDefaultConversion: true }]);
      await browser.step(1);
    };

    it("GetTonExchangeAd and GetMultiTonExchangeAd answer partner B's entry; SendTonExchangeClickEvent moves the ledger once", async () => {
      const user = telegramUser();
      await partnerApp(user);
      const single = await browser.call('GetTonExchangeAd', [exchangeA]);
      expect(single.data).toMatchObject({
        success: true,
        inExchangeCampaignId: exchangeB,
        outExchangeCampaignId: exchangeA,
        url: EXCHANGE_LANDING,
        destination: { destinationConfig: { url: EXCHANGE_LANDING } },
      });
      const multi = await browser.call('GetMultiTonExchangeAd', [exchangeA, 5]);
      expect(multi.ads.map((entry: Json) => entry.inExchangeCampaignId)).toEqual([exchangeB]);
      await browser.step(2);
      await browser.call('SendTonExchangeClickEvent', [multi.ads[0]]);
      await browser.step(1);
      await browser.call('SendTonExchangeClickEvent', [multi.ads[0]]);
      const clicks = await browser.step(1);
      expect(paths(clicks)).toEqual([['/api/v2/exchange/report/event/new', 200]]);
      expect(clicks[0].body!.eventData).toMatchObject({ telegramUserId: user, source: 'user' });
      expect(clicks[0].headers.apikey).toBe(partnerServeKey.apiKey);
      expect(await exchangeDetail(partnerA, exchangeA)).toMatchObject({ impressionsSent: 2, clicksSent: 1, clicksReceived: 0 });
      expect(await exchangeDetail(partnerB, exchangeB)).toMatchObject({ impressions: 2, clicksSent: 0, clicksReceived: 1 });
    });

    it('TonExchangeBanner, TonExchangeAdPopupShow and TonExchangeAdPopup: entries served, their impression and complete acknowledged', async () => {
      await partnerApp(telegramUser());
      await browser.render('TonExchangeBanner', { exchangeId: exchangeA });
      expect(paths(await browser.step(2))).toEqual([
        ['/api/v2/matching/exchange/campaign/new', 200],
        ['/api/v2/exchange/report/event/new', 200],
      ]);
      await browser.call('TonExchangeAdPopupShow', [{ exchangeId: exchangeA, countdown: 10, onAdComplete: callback('complete') }]);
      const popup = await browser.step(3);
      expect(popup.map((exchange) => exchange.body?.eventType ?? exchange.path)).toEqual(['/api/v2/matching/exchange/campaign/new', 'impression', 'complete']);
      expect(popup[2].response).toMatchObject({ data: { msg: 'complete: not counted (each entry answered is one impression)' } });
      expect((await browser.state()).callbacks.complete.map((entry) => entry.inExchangeCampaignId)).toEqual([exchangeB]);
      const { data: entry } = await browser.call('GetTonExchangeAd', [exchangeA]);
      await browser.step(1);
      await browser.render('TonExchangeAdPopup', { exchangeAd: entry, countdown: 10, onAdComplete: callback('popupComplete') }, 'popupComplete');
      expect((await browser.step(2)).map((exchange) => exchange.body?.eventType)).toEqual(['impression', 'complete']);
      expect(await exchangeDetail(partnerB, exchangeB)).toMatchObject({ impressions: 5, clicksReceived: 1 });
    }, 60_000);

    it("SendTonExchangeConversion in partner B's app: refused for a serve key, with B's full key credited to the click A's entry sent; OnExchangeAdVerified in A's app then reads it", async () => {
      const user = telegramUser();
      await partnerApp(user);
      const { data: entry } = await browser.call('GetTonExchangeAd', [exchangeA]);
      await browser.call('SendTonExchangeClickEvent', [entry]);
      expect(paths(await browser.step(2))).toEqual([
        ['/api/v2/matching/exchange/campaign/new', 200],
        ['/api/v2/exchange/report/event/new', 200],
      ]);
      // times: 2 makes the SDK's last read; a false one ends in 'Verify timeout!' and the SDK's error report (a common event)
      const verifyRead = async (name: string, exchanges: number) => {
        await browser.call('OnExchangeAdVerified', [{ ad: { ...entry, isSupportVerified: true }, onVerifySuccess: callback(name), times: 2 }], name);
        const made = await browser.step(exchanges);
        const reads = made.filter((exchange) => exchange.path.startsWith('/api/v2/exchange/verify/conversion?'));
        expect(reads.map((read) => read.path)).toEqual([`/api/v2/exchange/verify/conversion?exchangeCampaignId=${exchangeB}&openId=${user}`]);
        return { read: reads[0].response, result: (await browser.state()).callbacks[name] };
      };
      expect(await verifyRead('before', 2)).toEqual({
        read: { code: 0, message: 'success', data: { isVerified: false, message: 'no conversion reported for the latest click yet' } },
        result: [{ success: false, ad: expect.objectContaining({ inExchangeCampaignId: exchangeB }), message: 'Verify timeout!' }],
      });

      // the serve key of the app the entry was shown in may not report conversions (exchange/event/report/conversion)
      await browser.call('SendTonExchangeConversion', [user]);
      const [refused] = await browser.step(2);
      expect(refused).toMatchObject({
        path: '/api/v2/exchange/report/event/new',
        status: 403,
        body: { eventType: 'conversion', eventData: { telegramUserId: user } },
        response: { code: 403 },
      });
      expect(refused.response!.message).toContain('publishable (serve) key');
      expect((await exchangeDetail(partnerB, exchangeB)).conversions).toBe(0);

      // partner B's mini app, where the user arrived, with B's full key
      await browser.call('TonAdInit', [{ appKey: partnerB.apiKey, baseUrl, disableDefaultConversion: true }]);
      await browser.step(1);
      await browser.call('SendTonExchangeConversion', [user]);
      await browser.call('SendTonExchangeConversion', [user]);
      const conversions = await browser.step(2);
      expect(conversions.map((exchange) => [exchange.status, exchange.response?.data?.msg])).toEqual([
        [200, 'conversion attributed'],
        [200, 'conversion stored, not attributed to an exchange click'],
      ]);
      expect(conversions[0].headers['x-api-key']).toBe(partnerB.apiKey);
      expect(await exchangeDetail(partnerB, exchangeB)).toMatchObject({ clicksReceived: 2, conversions: 1, cr: 0.5 });
      expect(await exchangeDetail(partnerA, exchangeA)).toMatchObject({ clicksSent: 2, conversions: 0 });

      // B received the user but did not send the click: its own read knows no such click
      const byReceiver = await t
        .http()
        .get('/api/v2/exchange/verify/conversion')
        .query({ exchangeCampaignId: exchangeB, openId: user })
        .set('x-api-key', partnerB.apiKey);
      expect(byReceiver.body.data).toEqual({ isVerified: false, message: 'no exchange click of this user into this campaign from your exchange campaigns' });

      await browser.call('TonAdInit', [{ appKey: partnerServeKey.apiKey, baseUrl, disableDefaultConversion: true }]);
      await browser.step(1);
      expect(await verifyRead('after', 1)).toEqual({
        read: { code: 0, message: 'success', data: { isVerified: true, message: "converted: the promoted campaign's partner reported a conversion" } },
        result: [{ success: true, ad: expect.objectContaining({ inExchangeCampaignId: exchangeB }) }],
      });
    }, 60_000);

    it('OnExchangeAdClick opens the entry and reports its click 8 s later; OnExchangeAdVerified reads the exchange verify route', async () => {
      await partnerApp(telegramUser());
      const { data: entry } = await browser.call('GetTonExchangeAd', [exchangeA]);
      await browser.step(1);
      await browser.call('OnExchangeAdClick', [entry, callback('done')], 'done');
      expect((await browser.state()).openedLinks).toEqual([EXCHANGE_LANDING]);
      expect((await browser.step(1))[0].status).toBe(200);
      await browser.call('OnExchangeAdVerified', [{ ad: { ...entry, isSupportVerified: true }, onVerifySuccess: callback('verify'), times: 2 }], 'verify');
      expect((await browser.state()).callbacks.verify).toMatchObject([{ success: false }]);
      const reads = await browser.step(1);
      expect(reads[0].response).toEqual({
        code: 0,
        message: 'success',
        data: { isVerified: false, message: 'no conversion reported for the latest click yet' },
      });
      expect(await exchangeDetail(partnerB, exchangeB)).toMatchObject({ clicksReceived: 3, conversions: 1 });
    }, 60_000);
  });

  describe('UpdateUserProfile and SendCommonEvent', () => {
    it("UpdateUserProfile with a wallet: refused for a serve key; with the publisher's full key stored as a profile (ton as primary)", async () => {
      const user = telegramUser();
      await publisherApp(user);
      expect(await browser.call('UpdateUserProfile', [{ walletClassify: 'ton', walletAddress: WALLET }])).toEqual({
        success: false,
        message: 'Request failed with status code 403',
      });
      const [refused] = await browser.step(1);
      expect(refused.response).toMatchObject({ code: 403 });
      expect(refused.response!.message).toContain('publishable (serve) key');
      await browser.call('TonAdInit', [{ appKey: publisher.apiKey, baseUrl, disableDefaultConversion: true }]);
      await browser.step(1);
      const stored = await browser.call('UpdateUserProfile', [{ walletClassify: 'ton', walletAddress: WALLET }]);
      expect(stored.success).toBe(true);
      await browser.step(1);
      let status: Json = {};
      while (status.status !== 'done') {
        status = (await t.http().get('/api/v2/openapi/user/profile/batch/status').query({ batchId: stored.data.batchId }).set('x-api-key', publisher.apiKey))
          .body.data;
      }
      expect(status).toMatchObject({ status: 'done', total: 1, processed: 1 });
      const profile = await t.app.get(ProfilesService).findProfile(publisher.accountId, user);
      expect([profile?.walletAddress, profile?.walletClassify]).toEqual([WALLET, 'primary']);
    });

    it('SendCommonEvent is answered success and counted in /metrics; the log keeps one line per account per minute', async () => {
      const commonEvents = async (kind: string) =>
        (await t.app.get(MetricsService).registry.getSingleMetric('adnet_sdk_common_events_total')!.get()).values.find((value) => value.labels.kind === kind)
          ?.value ?? 0;
      const [otherBefore, errorsBefore] = [await commonEvents('other'), await commonEvents('error')];
      expect(await browser.call('SendCommonEvent', ['level_up', '5512345678'])).toEqual({ success: true, message: 'Event sent successfully' });
      const [event] = await browser.step(1);
      expect(event).toMatchObject({
        path: '/api/v2/common/event/report',
        body: { eventName: 'level_up', openId: '5512345678', type: 'telegram', eventSource: 'sdk' },
      });
      // A script holding another publisher's public key sends several, errors among them: all counted, one logged.
      const sender = await createAccount(t, ['publisher']);
      for (const eventName of ['level_up', 'error-[GetTonAd error: timeout]', 'error-[x]', 'level_up']) {
        await t
          .http()
          .post('/api/v2/common/event/report')
          .set('x-api-key', sender.apiKey)
          .send({ eventName, openId: '5512345678', type: 'telegram', eventSource: 'sdk' })
          .expect(200);
      }
      expect([(await commonEvents('other')) - otherBefore, (await commonEvents('error')) - errorsBefore]).toEqual([3, 2]);
      const lines = t.logs.filter((line) => line.includes('ton-ai-sdk event') && line.includes(sender.accountId));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('level_up');
    });
  });

  it('the block shows the views beside its impressions', async () => {
    await flushStats(t);
    const block = await blockDetail(t, publisher.apiKey, adBlockId);
    expect([block.impressions, block.views, block.clicks]).toEqual([8, 4, 4]);
  });
});
