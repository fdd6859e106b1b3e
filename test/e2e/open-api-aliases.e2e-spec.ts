import { DataSource } from 'typeorm';
import { Conversion } from '../../src/conversions/entities/conversion.entity';
import { ClicksFastLane } from '../../src/clicks/clicks.fast-lane';
import { ExchangeStatsWriterService } from '../../src/exchange/exchange-stats-writer.service';
import { ServingFastLane } from '../../src/serving/serving.fast-lane';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { CLICK, FETCH, IP, UA } from '../support/serving-helpers';
import { Body, CAMPAIGN_BASE, createServable, endAllCampaigns, expectValidationError, flushedCampaign, newUser } from '../support/serving-fixtures';
import { countRows, PROFILE_BATCH, storedProfile, uploadAndApply, uploadCsv, waitForBatch } from '../support/profile-helpers';
import { createAdBlock, openCampaign, createAccounts } from '../support/factories';

type Account = { accountId: string; apiKey: string };

const CONVERSION = '/api/v2/openapi/ad/event/report/conversion';
const EXCHANGE_BASE = '/api/v2/openapi/exchange/campaign';
const EXCHANGE_FETCH = '/api/v2/openapi/matching/exchange';
const EXCHANGE_CLICK = '/api/v2/openapi/exchange/event/report';
const WALLET = 'EQD4FPq-PRDieyQKkizFTRtSDyucUIqrj0v_zXJmqaDp6_0t';
const CONFLICT = 'send one of them, or both with the same value';

/**
 * TON AI's Open API names (docs/CONTRACT.md §14) on every endpoint that has the field: `type=telegram`,
 * `telegramUserId`, targeting `telegramPremium` / `userLinkedTonWallet`, `walletClassify: ton`. Each is accepted in
 * place of the canonical name and does what the canonical name does; answers carry only canonical names; an alias
 * sent beside its canonical field with another value is a 400 naming the alias, and stores nothing.
 */
