import { DataSource } from 'typeorm';
import { ManualClock } from '../../src/common/clock';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { CLICK, flushStats, IP, UA } from '../support/serving-helpers';
import { Body, createServable, DAY, expectValidationError, fetchAds, newUser } from '../support/serving-fixtures';
import { createAdBlock, openCampaign, createAccounts } from '../support/factories';

type Account = { accountId: string; apiKey: string };

const CONVERSION = '/api/v2/openapi/ad/event/report/conversion';
const CUSTOM = '/api/v2/openapi/ad/event/report/custom';
const POSTBACK = '/api/v2/openapi/postback';
const ME = '/api/v2/openapi/account/me';
const ROTATE = '/api/v2/openapi/account/postback-token/rotate';
const ATTRIBUTED = { status: 'success', msg: 'attributed to a click' };
const UNATTRIBUTED = { status: 'success', msg: 'stored, not attributed: no click to credit within the attribution window' };
const DUPLICATE = { status: 'success', msg: 'duplicate' };
const LANDING = 'https://shop.example.com/landing?cid={click_id}&campaign={campaign_id}&block={ad_block_id}&utm=x';

describe('Click ids, postbacks and transaction ids (§20)', () => {
  let t: TestApp;
  const clock = new ManualClock();
  let advertiser: Account;
  let otherAdvertiser: Account;
  let publisher: Account;
  let block: string;
  let withMacros: string;
  let plain: string;

  const http = () => t.http();
  const db = () => t.app.get(DataSource);
  const landingOf = (ad: Body) => new URL(ad.destination.url);
  /** Serves a fresh user and answers the user and the ad of `campaignId`. */
  const serve = async (campaignId: string) => {
    const user = newUser('cid');
    const ads = await fetchAds(t, publisher.apiKey, block, user, { ip: IP.US, ua: UA.Android });
    const ad = ads.find((a) => a.campaignId === campaignId);
    if (!ad) throw new Error(`${campaignId} not served`);
    return { user, ad };
  };
  const click = async (ad: Body, user: string) => {
    const response = await http()
      .post(CLICK)
      .set('x-api-key', publisher.apiKey)
      .send({ eventType: 'click', eventData: { adBlockId: ad.adBlockId, messengerUserId: user, adId: ad.adId, campaignId: ad.campaignId } });
    expect(response.body.data.msg).toBe('click counted');
  };
  /** Serves and clicks an ad of the macro campaign: answers its click id. */
  const clickedId = async () => {
    const { user, ad } = await serve(withMacros);
    await click(ad, user);
    return landingOf(ad).searchParams.get('cid')!;
  };
  const convert = (key: string, eventData: Record<string, unknown>, path = CONVERSION, eventType = 'conversion') =>
    http().post(path).set('x-api-key', key).send({ eventType, eventData });
  const events = async (campaignId: string) => {
    await flushStats(t);
    const detail = await http().get('/api/v2/openapi/ad/campaign/detail').query({ campaignId }).set('x-api-key', ADMIN_KEY).expect(200);
    return detail.body.data.events;
  };
  const conversionRows = async () => Number((await db().query('SELECT COUNT(*) AS n FROM conversions'))[0].n);
  const tokenOf = async (key: string) => (await http().get(ME).set('x-api-key', key).expect(200)).body.data.postbackToken as string | undefined;

  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: 'true' }, { clock });
    ({ advertiser, otherAdvertiser, publisher } = await createAccounts(t, {
      advertiser: ['advertiser', 'Advertiser A'],
      otherAdvertiser: ['advertiser', 'Advertiser B'],
      publisher: ['publisher', 'Publisher P'],
    }));
    block = await createAdBlock(t, publisher.apiKey, 'P main');
    const now = clock.now();
    withMacros = await createServable(
      t,
      advertiser.apiKey,
      openCampaign({ name: 'macros', ad: { destination: { actionType: 'visit.website', url: LANDING } } }, now),
    );
    plain = await createServable(t, advertiser.apiKey, openCampaign({ name: 'plain' }, now));
  });
  afterAll(() => t.close());

  describe('destination macros', () => {
    it('should fill click_id, campaign_id and ad_block_id in the served URL, a new unguessable click id per impression', async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 6; i++) {
        const { ad } = await serve(withMacros);
        const url = landingOf(ad);
        expect(`${url.origin}${url.pathname}`).toBe('https://shop.example.com/landing');
        expect(url.searchParams.get('campaign')).toBe(withMacros);
        expect(url.searchParams.get('block')).toBe(block);
        expect(url.searchParams.get('utm')).toBe('x');
        const clickId = url.searchParams.get('cid')!;
        expect(clickId).toMatch(/^[0-9a-z]{9}[A-Za-z0-9_-]{22}$/);
        ids.add(clickId);
      }
      expect(ids.size).toBe(6);
      const { ad } = await serve(plain);
      expect(ad.destination.url).toBe('https://example.com/landing');
    });

    it("should keep the impression's click id on its counted click", async () => {
      const { user, ad } = await serve(withMacros);
      await click(ad, user);
      const rows: { clickToken: string | null }[] = await db().query('SELECT clickToken FROM clicks WHERE messengerUserId = ?', [user]);
      expect(rows).toEqual([{ clickToken: landingOf(ad).searchParams.get('cid') }]);
      const other = await serve(plain);
      await click(other.ad, other.user);
      expect(await db().query('SELECT clickToken FROM clicks WHERE messengerUserId = ?', [other.user])).toEqual([{ clickToken: null }]);
    });
  });

  describe('conversions by click id', () => {
    it("should attribute a conversion and a custom event to the advertiser's own click, once per event type", async () => {
      const clickId = await clickedId();
      const before = await events(withMacros);
      expect((await convert(advertiser.apiKey, { clickId })).body).toEqual(ATTRIBUTED);
      expect((await convert(advertiser.apiKey, { clickId }, CUSTOM, 'register')).body).toEqual(ATTRIBUTED);
      // the same click and type again: stored, not credited twice
      expect((await convert(advertiser.apiKey, { clickId })).body).toEqual(UNATTRIBUTED);
      expect(await events(withMacros)).toEqual({ ...before, conversion: before.conversion + 1, register: before.register + 1 });
    });

    it("should attribute nothing for another advertiser's click id, an unclicked impression's, or a made-up one", async () => {
      const clickId = await clickedId();
      const unclicked = landingOf((await serve(withMacros)).ad).searchParams.get('cid')!;
      const before = await events(withMacros);
      for (const [key, id] of [
        [otherAdvertiser.apiKey, clickId],
        [advertiser.apiKey, unclicked],
        [advertiser.apiKey, 'zzzzzzzzzAAAAAAAAAAAAAAAAAAAAAA'],
        [advertiser.apiKey, 'not-a-click-id'],
      ]) {
        expect((await convert(key, { clickId: id })).body).toEqual(UNATTRIBUTED);
      }
      expect(await events(withMacros)).toEqual(before);
      // the owner still can
      expect((await convert(advertiser.apiKey, { clickId })).body).toEqual(ATTRIBUTED);
    });

    it('should not attribute a click older than ATTRIBUTION_DAYS', async () => {
      const clickId = await clickedId();
      clock.advance(8 * DAY);
      try {
        expect((await convert(advertiser.apiKey, { clickId })).body).toEqual(UNATTRIBUTED);
      } finally {
        clock.advance(-8 * DAY);
      }
    });

    it('should answer a repeated transactionId of the same advertiser and event type as duplicate, storing and counting nothing', async () => {
      const clickId = await clickedId();
      const user = newUser('tx');
      const before = await events(withMacros);
      expect((await convert(advertiser.apiKey, { clickId, transactionId: 'order-1' })).body).toEqual(ATTRIBUTED);
      const rows = await conversionRows();
      expect((await convert(advertiser.apiKey, { clickId, transactionId: 'order-1' })).body).toEqual(DUPLICATE);
      expect((await convert(advertiser.apiKey, { messengerUserId: user, transactionId: 'order-1' })).body).toEqual(DUPLICATE);
      expect(await conversionRows()).toBe(rows);
      // another event type, or another advertiser, with the same id is not a duplicate
      expect((await convert(advertiser.apiKey, { clickId, transactionId: 'order-1' }, CUSTOM, 'payment')).body).toEqual(ATTRIBUTED);
      expect((await convert(otherAdvertiser.apiKey, { messengerUserId: user, transactionId: 'order-1' })).body).toEqual(UNATTRIBUTED);
      expect(await conversionRows()).toBe(rows + 2);
      expect(await events(withMacros)).toEqual({ ...before, conversion: before.conversion + 1, payment: before.payment + 1 });
    });

    it.each([
      ['neither messengerUserId nor clickId', {}, 'eventData.messengerUserId'],
      ['an empty clickId', { clickId: '' }, 'eventData.clickId'],
      ['a clickId number', { clickId: 12 }, 'eventData.clickId'],
      ['an empty transactionId', { messengerUserId: 'u', transactionId: '' }, 'eventData.transactionId'],
      ['a transactionId over 128 characters', { messengerUserId: 'u', transactionId: 'x'.repeat(129) }, 'eventData.transactionId'],
    ])('should answer 400 naming the field for %s, storing nothing', async (_case, eventData, field) => {
      const rows = await conversionRows();
      expectValidationError(await convert(advertiser.apiKey, eventData), field);
      expect(await conversionRows()).toBe(rows);
    });
  });

  describe('postbacks', () => {
    it('should show the postback token to advertisers only', async () => {
      expect(await tokenOf(advertiser.apiKey)).toMatch(/^pbt_[A-Za-z0-9_-]{32}$/);
      expect(await tokenOf(publisher.apiKey)).toBeUndefined();
      expect(await tokenOf(advertiser.apiKey)).not.toBe(await tokenOf(otherAdvertiser.apiKey));
    });

    it('should count a postback with a good token like the POST, refuse a wrong one (401) and a rotated one', async () => {
      const token = (await tokenOf(advertiser.apiKey))!;
      const clickId = await clickedId();
      const before = await events(withMacros);
      const good = await http().get(POSTBACK).query({ token, clickId, event: 'register', transactionId: 'af-1' });
      expect([good.status, good.body]).toEqual([200, ATTRIBUTED]);
      const again = await http().get(POSTBACK).query({ token, clickId, event: 'register', transactionId: 'af-1' });
      expect(again.body).toEqual(DUPLICATE);
      // the default event is a conversion
      expect((await http().get(POSTBACK).query({ token, clickId })).body).toEqual(ATTRIBUTED);
      expect(await events(withMacros)).toEqual({ ...before, register: before.register + 1, conversion: before.conversion + 1 });

      const wrong = await http().get(POSTBACK).query({ token: 'pbt_wrong', clickId });
      expect([wrong.status, wrong.body.code, wrong.body.data.errors[0].field]).toEqual([401, 401, 'token']);
      // another advertiser's token credits nothing of A's
      const otherToken = (await tokenOf(otherAdvertiser.apiKey))!;
      expect((await http().get(POSTBACK).query({ token: otherToken, clickId, event: 'play' })).body).toEqual(UNATTRIBUTED);

      const rotated = await http().post(ROTATE).set('x-api-key', advertiser.apiKey).expect(200);
      const fresh = rotated.body.data.postbackToken as string;
      expect(fresh).toMatch(/^pbt_/);
      expect(fresh).not.toBe(token);
      expect(await tokenOf(advertiser.apiKey)).toBe(fresh);
      expect((await http().get(POSTBACK).query({ token, clickId, event: 'play' })).status).toBe(401);
      expect((await http().get(POSTBACK).query({ token: fresh, clickId, event: 'play' })).body).toEqual(ATTRIBUTED);
      expect((await events(withMacros)).play).toBe(before.play + 1);
    });

    it('should answer 400 naming the field for a missing clickId or an unknown event, and 403 for a publisher rotating', async () => {
      const token = (await tokenOf(advertiser.apiKey))!;
      expectValidationError(await http().get(POSTBACK).query({ token }), 'clickId');
      expectValidationError(await http().get(POSTBACK).query({ token, clickId: 'x', event: 'install' }), 'event');
      expectValidationError(await http().get(POSTBACK).query({ clickId: 'x' }), 'token');
      expect((await http().post(ROTATE).set('x-api-key', publisher.apiKey)).status).toBe(403);
    });
  });
});
