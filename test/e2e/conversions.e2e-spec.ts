import { DataSource } from 'typeorm';
import { ManualClock } from '../../src/common/clock';
import { Conversion } from '../../src/conversions/entities/conversion.entity';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import {
  Body,
  CAMPAIGN_BASE,
  clickAd,
  createServable,
  DAY,
  endAllCampaigns,
  expectValidationError,
  fetchAds,
  flushedCampaign,
  MINUTE,
  newUser,
} from '../support/serving-fixtures';
import { createAdBlock, openCampaign, createAccounts } from '../support/factories';

const CONVERSION = '/api/v2/openapi/ad/event/report/conversion';
const SUMMARY = '/api/v2/openapi/ad/conversion/summary';
type Account = { accountId: string; apiKey: string };

describe('Conversions (endpoint 7)', () => {
  let t: TestApp;
  const clock = new ManualClock();
  let publisher: Account;
  let advertiser: Account;
  let otherAdvertiser: Account;
  let block: string;
  let stored: () => Promise<Conversion[]>;

  beforeAll(async () => {
    t = await startTestApp({}, { clock });
    ({ publisher, advertiser, otherAdvertiser } = await createAccounts(t, {
      publisher: ['publisher', 'Publisher'],
      advertiser: ['advertiser', 'Advertiser X'],
      otherAdvertiser: ['advertiser', 'Advertiser Y'],
    }));
    block = await createAdBlock(t, publisher.apiKey);
    stored = () =>
      t.app
        .get(DataSource)
        .getRepository(Conversion)
        .find({ order: { createdAt: 'ASC', id: 'ASC' } });
  });
  afterAll(() => t.close());

  const http = () => t.http();
  const convert = (messengerUserId: unknown, key = advertiser.apiKey) =>
    http().post(CONVERSION).set('x-api-key', key).send({ eventType: 'conversion', eventData: { messengerUserId } });
  const summary = async (key = advertiser.apiKey, query: Record<string, number> = {}) =>
    (await http().get(SUMMARY).query(query).set('x-api-key', key).expect(200)).body.data;
  /** Serves `campaignId` to `user` and reports the click; answers when it is counted. */
  const click = async (campaignId: string, user: string) => {
    const ads = await fetchAds(t, publisher.apiKey, block, user, { limit: 9 });
    const ad = ads.find((a: Body) => a.campaignId === campaignId);
    if (!ad) throw new Error(`campaign ${campaignId} not served`);
    const response = await clickAd(t, publisher.apiKey, ad, user).expect(200);
    expect(response.body.data.msg).toBe('click counted');
  };
  const campaign = (key = advertiser.apiKey) => createServable(t, key, openCampaign({}, clock.now()));

  describe('validation and access', () => {
    const cases: [string, string, object][] = [
      ['eventType missing', 'eventType', { eventData: { messengerUserId: 'u' } }],
      ['eventType click', 'eventType', { eventType: 'click', eventData: { messengerUserId: 'u' } }],
      ['eventData missing', 'eventData', { eventType: 'conversion' }],
      ['eventData null', 'eventData', { eventType: 'conversion', eventData: null }],
      ['eventData a string', 'eventData', { eventType: 'conversion', eventData: 'u' }],
      ['eventData an array', 'eventData', { eventType: 'conversion', eventData: [] }],
      ['messengerUserId missing', 'eventData.messengerUserId', { eventType: 'conversion', eventData: {} }],
      ['messengerUserId empty', 'eventData.messengerUserId', { eventType: 'conversion', eventData: { messengerUserId: '' } }],
      ['messengerUserId a number', 'eventData.messengerUserId', { eventType: 'conversion', eventData: { messengerUserId: 42 } }],
      ['messengerUserId null', 'eventData.messengerUserId', { eventType: 'conversion', eventData: { messengerUserId: null } }],
      ['messengerUserId too long', 'eventData.messengerUserId', { eventType: 'conversion', eventData: { messengerUserId: 'x'.repeat(129) } }],
    ];

    it.each(cases)('should answer 400 naming the field for %s and store nothing', async (_case, field, body) => {
      const before = (await stored()).length;
      const response = await http().post(CONVERSION).set('x-api-key', advertiser.apiKey).send(body);
      expectValidationError(response, field);
      expect((await stored()).length).toBe(before);
    });

    it('should answer 400 for malformed JSON, 401 without or with an unknown key, 403 for a publisher key', async () => {
      const malformed = await http()
        .post(CONVERSION)
        .set('x-api-key', advertiser.apiKey)
        .set('content-type', 'application/json')
        .send('{"eventType": "conversion",');
      expect([malformed.status, malformed.body.code]).toEqual([400, 400]);
      const missing = await http()
        .post(CONVERSION)
        .send({ eventType: 'conversion', eventData: { messengerUserId: 'u' } });
      expect([missing.status, missing.body.code]).toEqual([401, 401]);
      const unknown = await convert('u', 'not-a-real-key-0123456789abcdef');
      expect([unknown.status, unknown.body.code]).toEqual([401, 401]);
      const forbidden = await convert('u', publisher.apiKey);
      expect([forbidden.status, forbidden.body.code]).toEqual([403, 403]);
      const summaryForbidden = await http().get(SUMMARY).set('x-api-key', publisher.apiKey);
      expect(summaryForbidden.status).toBe(403);
      const badRange = await http().get(SUMMARY).query({ from: 'soon' }).set('x-api-key', advertiser.apiKey);
      expectValidationError(badRange, 'from');
    });
  });

  describe('attribution', () => {
    beforeEach(() => endAllCampaigns(t));

    it('should keep a conversion without any click as unattributed, answering {status: "success"} without the envelope', async () => {
      const before = await summary();
      const user = newUser('noclick');
      const response = await convert(user).expect(200);
      expect(response.body).toEqual({ status: 'success', msg: 'stored, not attributed: no click to credit within the attribution window' });
      const row = (await stored()).find((conversion) => conversion.messengerUserId === user);
      expect(row).toMatchObject({ advertiserId: advertiser.accountId, clickId: null, campaignId: null });
      const after = await summary();
      expect(after.unattributed).toBe(before.unattributed + 1);
      expect(after.attributed).toBe(before.attributed);
    });

    it('should credit the latest counted click once: campaign conversions, cr and the hourly series', async () => {
      const first = await campaign();
      const second = await campaign();
      const user = newUser('conv');
      await click(first, user);
      clock.advance(MINUTE);
      await click(second, user);
      const before = await summary();

      await convert(user).expect(200);
      const secondDetail = await flushedCampaign(t, second);
      expect({ conversions: secondDetail.conversions, clicks: secondDetail.clicks, cr: secondDetail.cr }).toEqual({
        conversions: 1,
        clicks: 1,
        cr: 1,
      });
      expect((await flushedCampaign(t, first)).conversions).toBe(0);
      const row = (await stored()).find((conversion) => conversion.messengerUserId === user);
      expect(row?.campaignId).toBe(second);
      expect(row?.clickId).toMatch(/^[0-9a-z]{26}$/);

      // The same user converting again: that click was credited already, so this one is kept apart.
      await convert(user).expect(200);
      expect((await flushedCampaign(t, second)).conversions).toBe(1);
      const after = await summary();
      expect(after.attributed - before.attributed).toBe(1);
      expect(after.unattributed - before.unattributed).toBe(1);

      const series = await http()
        .get(`${CAMPAIGN_BASE}/stats`)
        .query({ campaignId: second, granularity: 'day', from: clock.now() - DAY, to: clock.now() + DAY })
        .set('x-api-key', advertiser.apiKey)
        .expect(200);
      const points = series.body.data.series as Body[];
      expect(points.reduce((sum, point) => sum + point.conversions, 0)).toBe(1);
      expect(points.reduce((sum, point) => sum + point.clicks, 0)).toBe(1);
    });

    it("should never credit another advertiser's click", async () => {
      const mine = await campaign();
      const user = newUser('foreign');
      await click(mine, user);
      await convert(user, otherAdvertiser.apiKey).expect(200);
      expect((await flushedCampaign(t, mine)).conversions).toBe(0);
      const row = (await stored()).find((conversion) => conversion.messengerUserId === user);
      expect(row).toMatchObject({ advertiserId: otherAdvertiser.accountId, clickId: null });
      const theirs = await summary(otherAdvertiser.apiKey);
      expect(theirs.attributed).toBe(0);
      expect(theirs.unattributed).toBeGreaterThanOrEqual(1);
    });

    it('should credit clicks within 7 days and not older ones', async () => {
      const id = await campaign();
      const inside = newUser('inside');
      const outside = newUser('outside');
      await click(id, inside);
      await click(id, outside);
      clock.advance(7 * DAY - MINUTE);
      await convert(inside).expect(200);
      clock.advance(2 * MINUTE);
      await convert(outside).expect(200);
      expect((await flushedCampaign(t, id)).conversions).toBe(1);
      const rows = await stored();
      expect(rows.find((row) => row.messengerUserId === inside)?.campaignId).toBe(id);
      expect(rows.find((row) => row.messengerUserId === outside)?.campaignId).toBeNull();
    });

    it('should credit a click once when its conversions arrive concurrently', async () => {
      const id = await campaign();
      const user = newUser('race');
      await click(id, user);
      const responses = await Promise.all(Array.from({ length: 6 }, () => convert(user)));
      expect(responses.map((response) => response.status)).toEqual(responses.map(() => 200));
      const rows = (await stored()).filter((row) => row.messengerUserId === user);
      expect(rows).toHaveLength(6);
      expect(rows.filter((row) => row.clickId !== null)).toHaveLength(1);
      expect((await flushedCampaign(t, id)).conversions).toBe(1);
      const detail = await http().get(`${CAMPAIGN_BASE}/detail`).query({ campaignId: id }).set('x-api-key', ADMIN_KEY).expect(200);
      expect(detail.body.data.conversions).toBe(1);
    });

    it("should keep every answered write when a concurrent report's transaction rolls back", async () => {
      // Reports racing for one click: all but one lose on the click's unique index and their transactions roll back.
      // Other advertisers' reports and campaigns written at the same moment must all stay (on SQLite the process has one
      // connection: docs/ARCHITECTURE.md, "A transaction awaits only its own statements").
      const id = await campaign();
      const racer = newUser('rollback-race');
      await click(id, racer);
      const bystanders = Array.from({ length: 8 }, (_, i) => newUser(`bystander-${i}`));
      const [racing, others, created] = await Promise.all([
        Promise.all(Array.from({ length: 8 }, () => convert(racer))),
        Promise.all(bystanders.map((user) => convert(user, otherAdvertiser.apiKey))),
        Promise.all(Array.from({ length: 4 }, () => createServable(t, otherAdvertiser.apiKey, openCampaign({}, clock.now())))),
      ]);
      expect([...racing, ...others].map((response) => response.status)).toEqual([...racing, ...others].map(() => 200));

      const rows = await stored();
      expect(rows.filter((row) => row.messengerUserId === racer)).toHaveLength(8);
      expect(rows.filter((row) => row.messengerUserId === racer && row.clickId !== null)).toHaveLength(1);
      expect(
        rows
          .filter((row) => bystanders.includes(row.messengerUserId))
          .map((row) => row.messengerUserId)
          .sort(),
      ).toEqual([...bystanders].sort());
      for (const campaignId of created) {
        await http().get(`${CAMPAIGN_BASE}/detail`).query({ campaignId }).set('x-api-key', otherAdvertiser.apiKey).expect(200);
      }
      expect((await flushedCampaign(t, id)).conversions).toBe(1);
    });
  });
});