describe('Open API aliases (docs/CONTRACT.md §14)', () => {
  let t: TestApp;
  let publisher: Account;
  let advertiser: Account;
  let partnerA: Account;
  let partnerB: Account;
  let block: string;
  const ways: string[] = [];

  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: 'true' });
    ({ publisher, advertiser, partnerA, partnerB } = await createAccounts(t, {
      publisher: ['publisher', 'Alias publisher'],
      advertiser: ['advertiser', 'Alias advertiser'],
      partnerA: ['partner', 'Alias partner A'],
      partnerB: ['partner', 'Alias partner B'],
    }));
    block = await createAdBlock(t, publisher.apiKey, 'Alias block');
    // Records which way (fast lane or Nest) each hot request went, without changing what the lanes do.
    for (const lane of [t.app.get(ServingFastLane), t.app.get(ClicksFastLane)]) {
      const tryHandle = lane.tryHandle.bind(lane);
      jest.spyOn(lane, 'tryHandle').mockImplementation((request, reply) => {
        const took = tryHandle(request, reply);
        ways.push(`${lane.url}:${took ? 'lane' : 'nest'}`);
        return took;
      });
    }
  });
  afterAll(() => t.close());

  const http = () => t.http();
  const lastWay = () => ways[ways.length - 1];
  const fetchAds = async (user: string, type = 'telegram') => {
    const response = await http()
      .get(FETCH)
      .query({ adBlockId: block, openId: user, type, limit: 9 })
      .set({ 'x-api-key': publisher.apiKey, 'x-forwarded-for': IP.US, 'user-agent': UA.iOS })
      .expect(200);
    expect(response.body).toEqual({ code: 0, message: 'success', data: { msg: expect.any(String), success: true, ads: expect.any(Array) } });
    return response.body.data.ads as Body[];
  };
  const click = (eventData: Body) =>
    http().post(CLICK).set({ 'x-api-key': publisher.apiKey, 'x-forwarded-for': IP.US, 'user-agent': UA.iOS }).send({ eventType: 'click', eventData });
  const campaignCount = async () => (await http().get(`${CAMPAIGN_BASE}/list`).set('x-api-key', advertiser.apiKey).expect(200)).body.data.total as number;
  const detail = async (campaignId: string) =>
    (await http().get(`${CAMPAIGN_BASE}/detail`).query({ campaignId }).set('x-api-key', advertiser.apiKey).expect(200)).body.data as Body;

  describe('campaign targeting (endpoints 1, 4 and update)', () => {
    it('should store the TON targeting names as the canonical flags and read them back under the canonical names only', async () => {
      const withAliases = await createServable(t, advertiser.apiKey, openCampaign({ targeting: { telegramPremium: true, userLinkedTonWallet: true } }));
      const canonical = await createServable(t, advertiser.apiKey, openCampaign({ targeting: { messengerPremium: true, userLinkedChainWallet: true } }));
      const aliasTargeting = (await detail(withAliases)).targeting;
      expect(aliasTargeting).toEqual((await detail(canonical)).targeting);
      expect(aliasTargeting).toEqual({
        includedRegions: [],
        excludedRegions: [],
        includedLanguages: [],
        excludedLanguages: [],
        platform: 'All',
        messengerPremium: true,
        isHighValueUser: false,
        userLinkedChainWallet: true,
        userLinkedWallet: false,
        userWalletHasBalanceOnChain: false,
      });
    });

    it('should update the flags through their aliases, and accept an alias beside its canonical field with the same value', async () => {
      const campaignId = await createServable(t, advertiser.apiKey, openCampaign({ targeting: { telegramPremium: true } }));
      await http()
        .post(`${CAMPAIGN_BASE}/update`)
        .set('x-api-key', advertiser.apiKey)
        .send({ campaignId, targeting: { telegramPremium: false, userLinkedTonWallet: true, userLinkedChainWallet: true } })
        .expect(200);
      expect((await detail(campaignId)).targeting).toMatchObject({ messengerPremium: false, userLinkedChainWallet: true });
    });

    it.each([
      ['telegramPremium beside messengerPremium', { messengerPremium: true, telegramPremium: false }, 'targeting.telegramPremium', CONFLICT],
      [
        'userLinkedTonWallet beside userLinkedChainWallet',
        { userLinkedChainWallet: false, userLinkedTonWallet: true },
        'targeting.userLinkedTonWallet',
        CONFLICT,
      ],
      ['telegramPremium not a boolean', { telegramPremium: 'yes' }, 'targeting.telegramPremium', 'must be a boolean'],
    ])('should answer 400 naming the field for %s and create nothing', async (_case, targeting, field, words) => {
      const before = await campaignCount();
      const response = await http().post(`${CAMPAIGN_BASE}/create`).set('x-api-key', advertiser.apiKey).send(openCampaign({ targeting }));
      expectValidationError(response, field);
      expect(response.body.message).toContain(words);
      expect(await campaignCount()).toBe(before);
    });

    it('should refuse a conflicting alias in an update and leave the campaign as it was', async () => {
      const campaignId = await createServable(t, advertiser.apiKey, openCampaign({ targeting: { telegramPremium: true } }));
      const response = await http()
        .post(`${CAMPAIGN_BASE}/update`)
        .set('x-api-key', advertiser.apiKey)
        .send({ campaignId, name: 'changed', targeting: { messengerPremium: false, telegramPremium: true } });
      expectValidationError(response, 'targeting.telegramPremium');
      const after = await detail(campaignId);
      expect({ name: after.name, messengerPremium: after.targeting.messengerPremium }).toEqual({ name: 'Winter launch', messengerPremium: true });
    });
  });

  describe('serving and profiles (endpoints 5, 10)', () => {
    it('should serve a campaign targeted with the TON names exactly to the users whose profiles (uploaded with the TON names) match', async () => {
      await endAllCampaigns(t);
      const campaignId = await createServable(t, advertiser.apiKey, openCampaign({ targeting: { telegramPremium: true, userLinkedTonWallet: true } }));
      const [premiumTon, premiumEvm, plain] = [newUser('ton'), newUser('evm'), newUser('plain')];
      await uploadAndApply(t, publisher.apiKey, [
        { telegramUserId: premiumTon, walletAddress: WALLET, walletClassify: 'ton', isPremium: true },
        { telegramUserId: premiumEvm, walletAddress: '0xabc', walletClassify: 'evm', isPremium: true },
        { messengerUserId: plain },
      ]);
      expect(await storedProfile(t, premiumTon)).toMatchObject({
        messengerUserId: premiumTon,
        walletAddress: WALLET,
        walletClassify: 'primary',
        isPremium: true,
      });

      expect((await fetchAds(premiumTon)).map((ad) => ad.campaignId)).toEqual([campaignId]);
      expect(await fetchAds(premiumEvm)).toEqual([]);
      expect(await fetchAds(plain)).toEqual([]);
      expect((await fetchAds(premiumTon, 'messenger')).map((ad) => ad.campaignId)).toEqual([campaignId]);
    });

    it('should answer type=telegram exactly as type=messenger, through the fast lane, and count both', async () => {
      await endAllCampaigns(t);
      const campaignId = await createServable(t, advertiser.apiKey, openCampaign({ bidding: { billingType: 'CPM', costPer: 2 } }));
      const [first, second] = [newUser(), newUser()];
      const viaTelegram = await fetchAds(first, 'telegram');
      expect(lastWay()).toBe(`${FETCH}:lane`);
      const viaMessenger = await fetchAds(second, 'messenger');
      expect(viaTelegram).toEqual(viaMessenger);
      expect(viaTelegram).toEqual([expect.objectContaining({ adBlockId: block, campaignId, adId: `ad_${campaignId}` })]);
      expect((await flushedCampaign(t, campaignId)).impressions).toBe(2);
    });

    it('should answer 400 naming type for a value that is neither messenger nor its alias', async () => {
      const response = await http().get(FETCH).query({ adBlockId: block, openId: newUser(), type: 'tg', limit: 1 }).set('x-api-key', publisher.apiKey);
      expectValidationError(response, 'type');
    });

    it('should refuse a profile record whose alias conflicts, naming it, and store nothing of the batch', async () => {
      const [profiles, batches] = [await countRows(t, 'profiles'), await countRows(t, 'profile_batches')];
      const response = await http()
        .post(PROFILE_BATCH)
        .set('x-api-key', publisher.apiKey)
        .send({ list: [{ telegramUserId: newUser() }, { messengerUserId: 'a', telegramUserId: 'b' }, { telegramUserId: 7 }] });
      expect(response.status).toBe(400);
      expect(response.body.data.errors).toEqual([
        { field: 'list.1.telegramUserId', message: `list.1.telegramUserId is an alias of list.1.messengerUserId: ${CONFLICT}` },
      ]);
      const typeError = await http()
        .post(PROFILE_BATCH)
        .set('x-api-key', publisher.apiKey)
        .send({ list: [{ telegramUserId: 7 }] });
      expectValidationError(typeError, 'list.0.telegramUserId');
      const tonWithoutWallet = await http()
        .post(PROFILE_BATCH)
        .set('x-api-key', publisher.apiKey)
        .send({ list: [{ telegramUserId: 'x', walletClassify: 'ton' }] });
      expectValidationError(tonWithoutWallet, 'list.0.walletClassify');
      expect([await countRows(t, 'profiles'), await countRows(t, 'profile_batches')]).toEqual([profiles, batches]);
    });

    it('should import a CSV file with a telegramUserId column and ton wallets', async () => {
      const user = newUser('csv');
      const response = await uploadCsv(t, publisher.apiKey, `telegramUserId,walletAddress,walletClassify,isPremium\n${user},${WALLET},ton,yes\n`).expect(200);
      expect(response.body.data.total).toBe(1);
      await waitForBatch(t, publisher.apiKey, response.body.data.batchIds[0]);
      expect(await storedProfile(t, user)).toMatchObject({ messengerUserId: user, walletClassify: 'primary', isPremium: true });
    });
  });

  describe('clicks and conversions (endpoints 6, 7)', () => {
    let campaignId: string;
    beforeAll(async () => {
      await endAllCampaigns(t);
      campaignId = await createServable(t, advertiser.apiKey, openCampaign({ bidding: { billingType: 'CPC', costPer: 0.5 } }));
    });

    it('should count a click reported with telegramUserId through the fast lane, bill it, and credit a conversion reported with it', async () => {
      const user = newUser();
      const [ad] = await fetchAds(user);
      const before = await flushedCampaign(t, campaignId);
      const response = await click({ adBlockId: block, telegramUserId: user, adId: ad.adId, campaignId }).expect(200);
      expect(lastWay()).toBe(`${CLICK}:lane`);
      expect(response.body).toEqual({ code: 0, message: 'success', data: { status: 'success', msg: 'click counted' } });
      const repeat = await click({ adBlockId: block, messengerUserId: user, telegramUserId: user, adId: ad.adId, campaignId }).expect(200);
      expect(repeat.body.data.msg).toBe('duplicate click: not counted again');

      const converted = await http()
        .post(CONVERSION)
        .set('x-api-key', advertiser.apiKey)
        .send({ eventType: 'conversion', eventData: { telegramUserId: user } });
      expect(converted.status).toBe(200);
      expect(converted.body).toEqual({ status: 'success', msg: 'attributed to a click' });
      const after = await flushedCampaign(t, campaignId);
      expect({ clicks: after.clicks - before.clicks, cost: after.cost - before.cost, conversions: after.conversions - before.conversions }).toEqual({
        clicks: 1,
        cost: 0.5,
        conversions: 1,
      });
      const stored = await t.app.get(DataSource).getRepository(Conversion).findOneByOrFail({ messengerUserId: user });
      expect(stored.campaignId).toBe(campaignId);
    });

    it('should refuse a click whose telegramUserId conflicts (through Nest, naming the alias) and count nothing', async () => {
      const user = newUser();
      const [ad] = await fetchAds(user);
      const before = await flushedCampaign(t, campaignId);
      const response = await click({ adBlockId: block, messengerUserId: user, telegramUserId: `${user}-other`, adId: ad.adId, campaignId });
      expect(lastWay()).toBe(`${CLICK}:nest`);
      expectValidationError(response, 'eventData.telegramUserId');
      const missing = await click({ adBlockId: block, telegramUserId: '', adId: ad.adId, campaignId });
      expectValidationError(missing, 'eventData.telegramUserId');
      const after = await flushedCampaign(t, campaignId);
      expect([after.clicks, after.cost]).toEqual([before.clicks, before.cost]);
      // the impression is still unclicked: the real click afterwards counts
      expect((await click({ adBlockId: block, telegramUserId: user, adId: ad.adId, campaignId }).expect(200)).body.data.msg).toBe('click counted');
    });

    it('should refuse a conversion whose telegramUserId conflicts and store nothing', async () => {
      const conversions = () => t.app.get(DataSource).getRepository(Conversion).count();
      const before = await conversions();
      const response = await http()
        .post(CONVERSION)
        .set('x-api-key', advertiser.apiKey)
        .send({ eventType: 'conversion', eventData: { messengerUserId: 'a', telegramUserId: 'b' } });
      expectValidationError(response, 'eventData.telegramUserId');
      expect(await conversions()).toBe(before);
    });
  });

  describe('exchange (endpoints 8, 9)', () => {
    const createExchange = async (key: string, name: string) =>
      (
        await http()
          .post(`${EXCHANGE_BASE}/create`)
          .set('x-api-key', key)
          .send({ name, icon: 'https://cdn.example.com/i.png', text: name, destination: { actionType: 'open.miniapp', url: 'https://t.example/app' } })
          .expect(200)
      ).body.data.exchangeCampaignId as string;
    const ledger = async (id: string) => {
      await t.app.get(ExchangeStatsWriterService).flush();
      const data = (await http().get(`${EXCHANGE_BASE}/detail`).query({ exchangeCampaignId: id }).set('x-api-key', ADMIN_KEY).expect(200)).body.data;
      return { impressions: data.impressions, clicksSent: data.clicksSent, clicksReceived: data.clicksReceived };
    };

    it('should fetch entries with type=telegram and count a click reported with telegramUserId; a conflicting one is refused', async () => {
      const out = await createExchange(partnerA.apiKey, 'Alias out');
      const promoted = await createExchange(partnerB.apiKey, 'Alias in');
      const user = newUser();
      const fetched = await http()
        .get(EXCHANGE_FETCH)
        .query({ exchangeCampaignId: out, openId: user, type: 'telegram', limit: 9 })
        .set({ 'x-api-key': partnerA.apiKey, 'x-forwarded-for': IP.US })
        .expect(200);
      const entry = (fetched.body.data.exchangeCampaigns as Body[]).find((e) => e.inExchangeCampaignId === promoted);
      expect(entry).toEqual(expect.objectContaining({ inExchangeCampaignId: promoted, outExchangeCampaignId: out }));

      const report = (eventData: Body) => http().post(EXCHANGE_CLICK).set('x-api-key', partnerA.apiKey).send({ eventType: 'click', eventData });
      const conflicting = await report({ messengerUserId: user, telegramUserId: 'someone-else', inExchangeCampaignId: promoted, outExchangeCampaignId: out });
      expectValidationError(conflicting, 'eventData.telegramUserId');
      expect(await ledger(promoted)).toEqual({ impressions: 1, clicksSent: 0, clicksReceived: 0 });

      const counted = await report({ telegramUserId: user, inExchangeCampaignId: promoted, outExchangeCampaignId: out });
      expect({ status: counted.status, body: counted.body }).toEqual({ status: 200, body: { status: 'success' } });
      expect(await ledger(promoted)).toEqual({ impressions: 1, clicksSent: 0, clicksReceived: 1 });
      expect(await ledger(out)).toEqual({ impressions: 0, clicksSent: 1, clicksReceived: 0 });
    });

    it('should answer 400 naming type for another type on the exchange fetch', async () => {
      const out = await createExchange(partnerA.apiKey, 'Alias out 2');
      const response = await http().get(EXCHANGE_FETCH).query({ exchangeCampaignId: out, openId: 'u', type: 'tg', limit: 1 }).set('x-api-key', partnerA.apiKey);
      expectValidationError(response, 'type');
    });
  });

  it('should document every alias in Swagger, marked as an alias', async () => {
    const schemas = (await http().get('/docs-json').expect(200)).body.components.schemas;
    const aliasOf = (schema: string, alias: string, canonical: string) => {
      const property = schemas[schema].properties[alias];
      expect({ schema, alias, deprecated: property?.deprecated }).toEqual({ schema, alias, deprecated: true });
      expect(property.description).toContain(`Alias of \`${canonical}\` (TON AI Open API)`);
      expect(schemas[schema].required ?? []).not.toContain(alias);
    };
    for (const schema of ['ClickEventDataDto', 'ConversionEventDataDto', 'ExchangeClickEventDataDto', 'ProfileRecordDto'])
      aliasOf(schema, 'telegramUserId', 'messengerUserId');
    aliasOf('TargetingDto', 'telegramPremium', 'messengerPremium');
    aliasOf('TargetingDto', 'userLinkedTonWallet', 'userLinkedChainWallet');
    expect(schemas.ProfileRecordDto.properties.walletClassify.enum).toEqual(['primary', 'evm', 'alt', 'ton']);
    expect(schemas.ProfileRecordDto.properties.walletClassify.description).toContain('`ton` is an alias of `primary` (TON AI Open API)');

    const doc = (await http().get('/docs-json').expect(200)).body;
    for (const path of [FETCH, EXCHANGE_FETCH]) {
      const type = (doc.paths[path].get.parameters as Body[]).find((parameter) => parameter.name === 'type');
      expect(type?.schema.enum).toEqual(['messenger', 'telegram']);
      expect(type?.description).toContain('`telegram` is an alias of `messenger` (TON AI Open API)');
    }
  });
});
