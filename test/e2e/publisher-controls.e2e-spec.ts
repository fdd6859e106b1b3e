import { DataSource } from 'typeorm';
import { TEST_PROFILE } from '../support/profile';
import { flushStats, refreshIndex } from '../support/serving-helpers';
import { BLOCK_BASE, blockDetail, Body, CAMPAIGN_BASE, createServable, expectValidationError, fetchIds, newUser } from '../support/serving-fixtures';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { openCampaign, createAccount } from '../support/factories';

type Account = { accountId: string; apiKey: string };

describe(`Publisher controls: floors, blocked categories and domains [${TEST_PROFILE}]`, () => {
  let t: TestApp;
  let publisher: Account;
  let advertiser: Account;
  const ids: Record<string, string> = {};

  const createBlock = (body: Body) => t.http().post(`${BLOCK_BASE}/create`).set('x-api-key', publisher.apiKey).send(body);
  const updateBlock = (body: Body) => t.http().post(`${BLOCK_BASE}/update`).set('x-api-key', publisher.apiKey).send(body);
  const newBlock = async (body: Body) => (await createBlock(body).expect(200)).body.data.adBlockId as string;
  const count = async (table: string) => Number((await t.app.get(DataSource).query(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);
  /** The campaign names one fetch of 9 ads on the block answers, sorted. */
  const servedOn = async (adBlockId: string) => {
    const served = await fetchIds(t, publisher.apiKey, adBlockId, newUser());
    const names = Object.fromEntries(Object.entries(ids).map(([name, id]) => [id, name]));
    return served.map((id) => names[id]).sort();
  };
  const campaign = (name: string, bidding: Body, url = 'https://landing.example/', category?: string) => ({
    ...openCampaign({ name, bidding, ad: { destination: { actionType: 'visit.website', url } } }),
    ...(category === undefined ? {} : { category }),
  });

  beforeAll(async () => {
    t = await startTestApp();
    publisher = await createAccount(t, ['publisher'], 'Controls publisher');
    advertiser = await createAccount(t, ['advertiser'], 'Controls advertiser');
    const specs: [string, Body][] = [
      ['cpmLow', campaign('cpmLow', { billingType: 'CPM', costPer: 1.999 })],
      ['cpmAtFloor', campaign('cpmAtFloor', { billingType: 'CPM', costPer: 2 })],
      ['cpcLow', campaign('cpcLow', { billingType: 'CPC', costPer: 0.049999 })],
      ['cpcAtFloor', campaign('cpcAtFloor', { billingType: 'CPC', costPer: 0.05 })],
      ['gambling', campaign('gambling', { billingType: 'CPM', costPer: 3 }, 'https://casino.example/', 'gambling')],
      ['domain', campaign('domain', { billingType: 'CPM', costPer: 3 }, 'https://blocked.example/landing')],
      ['subdomain', campaign('subdomain', { billingType: 'CPM', costPer: 3 }, 'https://Shop.Blocked.Example:8443/x')],
      ['lookalike', campaign('lookalike', { billingType: 'CPM', costPer: 3 }, 'https://notblocked.example/')],
    ];
    for (const [name, body] of specs) ids[name] = await createServable(t, advertiser.apiKey, body);
  });
  afterAll(() => t.close());

  const EVERY = ['cpcAtFloor', 'cpcLow', 'cpmAtFloor', 'cpmLow', 'domain', 'gambling', 'lookalike', 'subdomain'];

  it('should store the controls at create and answer them in detail and list, lower-case and each once', async () => {
    const plain = await newBlock({ name: 'Plain' });
    expect(await blockDetail(t, publisher.apiKey, plain)).toEqual(
      expect.objectContaining({ floorCpm: null, floorCpc: null, blockedCategories: [], blockedDomains: [] }),
    );
    const strict = await newBlock({
      name: 'Strict',
      floorCpm: 2,
      floorCpc: 0.05,
      blockedCategories: ['gambling', 'dating', 'gambling'],
      blockedDomains: ['Casino.Example', 'casino.example', 'bet.example'],
    });
    const controls = { floorCpm: 2, floorCpc: 0.05, blockedCategories: ['gambling', 'dating'], blockedDomains: ['casino.example', 'bet.example'] };
    expect(await blockDetail(t, publisher.apiKey, strict)).toEqual(expect.objectContaining(controls));
    const list = (await t.http().get(`${BLOCK_BASE}/list`).set('x-api-key', publisher.apiKey).expect(200)).body.data.adBlocks as Body[];
    expect(list.find((block) => block.adBlockId === strict)).toEqual(expect.objectContaining(controls));
  });

  it("should answer the campaign's category (default other) in detail and list", async () => {
    const detail = async (campaignId: string) =>
      (await t.http().get(`${CAMPAIGN_BASE}/detail`).query({ campaignId }).set('x-api-key', advertiser.apiKey).expect(200)).body.data;
    expect((await detail(ids.cpmLow)).category).toBe('other');
    expect((await detail(ids.gambling)).category).toBe('gambling');
    const list = (await t.http().get(`${CAMPAIGN_BASE}/list`).query({ pageSize: 20 }).set('x-api-key', advertiser.apiKey).expect(200)).body.data
      .campaigns as Body[];
    expect(Object.fromEntries(list.map((item) => [item.name, item.category]))).toEqual({
      cpmLow: 'other',
      cpmAtFloor: 'other',
      cpcLow: 'other',
      cpcAtFloor: 'other',
      gambling: 'gambling',
      domain: 'other',
      subdomain: 'other',
      lookalike: 'other',
    });
  });

  it('should not serve a bid below the floor of its billing type on that block, and serve it on a block without one', async () => {
    const plain = await newBlock({ name: 'No floor' });
    const cpmFloor = await newBlock({ name: 'CPM floor', floorCpm: 2 });
    const cpcFloor = await newBlock({ name: 'CPC floor', floorCpc: 0.05 });
    expect(await servedOn(plain)).toEqual(EVERY);
    expect(await servedOn(cpmFloor)).toEqual(EVERY.filter((name) => name !== 'cpmLow'));
    expect(await servedOn(cpcFloor)).toEqual(EVERY.filter((name) => name !== 'cpcLow'));
    // the impressions and earnings are those of the ads served on each block, exactly
    await flushStats(t);
    expect((await blockDetail(t, publisher.apiKey, cpmFloor)).impressions).toBe(7);
    expect((await blockDetail(t, publisher.apiKey, cpcFloor)).impressions).toBe(7);
    const cpmLow = (await t.http().get(`${CAMPAIGN_BASE}/detail`).query({ campaignId: ids.cpmLow }).set('x-api-key', ADMIN_KEY).expect(200)).body.data;
    // served on the plain block and the CPC-floor block only: 2 impressions at 1.999 / 1000
    expect([cpmLow.impressions, cpmLow.cost]).toEqual([2, 0.003998]);
  });

  it('should not serve a blocked category, nor a blocked domain or its subdomain; a look-alike domain is served', async () => {
    const category = await newBlock({ name: 'No gambling', blockedCategories: ['gambling'] });
    const domain = await newBlock({ name: 'No blocked.example', blockedDomains: ['Blocked.Example'] });
    expect(await servedOn(category)).toEqual(EVERY.filter((name) => name !== 'gambling'));
    expect(await servedOn(domain)).toEqual(EVERY.filter((name) => name !== 'domain' && name !== 'subdomain'));
  });

  it('should apply an update at once, and a null floor or an empty list lifts the control', async () => {
    const adBlockId = await newBlock({ name: 'Changing' });
    expect(await servedOn(adBlockId)).toEqual(EVERY);
    const changed = await updateBlock({ adBlockId, floorCpm: 2.5, blockedCategories: ['gambling'], blockedDomains: ['notblocked.example'] }).expect(200);
    expect(changed.body.data).toEqual(
      expect.objectContaining({ floorCpm: 2.5, floorCpc: null, blockedCategories: ['gambling'], blockedDomains: ['notblocked.example'] }),
    );
    expect(await servedOn(adBlockId)).toEqual(['cpcAtFloor', 'cpcLow', 'domain', 'subdomain']);
    const lifted = await updateBlock({ adBlockId, floorCpm: null, blockedCategories: [], blockedDomains: [] }).expect(200);
    expect(lifted.body.data).toEqual(expect.objectContaining({ floorCpm: null, floorCpc: null, blockedCategories: [], blockedDomains: [] }));
    expect(await servedOn(adBlockId)).toEqual(EVERY);
  });

  it('should change a campaign category by update and serve by the new one', async () => {
    const adBlockId = await newBlock({ name: 'No dating', blockedCategories: ['dating'] });
    const campaignId = ids.lookalike;
    const update = (category: string) =>
      t.http().post(`${CAMPAIGN_BASE}/update`).set('x-api-key', advertiser.apiKey).send({ campaignId, category }).expect(200);
    expect((await update('dating')).body.data.category).toBe('dating');
    await refreshIndex(t);
    expect(await servedOn(adBlockId)).not.toContain('lookalike');
    expect((await update('other')).body.data.category).toBe('other');
    await refreshIndex(t);
    expect(await servedOn(adBlockId)).toContain('lookalike');
  });

  describe('the delivery diagnosis', () => {
    const diagnose = async (apiKey: string, query: Body) => {
      const response = await t.http().get('/api/v2/openapi/ad/delivery/diagnose').query(query).set('x-api-key', apiKey).expect(200);
      return response.body.data as Body;
    };
    const checksOf = (diagnosis: Body, names = ['floor', 'category', 'domain']) => (diagnosis.checks as Body[]).filter((entry) => names.includes(entry.check));

    it("should tell a campaign's owner it is below a block's floor, in a blocked category or on a blocked domain of it", async () => {
      // an account that both advertises and publishes may name its own campaign on its own block
      const both = await createAccount(t, ['advertiser', 'publisher'], 'Both roles');
      const adBlockId = (
        await t
          .http()
          .post(`${BLOCK_BASE}/create`)
          .set('x-api-key', both.apiKey)
          .send({ name: 'Own block', floorCpm: 2, blockedCategories: ['gambling'], blockedDomains: ['blocked.example'] })
          .expect(200)
      ).body.data.adBlockId;
      const low = await createServable(t, both.apiKey, campaign('own low', { billingType: 'CPM', costPer: 1.5 }));
      const bet = await createServable(t, both.apiKey, campaign('own bet', { billingType: 'CPM', costPer: 3 }, 'https://casino.example/', 'gambling'));
      const sub = await createServable(t, both.apiKey, campaign('own sub', { billingType: 'CPM', costPer: 3 }, 'https://a.blocked.example/'));
      const fine = await createServable(t, both.apiKey, campaign('own fine', { billingType: 'CPC', costPer: 0.01 }, 'https://notblocked.example/'));

      const lowDiagnosis = await diagnose(both.apiKey, { campaignId: low, adBlockId });
      expect(lowDiagnosis.servable).toBe(false);
      expect(checksOf(lowDiagnosis)).toEqual([
        {
          check: 'floor',
          passed: false,
          detail: "1.5 USDT per 1000 impressions (CPM) is below this block's floor of 2 USDT: bid at least that to serve here",
        },
        { check: 'category', passed: true, detail: 'other is not blocked on this block' },
        { check: 'domain', passed: true, detail: 'the landing host landing.example is not blocked on this block' },
      ]);
      expect((await diagnose(both.apiKey, { campaignId: bet, adBlockId })).checks).toContainEqual({
        check: 'category',
        passed: false,
        detail: 'blocked category: gambling is not served on this block',
      });
      expect((await diagnose(both.apiKey, { campaignId: sub, adBlockId })).checks).toContainEqual({
        check: 'domain',
        passed: false,
        detail: 'blocked domain: the landing host a.blocked.example is under blocked.example, blocked on this block',
      });
      const fineDiagnosis = await diagnose(both.apiKey, { campaignId: fine, adBlockId, limit: 9 });
      expect(checksOf(fineDiagnosis)).toEqual([
        { check: 'floor', passed: true, detail: 'this block has no CPC floor' },
        { check: 'category', passed: true, detail: 'other is not blocked on this block' },
        { check: 'domain', passed: true, detail: 'the landing host notblocked.example is not blocked on this block' },
      ]);
      expect(fineDiagnosis.servable).toBe(true);
      for (const id of [low, bet, sub, fine])
        await t.http().post(`${CAMPAIGN_BASE}/status`).set('x-api-key', both.apiKey).send({ campaignId: id, status: 'end' });
    });

    it('should tell an advertiser on how many blocks each control keeps its campaign off, never which', async () => {
      const { blocks } = (await t.app.get(DataSource).query('SELECT COUNT(*) AS blocks FROM ad_blocks'))[0];
      const total = Number(blocks);
      // the blocks of this file whose CPM floor is 2 and above refuse cpmLow (1.999), those blocking gambling the gambling one
      const rows: Body[] = await t.app
        .get(DataSource)
        .query('SELECT "floorCpmMicros", "blockedCategories" FROM ad_blocks'.replace(/"/g, TEST_PROFILE === 'mysql' ? '`' : '"'));
      const aboveLow = rows.filter((row) => Number(row.floorCpmMicros) > 1_999_000).length;
      const maxFloor = Math.max(...rows.map((row) => Number(row.floorCpmMicros))) / 1e6;
      const gamblingBlocked = rows.filter((row) => String(row.blockedCategories ?? '').includes('gambling')).length;
      expect(aboveLow).toBeGreaterThan(0);
      const low = await diagnose(advertiser.apiKey, { campaignId: ids.cpmLow });
      expect(checksOf(low)).toEqual([
        {
          check: 'floor',
          passed: true,
          detail: `1.999 USDT per 1000 impressions (CPM) is below the floor of ${aboveLow} of ${total} ad blocks; ${maxFloor} USDT clears them all`,
        },
        { check: 'category', passed: true, detail: 'other is blocked on no ad block' },
        { check: 'domain', passed: true, detail: 'the landing host landing.example is blocked on no ad block' },
      ]);
      const bet = await diagnose(advertiser.apiKey, { campaignId: ids.gambling });
      expect(checksOf(bet, ['category'])).toEqual([
        { check: 'category', passed: true, detail: `gambling is a blocked category on ${gamblingBlocked} of ${total} ad blocks` },
      ]);
      expect(JSON.stringify([low, bet])).not.toContain(publisher.accountId);
    });

    it("should show a publisher its own block's controls", async () => {
      const adBlockId = await newBlock({ name: 'Diagnosed', floorCpc: 0.05, blockedCategories: ['gambling', 'dating'], blockedDomains: ['blocked.example'] });
      const diagnosis = await diagnose(publisher.apiKey, { adBlockId, limit: 9 });
      expect(checksOf(diagnosis)).toEqual([
        { check: 'floor', passed: true, detail: 'floors: CPM none per 1000 impressions, CPC 0.05 USDT per click; lower bids are not served here' },
        { check: 'category', passed: true, detail: 'blocked categories: dating, gambling' },
        { check: 'domain', passed: true, detail: 'blocked domains (and their subdomains): blocked.example' },
      ]);
      // the ads it would answer leave out what its controls refuse, as matching/ad does
      const names = Object.fromEntries(Object.entries(ids).map(([name, id]) => [id, name]));
      expect((diagnosis.ads as Body[]).map((ad) => names[ad.campaignId]).sort()).toEqual(await servedOn(adBlockId));
      expect((diagnosis.ads as Body[]).map((ad) => names[ad.campaignId]).sort()).toEqual(['cpcAtFloor', 'cpmAtFloor', 'cpmLow', 'lookalike']);
    });
  });

  const BAD_CONTROLS: [Body, string][] = [
    [{ floorCpm: 0 }, 'floorCpm'],
    [{ floorCpm: -1 }, 'floorCpm'],
    [{ floorCpm: '2' }, 'floorCpm'],
    [{ floorCpm: 1.1234567 }, 'floorCpm'],
    [{ floorCpc: 'cheap' }, 'floorCpc'],
    [{ floorCpc: 2e9 }, 'floorCpc'],
    [{ blockedCategories: 'gambling' }, 'blockedCategories'],
    [{ blockedCategories: ['poker'] }, 'blockedCategories'],
    [{ blockedCategories: [5] }, 'blockedCategories'],
    [{ blockedCategories: null }, 'blockedCategories'],
    [{ blockedDomains: 'example.com' }, 'blockedDomains'],
    [{ blockedDomains: ['https://example.com'] }, 'blockedDomains'],
    [{ blockedDomains: ['example.com/path'] }, 'blockedDomains'],
    [{ blockedDomains: ['localhost'] }, 'blockedDomains'],
    [{ blockedDomains: ['a..example.com'] }, 'blockedDomains'],
    [{ blockedDomains: ['under_score.com'] }, 'blockedDomains'],
    [{ blockedDomains: [5] }, 'blockedDomains'],
    [{ blockedDomains: Array.from({ length: 201 }, (_, i) => `d${i}.example`) }, 'blockedDomains'],
  ];

  /** [what the title shows, the fields, the field named]: a long list is shown cut short. */
  const labelled = (cases: [Body, string][]) => cases.map(([fields, field]) => [JSON.stringify(fields).slice(0, 60), fields, field] as const);

  it.each(labelled(BAD_CONTROLS))('should refuse the block create with %s as a 400 naming its field, storing nothing', async (_label, fields, field) => {
    const before = await count('ad_blocks');
    expectValidationError(await createBlock({ name: 'Bad', ...fields }), field);
    expect(await count('ad_blocks')).toBe(before);
  });

  it.each(labelled(BAD_CONTROLS.filter(([fields]) => !('blockedCategories' in fields && fields.blockedCategories === null))))(
    'should refuse the block update with %s as a 400 naming its field, changing nothing',
    async (_label, fields, field) => {
      const adBlockId = await newBlock({ name: 'Stable', floorCpm: 1, blockedCategories: ['dating'], blockedDomains: ['x.example'] });
      const before = await blockDetail(t, publisher.apiKey, adBlockId);
      expectValidationError(await updateBlock({ adBlockId, ...fields }), field);
      expect(await blockDetail(t, publisher.apiKey, adBlockId)).toEqual(before);
    },
  );

  it.each([['poker'], [5], ['']])('should refuse the campaign category %p at create and update with a 400 naming category', async (category) => {
    const before = await count('campaigns');
    const created = await t
      .http()
      .post(`${CAMPAIGN_BASE}/create`)
      .set('x-api-key', advertiser.apiKey)
      .send({ ...openCampaign(), category });
    expectValidationError(created, 'category');
    expect(await count('campaigns')).toBe(before);
    const detail = async () =>
      (await t.http().get(`${CAMPAIGN_BASE}/detail`).query({ campaignId: ids.cpmLow }).set('x-api-key', advertiser.apiKey).expect(200)).body.data;
    // impressions of the earlier tests still buffered would otherwise land between the two reads
    await flushStats(t);
    const unchanged = await detail();
    const updated = await t.http().post(`${CAMPAIGN_BASE}/update`).set('x-api-key', advertiser.apiKey).send({ campaignId: ids.cpmLow, category });
    expectValidationError(updated, 'category');
    expect(await detail()).toEqual(unchanged);
  });
});
