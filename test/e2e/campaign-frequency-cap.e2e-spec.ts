import { Body, CAMPAIGN_BASE, expectValidationError } from '../support/serving-fixtures';
import { startTestApp, TestApp } from '../support/test-app';
import { campaignBody, createAccount } from '../support/factories';

/** The campaign's `frequencyCap {impressions, hours}`: create, detail, list, update (merge, null removes). */
describe('Campaign frequencyCap field', () => {
  let t: TestApp;
  let advertiser: { accountId: string; apiKey: string };

  beforeAll(async () => {
    t = await startTestApp();
    advertiser = await createAccount(t, ['advertiser'], 'Capping advertiser');
  });
  afterAll(async () => {
    await t?.close();
  });

  const createRaw = (body: object) => t.http().post(`${CAMPAIGN_BASE}/create`).set('x-api-key', advertiser.apiKey).send(body);
  const create = async (body: object): Promise<string> => {
    const response = await createRaw(body).expect(200);
    return response.body.data.campaignId;
  };
  const detail = async (campaignId: string): Promise<Body> =>
    (await t.http().get(`${CAMPAIGN_BASE}/detail`).query({ campaignId }).set('x-api-key', advertiser.apiKey).expect(200)).body.data;
  const listItems = async (): Promise<Body[]> =>
    (await t.http().get(`${CAMPAIGN_BASE}/list`).query({ current: 1, pageSize: 100 }).set('x-api-key', advertiser.apiKey).expect(200)).body.data.campaigns;
  const updateRaw = (body: object) => t.http().post(`${CAMPAIGN_BASE}/update`).set('x-api-key', advertiser.apiKey).send(body);

  describe('stored and answered', () => {
    it('should store the cap given at create and answer it in detail and list', async () => {
      const campaignId = await create({ ...campaignBody({ name: 'Capped' }), frequencyCap: { impressions: 3, hours: 24, per: 'device' } });
      expect((await detail(campaignId)).frequencyCap).toEqual({ impressions: 3, hours: 24 });
      const item = (await listItems()).find((campaign) => campaign.id === campaignId);
      expect(item?.frequencyCap).toEqual({ impressions: 3, hours: 24 });
    });

    it('should answer null for a campaign created without a cap (also when null is given)', async () => {
      const without = await create(campaignBody({ name: 'Uncapped' }));
      const withNull = await create({ ...campaignBody({ name: 'Null cap' }), frequencyCap: null });
      expect((await detail(without)).frequencyCap).toBeNull();
      expect((await detail(withNull)).frequencyCap).toBeNull();
      const items = await listItems();
      expect(items.find((campaign) => campaign.id === without)?.frequencyCap).toBeNull();
    });

    it('should accept the bounds 1..1000 impressions and 1..720 hours', async () => {
      const low = await create({ ...campaignBody(), frequencyCap: { impressions: 1, hours: 1 } });
      const high = await create({ ...campaignBody(), frequencyCap: { impressions: 1000, hours: 720 } });
      expect((await detail(low)).frequencyCap).toEqual({ impressions: 1, hours: 1 });
      expect((await detail(high)).frequencyCap).toEqual({ impressions: 1000, hours: 720 });
    });
  });

  describe('update', () => {
    it('should merge given fields into the cap, keep it when absent, and remove it with null', async () => {
      const campaignId = await create({ ...campaignBody(), frequencyCap: { impressions: 3, hours: 24 } });

      const merged = await updateRaw({ campaignId, frequencyCap: { hours: 48 } }).expect(200);
      expect(merged.body.data.frequencyCap).toEqual({ impressions: 3, hours: 48 });
      expect((await detail(campaignId)).frequencyCap).toEqual({ impressions: 3, hours: 48 });

      await updateRaw({ campaignId, name: 'Renamed' }).expect(200);
      expect((await detail(campaignId)).frequencyCap).toEqual({ impressions: 3, hours: 48 });

      const removed = await updateRaw({ campaignId, frequencyCap: null }).expect(200);
      expect(removed.body.data.frequencyCap).toBeNull();
      expect((await detail(campaignId)).frequencyCap).toBeNull();

      const added = await updateRaw({ campaignId, frequencyCap: { impressions: 7, hours: 2 } }).expect(200);
      expect(added.body.data.frequencyCap).toEqual({ impressions: 7, hours: 2 });
      const item = (await listItems()).find((campaign) => campaign.id === campaignId);
      expect(item?.frequencyCap).toEqual({ impressions: 7, hours: 2 });
    });

    it('should answer 400 naming the missing field when a campaign without a cap gets half of one, and store nothing', async () => {
      const campaignId = await create(campaignBody({ name: 'No cap yet' }));
      const before = await detail(campaignId);
      const response = await updateRaw({ campaignId, name: 'Changed', frequencyCap: { impressions: 5 } });
      expectValidationError(response, 'frequencyCap.hours');
      const after = await detail(campaignId);
      expect(after).toEqual(before);
    });

    it.each<[string, unknown, string]>([
      ['impressions 0', { impressions: 0 }, 'frequencyCap.impressions'],
      ['impressions 1001', { impressions: 1001 }, 'frequencyCap.impressions'],
      ['hours 721', { hours: 721 }, 'frequencyCap.hours'],
      ['hours 1.5', { hours: 1.5 }, 'frequencyCap.hours'],
      ['a string', 'often', 'frequencyCap'],
    ])('should answer 400 for %s and leave the cap as it was', async (_label, frequencyCap, field) => {
      const campaignId = await create({ ...campaignBody(), frequencyCap: { impressions: 3, hours: 24 } });
      const before = await detail(campaignId);
      expectValidationError(await updateRaw({ campaignId, name: 'Changed', frequencyCap }), field);
      expect(await detail(campaignId)).toEqual(before);
    });
  });

  describe('create validation', () => {
    it.each<[string, unknown, string]>([
      ['impressions missing', { hours: 24 }, 'frequencyCap.impressions'],
      ['hours missing', { impressions: 3 }, 'frequencyCap.hours'],
      ['impressions 0', { impressions: 0, hours: 24 }, 'frequencyCap.impressions'],
      ['impressions negative', { impressions: -1, hours: 24 }, 'frequencyCap.impressions'],
      ['impressions above 1000', { impressions: 1001, hours: 24 }, 'frequencyCap.impressions'],
      ['impressions fractional', { impressions: 2.5, hours: 24 }, 'frequencyCap.impressions'],
      ['impressions a string', { impressions: '3', hours: 24 }, 'frequencyCap.impressions'],
      ['hours 0', { impressions: 3, hours: 0 }, 'frequencyCap.hours'],
      ['hours above 720', { impressions: 3, hours: 721 }, 'frequencyCap.hours'],
      ['hours null', { impressions: 3, hours: null }, 'frequencyCap.hours'],
      ['not an object', 3, 'frequencyCap'],
      ['an array', [3, 24], 'frequencyCap'],
    ])('should answer 400 naming the field for %s, and store nothing', async (_label, frequencyCap, field) => {
      const before = (await listItems()).length;
      expectValidationError(await createRaw({ ...campaignBody({ name: 'Bad cap' }), frequencyCap }), field);
      expect(await listItems()).toHaveLength(before);
    });
  });
});
