/**
 * Reliability proof (issue 8): no existence leak across accounts (docs/CONTRACT.md §1). For every call that takes an id, another
 * account's key with the owner's id gets the same status and the same body as with an id that exists nowhere, and the
 * owner's campaign, block, batch, exchange campaign, stats and keys are exactly as before. Admin routes answer a
 * non-admin key 403 without data, whichever account id or key id it names.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Response, Test } from 'supertest';
import { DataSource } from 'typeorm';
import { ExchangeStatsWriterService } from '../../src/exchange/exchange-stats-writer.service';
import { TEST_PROFILE } from '../support/profile';
import { uploadAndApply } from '../support/profile-helpers';
import { flushStats, refreshIndex } from '../support/serving-helpers';
import { Body, clickAd, createServable, DAY, fetchAds, newUser, setStatus, UNKNOWN_ID } from '../support/serving-fixtures';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { sdkAdEventData, sdkExchangeEventData, sdkSigned } from '../support/ton-ai-sdk-sign';
import { createAdBlock, openCampaign, createAccounts } from '../support/factories';

type Account = { accountId: string; apiKey: string };

const OPENAPI = '/api/v2/openapi';
const ADMIN = '/api/v2/admin';
const CAMPAIGN = `${OPENAPI}/ad/campaign`;
const BLOCK = `${OPENAPI}/ad/block`;
const EXCHANGE = `${OPENAPI}/exchange/campaign`;

const counts = { checked: 0, leaks: 0 };

afterAll(() => {
  process.stdout.write(`\ncross-account [${TEST_PROFILE}]: ${counts.checked} id-taking calls checked, leaks: ${counts.leaks}\n`);
});

describe(`Another account's ids answer exactly like unknown ids, and change nothing [${TEST_PROFILE}]`, () => {
  let t: TestApp;
  // owners and intruders of each kind
  let advertiserA: Account;
  let advertiserB: Account;
  let publisherP: Account;
  let publisherQ: Account;
  let partnerX: Account;
  let partnerY: Account;
  // the owners' objects, each with counted activity
  let campaignA: string;
  let endedCampaignA: string;
  let blockP: string;
  let blockQ: string;
  let batchP: string;
  let exchangeX: string;
  let endedExchangeX: string;
  let exchangeY: string;
  let secondKeyA: { keyId: string; apiKey: string };
  /** saw campaignA on blockP and clicked it; advertiser A reported the conversion and a custom event */
  const clickedUser = newUser('clicked');
  /** saw exchangeY inside exchangeX and clicked it */
  const exchangeUser = newUser('exchange');
  const rangeFrom = Date.now() - 2 * DAY;
  const rangeTo = Date.now() + 2 * DAY;

  const http = () => t.http();
  const get = (path: string, key: string, query: Record<string, string | number> = {}) => http().get(path).query(query).set('x-api-key', key);
  const post = (path: string, key: string, body: object = {}) => http().post(path).set('x-api-key', key).send(body);
  const flushAll = async () => {
    await flushStats(t);
    await t.app.get(ExchangeStatsWriterService).flush();
  };

  beforeAll(async () => {
    t = await startTestApp();
    ({ advertiserA, advertiserB, publisherP, publisherQ, partnerX, partnerY } = await createAccounts(t, {
      advertiserA: ['advertiser', 'Advertiser A (owner)'],
      advertiserB: ['advertiser', 'Advertiser B (intruder)'],
      publisherP: ['publisher', 'Publisher P (owner)'],
      publisherQ: ['publisher', 'Publisher Q (intruder)'],
      partnerX: ['partner', 'Partner X (owner)'],
      partnerY: ['partner', 'Partner Y (intruder)'],
    }));

    campaignA = await createServable(t, advertiserA.apiKey, openCampaign({ name: 'A live', bidding: { billingType: 'CPC', costPer: 0.5 } }));
    endedCampaignA = await createServable(t, advertiserA.apiKey, openCampaign({ name: 'A ended' }));
    await setStatus(t, advertiserA.apiKey, endedCampaignA, 'end');
    // out of this process's serving index now, not after the next change notice: only campaign A is served below
    await refreshIndex(t);
    blockP = await createAdBlock(t, publisherP.apiKey, 'P home');
    blockQ = await createAdBlock(t, publisherQ.apiKey, 'Q home');
    const ad = (await fetchAds(t, publisherP.apiKey, blockP, clickedUser)).find((served) => served.campaignId === campaignA);
    if (!ad) throw new Error('campaign A was not served on block P');
    expect((await clickAd(t, publisherP.apiKey, ad, clickedUser).expect(200)).body.data.msg).toBe('click counted');
    await post(`${OPENAPI}/ad/event/report/conversion`, advertiserA.apiKey, { eventType: 'conversion', eventData: { messengerUserId: clickedUser } }).expect(
      200,
    );
    await post(`${OPENAPI}/ad/event/report/custom`, advertiserA.apiKey, { eventType: 'register', eventData: { messengerUserId: clickedUser } }).expect(200);
    batchP = (await uploadAndApply(t, publisherP.apiKey, [{ messengerUserId: clickedUser, isPremium: true }])).batchId;

    const exchangeBody = (name: string) => ({
      name,
      icon: 'https://cdn.example.com/icon.png',
      text: `${name} text`,
      destination: { actionType: 'open.miniapp', url: 'https://t.example/app' },
    });
    exchangeX = (await post(`${EXCHANGE}/create`, partnerX.apiKey, exchangeBody('X live')).expect(200)).body.data.exchangeCampaignId;
    endedExchangeX = (await post(`${EXCHANGE}/create`, partnerX.apiKey, exchangeBody('X ended')).expect(200)).body.data.exchangeCampaignId;
    await post(`${EXCHANGE}/status`, partnerX.apiKey, { exchangeCampaignId: endedExchangeX, status: 'end' }).expect(200);
    exchangeY = (await post(`${EXCHANGE}/create`, partnerY.apiKey, exchangeBody('Y live')).expect(200)).body.data.exchangeCampaignId;
    // traffic both ways, so that both ledgers have something to lose
    const swap = async (key: string, out: string, promoted: string, user: string) => {
      const entries = (await get(`${OPENAPI}/matching/exchange`, key, { exchangeCampaignId: out, openId: user, type: 'messenger', limit: 9 }).expect(200)).body
        .data.exchangeCampaigns as Body[];
      expect(entries.map((entry) => entry.inExchangeCampaignId)).toContain(promoted);
      await post(`${OPENAPI}/exchange/event/report`, key, {
        eventType: 'click',
        eventData: { messengerUserId: user, inExchangeCampaignId: promoted, outExchangeCampaignId: out },
      }).expect(200);
    };
    await swap(partnerX.apiKey, exchangeX, exchangeY, exchangeUser);
    await swap(partnerY.apiKey, exchangeY, exchangeX, newUser('exchange-back'));

    secondKeyA = (await post(`${ADMIN}/accounts/${advertiserA.accountId}/keys`, ADMIN_KEY, { label: 'A second' }).expect(200)).body.data;
    await flushAll();
  }, 60_000);
  afterAll(() => t.close());

  /** Everything the owners (and the admin) can see about the owners' objects. */
  const ownersView = async () => {
    await flushAll();
    const data = async (request: Test) => {
      const response = await request;
      expect(response.status).toBe(200);
      return response.body.data as Body;
    };
    const range = { from: rangeFrom, to: rangeTo, granularity: 'day' };
    return {
      campaign: await data(get(`${CAMPAIGN}/detail`, advertiserA.apiKey, { campaignId: campaignA })),
      endedCampaign: await data(get(`${CAMPAIGN}/detail`, advertiserA.apiKey, { campaignId: endedCampaignA })),
      campaignSeries: await data(get(`${CAMPAIGN}/stats`, advertiserA.apiKey, { campaignId: campaignA, ...range })),
      verification: await data(get(`${CAMPAIGN}/verification`, advertiserA.apiKey, { campaignId: campaignA })),
      campaigns: await data(get(`${CAMPAIGN}/list`, advertiserA.apiKey)),
      conversions: await data(get(`${OPENAPI}/ad/conversion/summary`, advertiserA.apiKey, { from: rangeFrom, to: rangeTo })),
      webhookSecret: (await data(get(`${OPENAPI}/account/me`, advertiserA.apiKey))).webhookSecret,
      block: await data(get(`${BLOCK}/detail`, publisherP.apiKey, { adBlockId: blockP })),
      blockSeries: await data(get(`${BLOCK}/stats`, publisherP.apiKey, { adBlockId: blockP, ...range })),
      blocks: await data(get(`${BLOCK}/list`, publisherP.apiKey)),
      batch: await data(get(`${OPENAPI}/user/profile/batch/status`, publisherP.apiKey, { batchId: batchP })),
      exchange: await data(get(`${EXCHANGE}/detail`, partnerX.apiKey, { exchangeCampaignId: exchangeX })),
      endedExchange: await data(get(`${EXCHANGE}/detail`, partnerX.apiKey, { exchangeCampaignId: endedExchangeX })),
      exchangeSeries: await data(get(`${EXCHANGE}/stats`, partnerX.apiKey, { exchangeCampaignId: exchangeX, ...range })),
      exchanges: await data(get(`${EXCHANGE}/list`, partnerX.apiKey)),
      keysOfA: await data(get(`${ADMIN}/accounts/${advertiserA.accountId}/keys`, ADMIN_KEY)),
      accounts: await data(get(`${ADMIN}/accounts`, ADMIN_KEY, { pageSize: 100 })),
    };
  };

  /** Every row of every table, as sorted JSON lines per table. */
  const tableRows = async () => {
    const dataSource = t.app.get(DataSource);
    const tables: Record<string, string[]> = {};
    for (const { tableName } of dataSource.entityMetadatas) {
      const rows: Body[] = await dataSource.query(`SELECT * FROM ${dataSource.driver.escape(tableName)}`);
      tables[tableName] = rows.map((row) => JSON.stringify(row, (_key, value) => (typeof value === 'bigint' ? String(value) : value))).sort();
    }
    return tables;
  };

  /**
   * The intruder's call with the owner's id and the same call with an id nobody has must get the same status and
   * body; the status is the one expected (404 for ids, 403 for a missing role, 400 for a click nobody was shown).
   */
  const expectSameAsUnknown = async (what: string, status: number, foreign: () => Test, unknown: () => Test) => {
    const withForeign: Response = await foreign();
    const withUnknown: Response = await unknown();
    counts.checked += 1;
    const alike = withForeign.status === status && withUnknown.status === status && isDeepStrictEqual(withForeign.body, withUnknown.body);
    if (!alike) counts.leaks += 1;
    expect({ what, status: withForeign.status, body: withForeign.body }).toEqual({ what, status, body: withUnknown.body });
    expect({ what, status: withUnknown.status }).toEqual({ what, status });
    if (status >= 400) expect(withForeign.body).toEqual({ code: status, message: expect.any(String), data: expect.any(Object) });
  };

  let before: Awaited<ReturnType<typeof ownersView>>;
  let rowsBefore: Record<string, string[]>;

  it('should show the owners their objects with counted activity (the ids below are real and busy)', async () => {
    before = await ownersView();
    expect(before.campaign).toEqual(expect.objectContaining({ campaignStatus: 'onGoing', clicks: 1, conversions: 1, cost: 0.5 }));
    expect(before.campaign.events).toEqual({ conversion: 1, onboard: 0, register: 1, play: 0, payment: 0, withdraw: 0 });
    expect(before.endedCampaign.campaignStatus).toBe('ended');
    expect(before.conversions).toEqual(expect.objectContaining({ attributed: 1, unattributed: 0 }));
    expect(before.block).toEqual(expect.objectContaining({ clicks: 1, earnings: 0.35 }));
    expect(before.batch.status).toBe('done');
    expect(before.exchange).toEqual(expect.objectContaining({ clicksSent: 1, clicksReceived: 1 }));
    expect(before.endedExchange.campaignStatus).toBe('ended');
    expect(before.keysOfA.keys).toHaveLength(2);
    rowsBefore = await tableRows();
  });

  it("should answer another advertiser's campaign ids like unknown ones (detail, status, update, stats, verification)", async () => {
    const key = advertiserB.apiKey;
    const range = { from: rangeFrom, to: rangeTo, granularity: 'hour' };
    for (const [label, id] of [
      ['live', campaignA],
      ['ended', endedCampaignA],
    ] as const) {
      const same = (what: string, status: number, call: (campaignId: string) => Test) =>
        expectSameAsUnknown(
          `${what} (${label} campaign)`,
          status,
          () => call(id),
          () => call(UNKNOWN_ID),
        );
      await same('campaign detail', 404, (campaignId) => get(`${CAMPAIGN}/detail`, key, { campaignId }));
      for (const status of ['paused', 'start', 'end']) {
        // an ended campaign would answer its owner 409 for start/paused: the intruder must not learn that either
        await same(`campaign status ${status}`, 404, (campaignId) => post(`${CAMPAIGN}/status`, key, { campaignId, status }));
      }
      await same('campaign update', 404, (campaignId) =>
        post(`${CAMPAIGN}/update`, key, {
          campaignId,
          name: 'Hijacked',
          budget: { amount: 1 },
          verificationUrl: 'https://evil.example/verify',
          optimizationEvent: 'payment',
        }),
      );
      await same('campaign stats', 404, (campaignId) => get(`${CAMPAIGN}/stats`, key, { campaignId, ...range }));
      await same('campaign stats with an inverted range', 404, (campaignId) => get(`${CAMPAIGN}/stats`, key, { campaignId, from: rangeTo, to: rangeFrom }));
      await same('verification health', 404, (campaignId) => get(`${CAMPAIGN}/verification`, key, { campaignId, limit: 50 }));
      await same('delivery diagnosis', 404, (campaignId) => get(`${OPENAPI}/ad/delivery/diagnose`, key, { campaignId, openId: clickedUser }));
      // a publisher naming the campaign (with its own block) learns no more than an advertiser would
      await same('delivery diagnosis by a publisher', 404, (campaignId) =>
        get(`${OPENAPI}/ad/delivery/diagnose`, publisherQ.apiKey, { campaignId, adBlockId: blockQ }),
      );
      // input is checked before ownership, so a bad field answers the same 400 whoever owns the id
      await same('campaign status with a bad action', 400, (campaignId) => post(`${CAMPAIGN}/status`, key, { campaignId, status: 'delete' }));
      await same('campaign update with a bad field', 400, (campaignId) => post(`${CAMPAIGN}/update`, key, { campaignId, budget: { amount: -1 } }));
    }
  });

  it("should answer another publisher's block and batch ids like unknown ones (detail, stats, ad fetch, click, batch status)", async () => {
    const key = publisherQ.apiKey;
    const same = (what: string, status: number, call: (id: string) => Test, foreignId: string, unknownId = UNKNOWN_ID) =>
      expectSameAsUnknown(
        what,
        status,
        () => call(foreignId),
        () => call(unknownId),
      );
    await same('block detail', 404, (adBlockId) => get(`${BLOCK}/detail`, key, { adBlockId }), blockP);
    await same('block stats', 404, (adBlockId) => get(`${BLOCK}/stats`, key, { adBlockId, from: rangeFrom, to: rangeTo }), blockP);
    await same(
      'ad fetch on the block',
      404,
      (adBlockId) => get(`${OPENAPI}/matching/ad`, key, { adBlockId, openId: clickedUser, type: 'messenger', limit: 9 }),
      blockP,
    );
    await same(
      'ad fetch on the block, test ads',
      404,
      (adBlockId) => get(`${OPENAPI}/matching/ad`, key, { adBlockId, openId: 'u', type: 'messenger', limit: 3 }).set('debug', 'true'),
      blockP,
    );
    const click = (adBlockId: string, campaignId: string) =>
      post(`${OPENAPI}/ad/event/report`, key, {
        eventType: 'click',
        eventData: { adBlockId, messengerUserId: clickedUser, adId: `ad_${campaignId}`, campaignId },
      });
    await same('click on the block', 404, (adBlockId) => click(adBlockId, campaignA), blockP);
    // the impression was P's: replayed on Q's own block it is no impression at all, as for a campaign nobody has
    await same("click replaying the other block's impression", 400, (campaignId) => click(blockQ, campaignId), campaignA);
    await same('batch status', 404, (batchId) => get(`${OPENAPI}/user/profile/batch/status`, key, { batchId }), batchP);
    await same('delivery diagnosis of the block', 404, (adBlockId) => get(`${OPENAPI}/ad/delivery/diagnose`, key, { adBlockId, openId: clickedUser }), blockP);
    // an advertiser naming its own campaign with a publisher's block: the block's users' profiles are the publisher's
    await same(
      'delivery diagnosis of the block by an advertiser',
      404,
      (adBlockId) => get(`${OPENAPI}/ad/delivery/diagnose`, advertiserA.apiKey, { campaignId: campaignA, adBlockId, openId: clickedUser }),
      blockP,
    );
  });

  it("should answer another partner's exchange campaign ids like unknown ones (detail, update, status, stats, fetch, click)", async () => {
    const key = partnerY.apiKey;
    for (const [label, id] of [
      ['live', exchangeX],
      ['ended', endedExchangeX],
    ] as const) {
      const same = (what: string, status: number, call: (exchangeCampaignId: string) => Test) =>
        expectSameAsUnknown(
          `${what} (${label} exchange campaign)`,
          status,
          () => call(id),
          () => call(UNKNOWN_ID),
        );
      await same('exchange detail', 404, (exchangeCampaignId) => get(`${EXCHANGE}/detail`, key, { exchangeCampaignId }));
      await same('exchange update', 404, (exchangeCampaignId) => post(`${EXCHANGE}/update`, key, { exchangeCampaignId, name: 'Hijacked', image: null }));
      for (const status of ['paused', 'start', 'end']) {
        await same(`exchange status ${status}`, 404, (exchangeCampaignId) => post(`${EXCHANGE}/status`, key, { exchangeCampaignId, status }));
      }
      await same('exchange stats', 404, (exchangeCampaignId) => get(`${EXCHANGE}/stats`, key, { exchangeCampaignId, from: rangeFrom, to: rangeTo }));
      // the owner of an ended campaign gets 409 here; the intruder must get the unknown-id 404
      await same('exchange fetch', 404, (exchangeCampaignId) =>
        get(`${OPENAPI}/matching/exchange`, key, { exchangeCampaignId, openId: exchangeUser, type: 'messenger', limit: 9 }),
      );
      await same('exchange click out of the campaign', 404, (outExchangeCampaignId) =>
        post(`${OPENAPI}/exchange/event/report`, key, {
          eventType: 'click',
          eventData: { messengerUserId: exchangeUser, inExchangeCampaignId: exchangeY, outExchangeCampaignId },
        }),
      );
      await same("exchange click promoting the campaign inside the intruder's own", 400, (inExchangeCampaignId) =>
        post(`${OPENAPI}/exchange/event/report`, key, {
          eventType: 'click',
          eventData: { messengerUserId: exchangeUser, inExchangeCampaignId, outExchangeCampaignId: exchangeY },
        }),
      );
    }
  });

  it("should answer the ton-ai-sdk routes with another account's block, campaign and exchange ids like unknown ones", async () => {
    const same = (what: string, status: number, call: (id: string) => Test, foreignId: string) =>
      expectSameAsUnknown(
        `ton-ai-sdk ${what}`,
        status,
        () => call(foreignId),
        () => call(UNKNOWN_ID),
      );
    const q = publisherQ.apiKey;
    await same('ad fetch', 404, (adBlockId) => post('/api/v2/matching/ad/campaign', q, { adBlockId, viewer: { openId: clickedUser } }), blockP);
    await same(
      'ads fetch',
      404,
      (adBlockId) => post('/api/v2/matching/ad/campaign/multi', q, { adBlockId, limit: 9, viewer: { openId: clickedUser } }),
      blockP,
    );
    for (const eventType of ['click', 'impression', 'complete']) {
      await same(
        `${eventType} on the block`,
        404,
        (adBlockId) =>
          post(
            '/api/v2/ad/report/event',
            q,
            sdkSigned(eventType, sdkAdEventData({ campaignId: campaignA, adId: `ad_${campaignA}`, adBlockId }, clickedUser), q),
          ),
        blockP,
      );
    }
    // a verify read answers for the caller's own blocks only: P's verified click is no click of Q's
    await same('verify read', 200, (campaignId) => get('/api/v2/ad/verify/conversion', q, { campaignId, openId: clickedUser }), campaignA);
    const y = partnerY.apiKey;
    for (const id of [exchangeX, endedExchangeX]) {
      await same(
        'exchange fetch',
        404,
        (exchangeCampaignId) => post('/api/v2/matching/exchange/campaign/new', y, { exchangeCampaignId, viewer: { telegramUserId: exchangeUser } }),
        id,
      );
      await same(
        'exchange entries fetch',
        404,
        (exchangeCampaignId) =>
          post('/api/v2/matching/exchange/campaign/multi/new', y, { exchangeCampaignId, limit: 9, viewer: { telegramUserId: exchangeUser } }),
        id,
      );
      for (const eventType of ['click', 'impression', 'complete']) {
        await same(
          `exchange ${eventType} out of the campaign`,
          404,
          (outExchangeCampaignId) =>
            post(
              '/api/v2/exchange/report/event/new',
              y,
              sdkSigned(eventType, sdkExchangeEventData({ outExchangeCampaignId, inExchangeCampaignId: exchangeY }, exchangeUser), y),
            ),
          id,
        );
      }
      await same(
        'exchange verify read',
        200,
        (exchangeCampaignId) => get('/api/v2/exchange/verify/conversion', y, { exchangeCampaignId, openId: exchangeUser }),
        id,
      );
    }
  });

  it('should answer a key without the role 403 whichever id it names, before looking the id up', async () => {
    const same = (what: string, call: (id: string) => Test, foreignId: string) =>
      expectSameAsUnknown(
        `${what} without the role`,
        403,
        () => call(foreignId),
        () => call(UNKNOWN_ID),
      );
    await same('campaign detail by a publisher', (campaignId) => get(`${CAMPAIGN}/detail`, publisherQ.apiKey, { campaignId }), campaignA);
    await same('campaign status by a partner', (campaignId) => post(`${CAMPAIGN}/status`, partnerY.apiKey, { campaignId, status: 'end' }), campaignA);
    await same('block detail by an advertiser', (adBlockId) => get(`${BLOCK}/detail`, advertiserB.apiKey, { adBlockId }), blockP);
    await same('batch status by a partner', (batchId) => get(`${OPENAPI}/user/profile/batch/status`, partnerY.apiKey, { batchId }), batchP);
    await same('exchange detail by a publisher', (exchangeCampaignId) => get(`${EXCHANGE}/detail`, publisherQ.apiKey, { exchangeCampaignId }), exchangeX);
    await same(
      'exchange status by an advertiser',
      (exchangeCampaignId) => post(`${EXCHANGE}/status`, advertiserB.apiKey, { exchangeCampaignId, status: 'end' }),
      exchangeX,
    );
  });

  it('should answer admin routes 403 without data for every non-admin key, whatever account or key they name', async () => {
    const FORBIDDEN = { code: 403, message: "this key's account lacks the admin role", data: {} };
    for (const intruder of [advertiserA, advertiserB, publisherP, partnerX]) {
      const key = intruder.apiKey;
      for (const [what, call] of [
        ['account detail', (id: string) => get(`${ADMIN}/accounts/${id}`, key)],
        ['account keys', (id: string) => get(`${ADMIN}/accounts/${id}/keys`, key)],
        ['issue a key', (id: string) => post(`${ADMIN}/accounts/${id}/keys`, key, { label: 'backdoor' })],
      ] as const) {
        await expectSameAsUnknown(
          `${what} of account A, asked by ${intruder.accountId}`,
          403,
          () => call(advertiserA.accountId),
          () => call(UNKNOWN_ID),
        );
      }
      await expectSameAsUnknown(
        `revoke a key of A, asked by ${intruder.accountId}`,
        403,
        () => post(`${ADMIN}/keys/${secondKeyA.keyId}/revoke`, key),
        () => post(`${ADMIN}/keys/${UNKNOWN_ID}/revoke`, key),
      );
      for (const request of [
        get(`${ADMIN}/accounts`, key),
        post(`${ADMIN}/accounts`, key, { name: 'Backdoor', roles: ['admin'] }),
        post(`${ADMIN}/profiles/rebuild-store`, key),
      ]) {
        const response = await request;
        counts.checked += 1;
        if (response.status !== 403 || !isDeepStrictEqual(response.body, FORBIDDEN)) counts.leaks += 1;
        expect({ status: response.status, body: response.body }).toEqual({ status: 403, body: FORBIDDEN });
      }
    }
    // the key named in the refused revocations still opens A's account
    expect((await get(`${OPENAPI}/account/me`, secondKeyA.apiKey).expect(200)).body.data.accountId).toBe(advertiserA.accountId);
  });

  it('should have changed nothing of the owners: their views and every stored row are as before', async () => {
    expect(await ownersView()).toEqual(before);
    expect(await tableRows()).toEqual(rowsBefore);
  });

  it("should not credit a conversion to another advertiser's click, and answer it like any unmatched conversion", async () => {
    const conversion = (messengerUserId: string) => () =>
      post(`${OPENAPI}/ad/event/report/conversion`, advertiserB.apiKey, { eventType: 'conversion', eventData: { messengerUserId } });
    // clickedUser clicked A's campaign; for B that user is as unknown as one nobody has seen
    await expectSameAsUnknown("conversion of a user who clicked another advertiser's ad", 200, conversion(clickedUser), conversion(newUser('never-seen')));
    expect((await get(`${OPENAPI}/ad/conversion/summary`, advertiserB.apiKey, { from: rangeFrom, to: rangeTo }).expect(200)).body.data).toEqual(
      expect.objectContaining({ attributed: 0, unattributed: 2 }),
    );
    expect(await ownersView()).toEqual(before);
  });

  it("should not credit an exchange conversion to another partner's received click, and answer it like any unmatched one", async () => {
    const conversion = (messengerUserId: string) => () =>
      post(`${OPENAPI}/exchange/event/report/conversion`, partnerX.apiKey, { eventType: 'conversion', eventData: { messengerUserId } });
    // exchangeUser was received by Y's campaign (clicked inside X's); for X that user's conversion is unmatched
    await expectSameAsUnknown(
      "exchange conversion of a user another partner's campaign received",
      200,
      conversion(exchangeUser),
      conversion(newUser('never-seen')),
    );
    await flushAll();
    const received = (await get(`${EXCHANGE}/detail`, ADMIN_KEY, { exchangeCampaignId: exchangeY }).expect(200)).body.data;
    expect({ clicksReceived: received.clicksReceived, conversions: received.conversions, cr: received.cr }).toEqual({
      clicksReceived: 1,
      conversions: 0,
      cr: 0,
    });
    expect(await ownersView()).toEqual(before);
  });

  it("should not credit a custom event to another advertiser's click, and answer it like any unmatched event", async () => {
    const event = (messengerUserId: string) => () =>
      post(`${OPENAPI}/ad/event/report/custom`, advertiserB.apiKey, { eventType: 'register', eventData: { messengerUserId } });
    await expectSameAsUnknown("custom event of a user who clicked another advertiser's ad", 200, event(clickedUser), event(newUser('never-seen')));
    const summaryB = (await get(`${OPENAPI}/ad/conversion/summary`, advertiserB.apiKey, { from: rangeFrom, to: rangeTo }).expect(200)).body.data;
    expect(summaryB.events.register).toEqual({ attributed: 0, unattributed: 2 });
    expect(await ownersView()).toEqual(before);
  });
});
