/**
 * The ton-ai-sdk routes (src/compat/) refuse what they must, as raw HTTP requests: a wrong or missing `sign`, missing,
 * unknown and wrong keys (an `x-api-id` must name a serve key), what a serve key may not do on the canonical routes,
 * bad fields; the CORS preflight allows the SDK's headers. Nothing refused is counted or stored.
 */
import { DataSource } from 'typeorm';
import { ExchangeConversion } from '../../src/exchange/entities/exchange-conversion.entity';
import { TEST_PROFILE } from '../support/profile';
import { Body, createServable, fetchAds, newUser } from '../support/serving-fixtures';
import { campaignDetail, flushStats } from '../support/serving-helpers';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { sdkAdEventData, sdkExchangeEventData, sdkSigned } from '../support/ton-ai-sdk-sign';
import { openCampaign, createAdBlock, createAccount } from '../support/factories';

type Account = { accountId: string; apiKey: string };

const AD_EVENT = '/api/v2/ad/report/event';
const AD_FETCH = '/api/v2/matching/ad/campaign';
const EXCHANGE_EVENT = '/api/v2/exchange/report/event/new';
const PROFILE = '/api/v2/sdk/user/profile';
const ORIGIN = 'https://miniapp.example';

const signed = sdkSigned;
const adEventData = sdkAdEventData;

