import { ExchangeIndexService } from '../../src/exchange/exchange-index.service';
import { builtSdk, listen } from '../support/sdk';
import type { CampaignCreate } from '../../sdk/src/types';
import { DAY, newUser } from '../support/serving-fixtures';
import { flushStats, refreshIndex } from '../support/serving-helpers';
import { BROWSER_USER_AGENT, startTestApp, TestApp } from '../support/test-app';
import { createAccount } from '../support/factories';

/**
 * The built SDK (sdk/dist, CommonJS) against the real service over HTTP, as an integrator's Node server and a
 * frontend would use it: every method of AdnetServerClient and AdnetPublisher, and the figures they lead to,
 * checked exactly. `sendEvent` (custom events) is covered by the SDK's unit specs until the service has the route.
 */
/** A campaign every user matches, live from yesterday for 30 days, typed by the SDK's generated types. */
function campaign(
  name: string,
  bidding: CampaignCreate['bidding'] = { billingType: 'CPM', costPer: 2.5 },
  budget: Partial<CampaignCreate['budget']> = {},
): CampaignCreate {
  const now = Date.now();
  return {
    name,
    targeting: { platform: 'All' },
    budget: { amount: 50, total: 1000, strategy: 'daily', startTime: now - DAY, endTime: now + 30 * DAY, ...budget },
    bidding,
    ad: {
      adFormat: 'image',
      popupImage: 'https://cdn.example.com/ad.png',
      icon: 'https://cdn.example.com/icon.png',
      destination: { actionType: 'visit.website', url: 'https://example.com/landing' },
      text: 'Play the best puzzle game',
      brandName: 'Acme Games',
      buttonText: 'Play now',
    },
  };
}