describe(`ton-ai-sdk routes: refusals and bad input [${TEST_PROFILE}]`, () => {
  let t: TestApp;
  let publisher: Account;
  let advertiser: Account;
  let partner: Account;
  let otherPublisher: Account;
  let serveKey: { keyId: string; apiKey: string };
  let fullKeyId: string;
  let adBlockId: string;
  let otherBlockId: string;
  let campaignId: string;

  const post = (path: string, headers: Record<string, string>, body: object) => {
    let request = t.http().post(path);
    for (const [name, value] of Object.entries(headers)) request = request.set(name, value);
    return request.send(body);
  };
  const counters = async () => {
    await flushStats(t);
    const detail = await campaignDetail(t, campaignId);
    return [detail.impressions, detail.views, detail.clicks, detail.conversions];
  };
  /** Serves the campaign's ad to `user` on the block (one impression) and answers it. */
  const served = async (user: string) => (await fetchAds(t, publisher.apiKey, adBlockId, user, { limit: 1 }))[0];

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_SECOND: '1000' });
    [publisher, advertiser, partner, otherPublisher] = await Promise.all([
      createAccount(t, ['publisher']),
      createAccount(t, ['advertiser']),
      createAccount(t, ['partner']),
      createAccount(t, ['publisher'], 'other publisher'),
    ]);
    serveKey = (
      await t
        .http()
        .post('/api/v2/openapi/account/keys')
        .set('x-api-key', publisher.apiKey)
        .send({ scope: 'serve', allowedOrigins: [ORIGIN] })
        .expect(200)
    ).body.data;
    const keys = (await t.http().get(`/api/v2/admin/accounts/${publisher.accountId}/keys`).set('x-api-key', ADMIN_KEY).expect(200)).body.data;
    fullKeyId = (keys.keys ?? keys).find((key: Body) => key.scope === 'full').keyId;
    adBlockId = await createAdBlock(t, publisher.apiKey);
    otherBlockId = await createAdBlock(t, otherPublisher.apiKey);
    campaignId = await createServable(t, advertiser.apiKey, openCampaign({ bidding: { billingType: 'CPM', costPer: 1 } }));
  });

  afterAll(() => t.close());

  describe('the sign', () => {
    it('should refuse a click whose sign does not match, in the SDK error shape, and count nothing', async () => {
      const user = newUser();
      const ad = await served(user);
      const good = signed('click', adEventData(ad, user), serveKey.keyId);
      for (const body of [
        { ...good, sign: good.sign.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')) },
        signed('click', adEventData(ad, user), serveKey.apiKey),
        { ...good, eventData: { ...good.eventData, openId: newUser() } },
      ]) {
        const response = await post(AD_EVENT, { 'x-api-id': serveKey.keyId }, body).expect(400);
        expect(response.body).toEqual({
          code: 400,
          message: 'sign does not match eventData (the ton-ai-sdk md5 sign, with the x-api-id or else the key sent)',
          data: { errors: [{ field: 'sign', message: 'sign does not match eventData (the ton-ai-sdk md5 sign, with the x-api-id or else the key sent)' }] },
        });
      }
      const { sign: _sign, ...unsigned } = good;
      expect((await post(AD_EVENT, { 'x-api-id': serveKey.keyId }, unsigned).expect(400)).body).toMatchObject({ code: 400, message: 'sign is required' });
      expect(await counters()).toEqual([1, 0, 0, 0]);
      // the same report, signed right, counts
      expect((await post(AD_EVENT, { 'x-api-id': serveKey.keyId }, good).expect(200)).body).toEqual({
        code: 0,
        message: 'success',
        data: { status: 'success', msg: 'click counted' },
      });
      expect(await counters()).toEqual([1, 0, 1, 0]);
    });

    it('should sign with the key itself when the SDK has no app id (x-api-key and apikey)', async () => {
      const user = newUser();
      const ad = await served(user);
      const body = signed('impression', adEventData(ad, user), serveKey.apiKey);
      expect((await post(AD_EVENT, { apikey: serveKey.apiKey }, body).expect(200)).body.data).toEqual({ status: 'success', msg: 'view counted' });
      expect((await post(AD_EVENT, { 'x-api-key': serveKey.apiKey, apikey: serveKey.apiKey }, body).expect(200)).body.data.msg).toBe(
        "this impression's view was reported already: not counted again",
      );
      expect(await counters()).toEqual([2, 1, 1, 0]);
    });

    it("should refuse an exchange conversion with a wrong sign (400) or a partner's serve key (403), storing nothing", async () => {
      const user = newUser();
      const conversion = (appKey: string) => signed('conversion', sdkExchangeEventData({}, user), appKey);
      const wrongSign = await post(EXCHANGE_EVENT, { 'x-api-key': partner.apiKey }, conversion('another key')).expect(400);
      expect(wrongSign.body.data).toEqual({
        errors: [{ field: 'sign', message: 'sign does not match eventData (the ton-ai-sdk md5 sign, with the x-api-id or else the key sent)' }],
      });
      const partnerServe = (await t.http().post('/api/v2/openapi/account/keys').set('x-api-key', partner.apiKey).send({ scope: 'serve' }).expect(200)).body
        .data;
      const byServeKey = await post(EXCHANGE_EVENT, { 'x-api-id': partnerServe.keyId }, conversion(partnerServe.keyId)).expect(403);
      expect(byServeKey.body.message).toContain('publishable (serve) key');
      const byPublisher = await post(EXCHANGE_EVENT, { 'x-api-key': publisher.apiKey }, conversion(publisher.apiKey)).expect(403);
      expect(byPublisher.body.message).toBe("this key's account lacks the partner role");
      expect(await t.app.get(DataSource).getRepository(ExchangeConversion).countBy({ messengerUserId: user })).toBe(0);
      // the same report with the partner's full key and its sign is stored (no exchange click: unattributed)
      expect((await post(EXCHANGE_EVENT, { 'x-api-key': partner.apiKey }, conversion(partner.apiKey)).expect(200)).body.data).toEqual({
        status: 'success',
        msg: 'conversion stored, not attributed to an exchange click',
      });
      expect(await t.app.get(DataSource).getRepository(ExchangeConversion).countBy({ messengerUserId: user })).toBe(1);
    });
  });

  describe('keys', () => {
    const fetchBody = () => ({ adBlockId, viewer: { openId: newUser(), type: 'telegram' } });

    it('should answer 401 without a key, with an unknown key, and with an x-api-id that is not a serve key (a full key, revoked, malformed)', async () => {
      const revoked = (await t.http().post('/api/v2/openapi/account/keys').set('x-api-key', publisher.apiKey).send({ scope: 'serve' }).expect(200)).body.data;
      await t.http().post('/api/v2/openapi/account/keys/revoke').set('x-api-key', publisher.apiKey).send({ keyId: revoked.keyId }).expect(200);
      const cases: [Record<string, string>, string][] = [
        [{}, 'x-api-key header is missing'],
        [{ apikey: 'adn_not-a-key' }, 'x-api-key is not a valid key (unknown or revoked)'],
        [{ 'x-api-id': fullKeyId }, "x-api-id is not a publishable (serve) key's id (unknown, revoked, or the id of a full key)"],
        [{ 'x-api-id': revoked.keyId }, "x-api-id is not a publishable (serve) key's id (unknown, revoked, or the id of a full key)"],
        [{ 'x-api-id': '01hzzzzzzzzzzzzzzzzzzzzzzz' }, "x-api-id is not a publishable (serve) key's id (unknown, revoked, or the id of a full key)"],
        [{ 'x-api-id': 'not an id' }, 'x-api-id is not a valid key id'],
      ];
      for (const [headers, message] of cases) {
        const response = await post(AD_FETCH, headers, fetchBody()).expect(401);
        expect(response.body).toEqual({ code: 401, message, data: {} });
      }
      // the canonical routes read only x-api-key
      const canonical = await t
        .http()
        .get('/api/v2/openapi/matching/ad')
        .query({ adBlockId, openId: 'u', type: 'messenger', limit: 1 })
        .set('x-api-id', serveKey.keyId);
      expect(canonical.status).toBe(401);
      expect(await counters()).toEqual([2, 1, 1, 0]);
    });

    it("should refuse a serve key from another origin, a partner's key on ads, and another publisher's block like an unknown one", async () => {
      const fromElsewhere = await post(AD_FETCH, { 'x-api-id': serveKey.keyId, origin: 'https://evil.example' }, fetchBody()).expect(403);
      expect(fromElsewhere.body.message).toBe('this key is not allowed from origin https://evil.example');
      const partnerKey = await post(AD_FETCH, { 'x-api-key': partner.apiKey }, fetchBody()).expect(403);
      expect(partnerKey.body.message).toBe("this key's account lacks the publisher role");
      const other = await post(AD_FETCH, { 'x-api-id': serveKey.keyId }, { ...fetchBody(), adBlockId: otherBlockId }).expect(404);
      const unknown = await post(AD_FETCH, { 'x-api-id': serveKey.keyId }, { ...fetchBody(), adBlockId: '01hzzzzzzzzzzzzzzzzzzzzzzz' }).expect(404);
      expect(other.body).toEqual(unknown.body);
      expect(await counters()).toEqual([2, 1, 1, 0]);
    });

    it('should let a serve key do nothing the canonical routes forbid it: a conversion ignored, no stored wallet', async () => {
      const user = newUser();
      const ignored = { code: 0, message: 'success', data: { status: 'success', msg: 'conversion ignored: only a full advertiser key reports conversions' } };
      const conversion = await post(AD_EVENT, { 'x-api-id': serveKey.keyId }, signed('conversion', adEventData(null, user), serveKey.keyId)).expect(200);
      expect(conversion.body).toEqual(ignored);
      const advertiserServe = (await t.http().post('/api/v2/openapi/account/keys').set('x-api-key', advertiser.apiKey).send({ scope: 'serve' }).expect(200))
        .body.data;
      const advertiserConversion = await post(
        AD_EVENT,
        { 'x-api-id': advertiserServe.keyId },
        signed('conversion', adEventData(null, user), advertiserServe.keyId),
      );
      expect(advertiserConversion.body).toEqual(ignored);
      // an unsigned one is refused like any event: the sign is checked first
      const unsigned = await post(
        AD_EVENT,
        { 'x-api-id': serveKey.keyId },
        { ...signed('conversion', adEventData(null, user), serveKey.keyId), sign: 'x' },
      ).expect(400);
      expect(unsigned.body.data.errors[0].field).toBe('sign');
      const wallet = await post(PROFILE, { 'x-api-id': serveKey.keyId }, { openId: user, walletClassify: 'ton', walletAddress: 'UQBvW8Z5' }).expect(403);
      expect(wallet.body.message).toContain('publishable (serve) key');
      const summary = (await t.http().get('/api/v2/openapi/ad/conversion/summary').set('x-api-key', advertiser.apiKey).expect(200)).body.data;
      expect([summary.attributed, summary.unattributed]).toEqual([0, 0]);
      expect(await counters()).toEqual([2, 1, 1, 0]);
    });
  });

  describe('fields', () => {
    const expectField = async (path: string, headers: Record<string, string>, body: object, field: string, message: string) => {
      const response = await post(path, headers, body).expect(400);
      expect(response.body).toEqual({ code: 400, message, data: { errors: [{ field, message }] } });
    };

    it('should name the field of a bad fetch', async () => {
      const key = { 'x-api-id': serveKey.keyId };
      await expectField(AD_FETCH, key, { adBlockId }, 'viewer', 'viewer is required');
      await expectField(AD_FETCH, key, { adBlockId, viewer: { openId: '' } }, 'viewer.openId', 'viewer.openId is required');
      await expectField(AD_FETCH, key, { adBlockId, viewer: { openId: 'u', type: 'web' } }, 'viewer.type', 'viewer.type must be one of telegram, messenger');
      await expectField(`${AD_FETCH}/multi`, key, { adBlockId, limit: 10, viewer: { openId: 'u' } }, 'limit', 'limit must be an integer from 1 to 9');
      expect(await counters()).toEqual([2, 1, 1, 0]);
    });

    it('should name the field of a bad event, signed right: type, missing ad fields, no impression to bind to', async () => {
      const key = { 'x-api-id': serveKey.keyId };
      const user = newUser();
      await expectField(
        AD_EVENT,
        key,
        signed('share', adEventData(null, user), serveKey.keyId),
        'eventType',
        'eventType must be one of click, impression, complete, conversion',
      );
      await expectField(AD_EVENT, key, signed('click', adEventData(null, user), serveKey.keyId), 'eventData.adBlockId', 'eventData.adBlockId is required');
      const notServed = { campaignId, adId: `ad_${campaignId}`, adBlockId };
      await expectField(AD_EVENT, key, signed('impression', adEventData(notServed, user), serveKey.keyId), 'eventData', 'no matching impression');
      await expectField(AD_EVENT, key, signed('click', adEventData(notServed, user), serveKey.keyId), 'eventData', 'no matching impression');
      await expectField(PROFILE, { 'x-api-key': publisher.apiKey }, { openId: user, walletClassify: 'ton' }, 'walletAddress', 'walletAddress is required');
      await expectField(
        PROFILE,
        { 'x-api-key': publisher.apiKey },
        { openId: user, walletClassify: 'sol', walletAddress: 'x' },
        'walletClassify',
        'walletClassify must be one of ton, evm, primary, alt',
      );
      expect(await counters()).toEqual([2, 1, 1, 0]);
    });

    it('should count no view of invalid traffic (a bot agent), while answering success', async () => {
      const user = newUser();
      const ad = await served(user);
      const response = await post(
        AD_EVENT,
        { 'x-api-id': serveKey.keyId, 'user-agent': 'curl/8.5.0' },
        signed('impression', adEventData(ad, user), serveKey.keyId),
      ).expect(200);
      expect(response.body.data).toEqual({ status: 'success', msg: 'view of invalid traffic: not counted' });
      expect(await counters()).toEqual([3, 1, 1, 0]);
    });
  });

  it("should answer the CORS preflight of the SDK's requests, allowing every header it sends", async () => {
    const sent = ['access-control-allow-origin', 'accept', 'api-request-type', 'apikey', 'content-type', 'debug', 'sdk-version', 'x-api-id', 'x-api-key'];
    const response = await t
      .http()
      .options(AD_EVENT)
      .set('origin', ORIGIN)
      .set('access-control-request-method', 'POST')
      .set('access-control-request-headers', sent.join(','))
      .expect(204);
    expect(response.headers['access-control-allow-origin']).toBe(ORIGIN);
    const allowed = String(response.headers['access-control-allow-headers'])
      .split(',')
      .map((name) => name.trim());
    expect(sent.filter((name) => !allowed.includes(name))).toEqual([]);
  });
});

describe(`ton-ai-sdk routes: the rate limit of the canonical frontend routes [${TEST_PROFILE}]`, () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_SECOND: '2' });
  });
  afterAll(() => t.close());

  it('should answer 429 past RATE_LIMIT_PER_SECOND per (key, client IP), as matching/ad does', async () => {
    const publisher = await createAccount(t, ['publisher']);
    const adBlockId = await createAdBlock(t, publisher.apiKey);
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        t
          .http()
          .post(AD_FETCH)
          .set('x-api-key', publisher.apiKey)
          .send({ adBlockId, viewer: { openId: 'u' } }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    // 12 requests within at most a few one-second windows of 2: most are refused
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
    expect(statuses.every((status) => status === 200 || status === 429)).toBe(true);
    const refused = answers.find((answer) => answer.status === 429)!;
    expect(refused.body.code).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
  });
});