describe('SDK (built) against the service: server and publisher flows', () => {
  const sdk = builtSdk();
  let t: TestApp;
  let baseUrl: string;
  let advertiser: InstanceType<typeof sdk.AdnetServerClient>;
  let publisherServer: InstanceType<typeof sdk.AdnetServerClient>;
  let frontend: InstanceType<typeof sdk.AdnetPublisher>;
  let adBlockId: string;
  /** Node's fetch says `node`, an HTTP library: the service would count it as invalid traffic. A browser is simulated. */
  const asBrowser = { 'user-agent': BROWSER_USER_AGENT };

  beforeAll(async () => {
    t = await startTestApp();
    baseUrl = await listen(t);
    const advertiserAccount = await createAccount(t, ['advertiser'], 'SDK advertiser');
    const publisherAccount = await createAccount(t, ['publisher'], 'SDK publisher');
    advertiser = new sdk.AdnetServerClient({ baseUrl, apiKey: advertiserAccount.apiKey });
    publisherServer = new sdk.AdnetServerClient({ baseUrl, apiKey: publisherAccount.apiKey });
  });
  afterAll(() => t.close());

  it('creates, changes, lists and reads campaigns', async () => {
    const me = await advertiser.me();
    expect(me).toMatchObject({ name: 'SDK advertiser', roles: ['advertiser'] });

    const ids: string[] = [];
    for (const name of ['First', 'Second', 'Third']) ids.push((await advertiser.campaigns.create(campaign(name))).campaignId);
    const renamed = await advertiser.campaigns.update(ids[0], { name: 'First, renamed', bidding: { costPer: 3 } });
    expect(renamed).toMatchObject({ campaignId: ids[0], name: 'First, renamed', bidding: { billingType: 'CPM', costPer: 3 } });
    await expect(advertiser.campaigns.setStatus(ids[1], 'paused')).resolves.toEqual({ result: 'success' });
    await expect(advertiser.campaigns.detail(ids[1])).resolves.toMatchObject({ campaignStatus: 'paused', deliveryStatus: 'paused' });

    const page = await advertiser.campaigns.page({ current: 1, pageSize: 2 });
    expect(page).toMatchObject({ total: 3, current: 1, pageSize: 2 });
    expect(page.campaigns.map((campaign) => campaign.id)).toEqual([ids[2], ids[1]]);
    const listed: string[] = [];
    for await (const campaign of advertiser.campaigns.list({ pageSize: 2 })) listed.push(campaign.id);
    expect(listed).toEqual([...ids].reverse());

    // Only the campaign of the next test serves.
    for (const id of ids) await advertiser.campaigns.setStatus(id, 'end');
    await expect(advertiser.campaigns.detail(ids[0])).resolves.toMatchObject({ campaignStatus: 'ended' });
  });

  it('maps the service refusals to AdnetError with the field named', async () => {
    const invalid = campaign('Invalid', undefined, { amount: -1 });
    const error = await advertiser.campaigns.create(invalid).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(sdk.AdnetError);
    expect(error).toMatchObject({ status: 400, code: 400 });
    expect((error as InstanceType<typeof sdk.AdnetError>).fieldError('budget.amount')).toEqual(expect.stringContaining('budget.amount'));
    expect((error as InstanceType<typeof sdk.AdnetError>).requestId).toEqual(expect.any(String));

    const unknown = await advertiser.campaigns.detail('01hzzzzzzzzzzzzzzzzzzzzzzz').catch((caught: unknown) => caught);
    expect(unknown).toMatchObject({ status: 404, code: 404, message: 'campaignId: campaign not found' });
    // A publisher's key has no campaigns: 403, not retried.
    await expect(publisherServer.campaigns.page()).rejects.toMatchObject({ status: 403 });
  });

  it('manages ad blocks and a publishable key for the frontend', async () => {
    adBlockId = (await publisherServer.adBlocks.create({ name: 'Home banner' })).adBlockId;
    await expect(publisherServer.adBlocks.update(adBlockId, { name: 'Home' })).resolves.toMatchObject({ adBlockId, name: 'Home', requireSignedViewer: false });
    const second = (await publisherServer.adBlocks.create({ name: 'Level end' })).adBlockId;
    const listed: string[] = [];
    for await (const block of publisherServer.adBlocks.list({ pageSize: 1 })) listed.push(block.adBlockId);
    expect(listed).toEqual([second, adBlockId]);
    await expect(publisherServer.adBlocks.page({ pageSize: 1 })).resolves.toMatchObject({ total: 2, adBlocks: [{ adBlockId: second }] });

    const issued = await publisherServer.issueKey({ scope: 'serve', label: 'frontend' });
    expect(issued).toMatchObject({ scope: 'serve', apiKey: expect.stringMatching(/^adn_/) });
    const spare = await publisherServer.issueKey({ scope: 'serve', label: 'spare' });
    await expect(publisherServer.revokeKey(spare.keyId)).resolves.toEqual({ result: 'success' });
    const keys = await publisherServer.listKeys();
    expect(keys.find((key) => key.keyId === issued.keyId)).toMatchObject({ scope: 'serve', label: 'frontend' });
    expect(keys.find((key) => key.keyId === spare.keyId)).toMatchObject({ revokedAt: expect.any(Number) });
    frontend = new sdk.AdnetPublisher({ baseUrl, apiKey: issued.apiKey, headers: asBrowser });
  });

  it('serves, counts one click for concurrent and repeated reports, converts, and shows the figures exactly', async () => {
    const { campaignId } = await advertiser.campaigns.create(campaign('Clicked', { billingType: 'CPC', costPer: 0.5 }));
    await refreshIndex(t);
    const clicker = newUser('sdk-clicker');
    const viewer = newUser('sdk-viewer');

    const ads = await frontend.getAds({ adBlockId, openId: clicker, limit: 3 });
    expect(ads).toEqual([expect.objectContaining({ adBlockId, campaignId, adId: `ad_${campaignId}` })]);
    await expect(frontend.getAd({ adBlockId, openId: viewer })).resolves.toMatchObject({ campaignId });

    const reports = await Promise.all([frontend.reportClick(ads[0], clicker), frontend.reportClick(ads[0], clicker)]);
    expect(reports).toEqual([
      { status: 'success', msg: 'click counted' },
      { status: 'success', msg: 'click counted' },
    ]);
    await expect(frontend.reportClick(ads[0], clicker)).resolves.toEqual({ status: 'success', msg: 'click counted' });
    // A click by a user who was not served is refused by the service: a 4xx, named.
    await expect(frontend.reportClick(ads[0], newUser('never-served'))).rejects.toMatchObject({ status: 400 });

    await expect(advertiser.sendConversion(clicker)).resolves.toEqual({ status: 'success', msg: 'attributed to a click' });
    // Custom events (once per click and type): the repeat is answered alike and not counted again.
    await expect(advertiser.sendEvent('register', clicker)).resolves.toEqual({ status: 'success', msg: 'attributed to a click' });
    await expect(advertiser.sendEvent('register', clicker)).resolves.toEqual({
      status: 'success',
      msg: 'stored, not attributed: no click to credit within the attribution window',
    });
    await expect(advertiser.sendEvent('payment', clicker)).resolves.toEqual({ status: 'success', msg: 'attributed to a click' });
    await flushStats(t);

    const detail = await advertiser.campaigns.detail(campaignId);
    expect(detail).toMatchObject({ impressions: 2, clicks: 1, unbilledClicks: 0, invalidClicks: 0, invalidImpressions: 0, conversions: 1 });
    expect(detail).toMatchObject({ cost: 0.5, ctr: 0.5, cr: 1 });
    expect(detail.events).toEqual({ conversion: 1, onboard: 0, register: 1, play: 0, payment: 1, withdraw: 0 });
    const optimizingPayment = await advertiser.campaigns.update(campaignId, { optimizationEvent: 'payment' });
    expect(optimizingPayment).toMatchObject({ optimizationEvent: 'payment', conversions: 1, cr: 1 });
    await advertiser.campaigns.update(campaignId, { optimizationEvent: 'conversion' });
    const block = await publisherServer.adBlocks.detail(adBlockId);
    expect(block).toMatchObject({ impressions: 2, clicks: 1, invalidClicks: 0, earnings: 0.35, ctr: 0.5 });

    const from = Date.now() - 2 * 24 * 60 * 60 * 1000;
    const to = Date.now() + 60 * 60 * 1000;
    const series = (await advertiser.campaigns.stats({ campaignId, from, to, granularity: 'day' })).series;
    const sum = (points: object[], field: string) => points.reduce((total: number, point) => total + (point as Record<string, number>)[field], 0);
    expect(series.length).toBeGreaterThanOrEqual(3);
    expect({
      impressions: sum(series, 'impressions'),
      clicks: sum(series, 'clicks'),
      conversions: sum(series, 'conversions'),
      cost: sum(series, 'cost'),
    }).toEqual({
      impressions: 2,
      clicks: 1,
      conversions: 1,
      cost: 0.5,
    });
    const blockSeries = (await publisherServer.adBlocks.stats({ adBlockId, from, to, granularity: 'hour' })).series;
    expect({ impressions: sum(blockSeries, 'impressions'), clicks: sum(blockSeries, 'clicks'), earnings: sum(blockSeries, 'earnings') }).toEqual({
      impressions: 2,
      clicks: 1,
      earnings: 0.35,
    });
  });

  it('fetches with a signed-viewer token made by createViewerToken, and is refused without one', async () => {
    const { adBlockId: signedBlock } = await publisherServer.adBlocks.create({ name: 'Signed', requireSignedViewer: true });
    const { webhookSecret } = await publisherServer.me();
    const user = newUser('signed');
    const refused = await frontend.getAds({ adBlockId: signedBlock, openId: user }).catch((caught: unknown) => caught);
    expect(refused).toMatchObject({ status: 401, fieldErrors: [{ field: 'x-adnet-viewer', message: expect.any(String) }] });

    const signed = new sdk.AdnetPublisher({
      baseUrl,
      apiKey: (await publisherServer.issueKey({ scope: 'serve' })).apiKey,
      headers: asBrowser,
      viewerToken: (openId) => sdk.createViewerToken(openId, webhookSecret!),
    });
    const ads = await signed.getAds({ adBlockId: signedBlock, openId: user, debug: true });
    expect(ads.length).toBe(1);
    expect(ads[0].adId).toMatch(/^test_/);
  });

  it('uploads 5001 profiles as two batches and imports a CSV file, waiting until each batch is done', async () => {
    const records = Array.from({ length: 5001 }, (_, index) => ({ messengerUserId: `sdk-profile-${index}`, isPremium: index % 2 === 0 }));
    const progress: number[] = [];
    const uploaded = await publisherServer.updateUserProfiles(records, { pollIntervalMs: 50, onProgress: (step) => progress.push(step.recordsProcessed) });
    expect(uploaded.recordsTotal).toBe(5001);
    expect(uploaded.batches.map((batch) => [batch.status, batch.total, batch.processed])).toEqual([
      ['done', 5000, 5000],
      ['done', 1, 1],
    ]);
    expect(progress[0]).toBe(0);
    expect(progress[progress.length - 1]).toBe(5001);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    await expect(publisherServer.profileBatchStatus(uploaded.batches[1].batchId)).resolves.toMatchObject({ status: 'done', total: 1, processed: 1 });

    const csv = 'messengerUserId,walletAddress,walletClassify,language\ncsv-1,EQD4FPq-PRDieyQKkizFTRtSDyucUIqrj0v_zXJmqaDp6_0t,primary,en\ncsv-2,,,de\n';
    const imported = await publisherServer.importProfilesCsv(csv, { pollIntervalMs: 50 });
    expect(imported.recordsTotal).toBe(2);
    expect(imported.batches.map((batch) => [batch.status, batch.total, batch.processed])).toEqual([['done', 2, 2]]);

    const badCsv = await publisherServer.importProfilesCsv('messengerUserId,walletAddress,walletClassify\nu1,EQabc,bogus\n').catch((caught: unknown) => caught);
    expect(badCsv).toMatchObject({ status: 400, fieldErrors: [expect.objectContaining({ field: 'line.2.walletClassify' })] });
  });

  it('fetches exchange entries and counts one exchange click', async () => {
    const partners = await Promise.all([createAccount(t, ['partner'], 'partner one'), createAccount(t, ['partner'], 'partner two')]);
    const createExchange = async (apiKey: string, name: string): Promise<string> => {
      const response = await t
        .http()
        .post('/api/v2/openapi/exchange/campaign/create')
        .set('x-api-key', apiKey)
        .send({ name, icon: 'https://cdn.example.com/i.png', text: name, destination: { actionType: 'open.miniapp', url: 'https://t.example/app' } })
        .expect(200);
      return response.body.data.exchangeCampaignId;
    };
    const mine = await createExchange(partners[0].apiKey, 'Mine');
    const theirs = await createExchange(partners[1].apiKey, 'Theirs');
    await t.app.get(ExchangeIndexService).refresh();

    const partnerFrontend = new sdk.AdnetPublisher({ baseUrl, apiKey: partners[0].apiKey, headers: asBrowser });
    const user = newUser('exchange');
    const entries = await partnerFrontend.getExchangeAds({ exchangeCampaignId: mine, openId: user, limit: 9 });
    expect(entries).toEqual([expect.objectContaining({ inExchangeCampaignId: theirs, outExchangeCampaignId: mine })]);
    const results = await Promise.all([partnerFrontend.reportExchangeClick(entries[0], user), partnerFrontend.reportExchangeClick(entries[0], user)]);
    expect(results).toEqual([{ status: 'success' }, { status: 'success' }]);

    const detail = async (apiKey: string, exchangeCampaignId: string) =>
      (await t.http().get('/api/v2/openapi/exchange/campaign/detail').query({ exchangeCampaignId }).set('x-api-key', apiKey).expect(200)).body.data;
    await expect(detail(partners[0].apiKey, mine)).resolves.toMatchObject({ clicksSent: 1, clicksReceived: 0 });
    await expect(detail(partners[1].apiKey, theirs)).resolves.toMatchObject({ clicksSent: 0, clicksReceived: 1 });
  });
});
