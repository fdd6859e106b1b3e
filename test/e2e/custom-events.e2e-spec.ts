import { DataSource } from 'typeorm';
import { ManualClock } from '../../src/common/clock';
import { Conversion } from '../../src/conversions/entities/conversion.entity';
import { TEST_PROFILE } from '../support/profile';
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
  HOUR,
  MINUTE,
  newUser,
  setStatus,
} from '../support/serving-fixtures';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createAdBlock, openCampaign, createAccounts } from '../support/factories';

const CUSTOM = '/api/v2/openapi/ad/event/report/custom';
const CONVERSION = '/api/v2/openapi/ad/event/report/conversion';
const SUMMARY = '/api/v2/openapi/ad/conversion/summary';
const NO_EVENTS = { conversion: 0, onboard: 0, register: 0, play: 0, payment: 0, withdraw: 0 };
/** The estimate's prior while fewer than 5 advertisers share the network mean (docs/CONTRACT.md §13). */
const DEFAULT_PRIOR = 0.02;
type Account = { accountId: string; apiKey: string };
type EventType = 'conversion' | 'onboard' | 'register' | 'play' | 'payment' | 'withdraw';

describe(`Custom events and the optimization event (docs/CONTRACT.md §13) [${TEST_PROFILE}]`, () => {
  let t: TestApp;
  const clock = new ManualClock();
  let publisher: Account;
  let advertiser: Account;
  let otherAdvertiser: Account;
  let partner: Account;
  let block: string;
  let stored: () => Promise<Conversion[]>;

  beforeAll(async () => {
    t = await startTestApp({}, { clock });
    ({ publisher, advertiser, otherAdvertiser, partner } = await createAccounts(t, {
      publisher: ['publisher', 'Publisher'],
      advertiser: ['advertiser', 'Advertiser X'],
      otherAdvertiser: ['advertiser', 'Advertiser Y'],
      partner: ['partner', 'Partner'],
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
  const report = (eventType: unknown, messengerUserId: unknown, key = advertiser.apiKey) =>
    http().post(CUSTOM).set('x-api-key', key).send({ eventType, eventData: { messengerUserId } });
  const convert = (messengerUserId: string, key = advertiser.apiKey) =>
    http().post(CONVERSION).set('x-api-key', key).send({ eventType: 'conversion', eventData: { messengerUserId } });
  const summary = async (key = advertiser.apiKey) =>
    (
      await http()
        .get(SUMMARY)
        .query({ from: clock.now() - 30 * DAY, to: clock.now() + DAY })
        .set('x-api-key', key)
        .expect(200)
    ).body.data;
  const serve = async (campaignId: string, user: string) => {
    const ad = (await fetchAds(t, publisher.apiKey, block, user, { limit: 9 })).find((served: Body) => served.campaignId === campaignId);
    if (!ad) throw new Error(`campaign ${campaignId} not served`);
    return ad;
  };
  /** Serves `campaignId` to `user` and reports the click; answers when it is counted. */
  const click = async (campaignId: string, user: string) => {
    const response = await clickAd(t, publisher.apiKey, await serve(campaignId, user), user).expect(200);
    expect(response.body.data.msg).toBe('click counted');
  };
  /** A servable CPC campaign; `optimizationEvent` goes at the top level of the body, the rest into the factory's. */
  const campaign = ({ optimizationEvent, ...overrides }: Body = {}, key = advertiser.apiKey) =>
    createServable(t, key, { ...openCampaign({ bidding: { billingType: 'CPC', costPer: 0.1 }, ...overrides }, clock.now()), optimizationEvent });
  const rowsOf = async (user: string) => (await stored()).filter((row) => row.messengerUserId === user);
  const series = async (campaignId: string, granularity: 'hour' | 'day', from: number, to: number) =>
    (await http().get(`${CAMPAIGN_BASE}/stats`).query({ campaignId, granularity, from, to }).set('x-api-key', advertiser.apiKey).expect(200)).body.data
      .series as Body[];
  const update = (campaignId: string, changes: Body, key = advertiser.apiKey) =>
    http()
      .post(`${CAMPAIGN_BASE}/update`)
      .set('x-api-key', key)
      .send({ campaignId, ...changes });

  describe('validation and access', () => {
    const cases: [string, string, object][] = [
      ['eventType missing', 'eventType', { eventData: { messengerUserId: 'u' } }],
      ['eventType unknown', 'eventType', { eventType: 'purchase', eventData: { messengerUserId: 'u' } }],
      ['eventType conversion (endpoint 7 is its route)', 'eventType', { eventType: 'conversion', eventData: { messengerUserId: 'u' } }],
      ['eventType click', 'eventType', { eventType: 'click', eventData: { messengerUserId: 'u' } }],
      ['eventType in another case', 'eventType', { eventType: 'Register', eventData: { messengerUserId: 'u' } }],
      ['eventType a number', 'eventType', { eventType: 1, eventData: { messengerUserId: 'u' } }],
      ['eventData missing', 'eventData', { eventType: 'play' }],
      ['eventData null', 'eventData', { eventType: 'play', eventData: null }],
      ['eventData a string', 'eventData', { eventType: 'play', eventData: 'u' }],
      ['messengerUserId missing', 'eventData.messengerUserId', { eventType: 'payment', eventData: {} }],
      ['messengerUserId empty', 'eventData.messengerUserId', { eventType: 'payment', eventData: { messengerUserId: '' } }],
      ['messengerUserId a number', 'eventData.messengerUserId', { eventType: 'payment', eventData: { messengerUserId: 42 } }],
      ['messengerUserId too long', 'eventData.messengerUserId', { eventType: 'withdraw', eventData: { messengerUserId: 'x'.repeat(129) } }],
    ];

    it.each(cases)('should answer 400 naming the field for %s and store nothing', async (_case, field, body) => {
      const before = (await stored()).length;
      const response = await http().post(CUSTOM).set('x-api-key', advertiser.apiKey).send(body);
      expectValidationError(response, field);
      expect((await stored()).length).toBe(before);
    });

    it('should answer 401 without or with an unknown key, 403 for a publisher, a partner and a publishable key, storing nothing', async () => {
      const before = (await stored()).length;
      const body = { eventType: 'register', eventData: { messengerUserId: 'u' } };
      const missing = await http().post(CUSTOM).send(body);
      expect([missing.status, missing.body.code]).toEqual([401, 401]);
      const unknown = await report('register', 'u', 'not-a-real-key-0123456789abcdef');
      expect([unknown.status, unknown.body.code]).toEqual([401, 401]);
      for (const key of [publisher.apiKey, partner.apiKey]) {
        const forbidden = await report('register', 'u', key);
        expect([forbidden.status, forbidden.body.code, typeof forbidden.body.message]).toEqual([403, 403, 'string']);
      }
      // the advertiser's own publishable key: events cost nothing, but only a full key may report them
      const serveKey = (await http().post('/api/v2/openapi/account/keys').set('x-api-key', advertiser.apiKey).send({ scope: 'serve' }).expect(200)).body.data
        .apiKey;
      const publishable = await report('register', 'u', serveKey);
      expect([publishable.status, publishable.body.code]).toEqual([403, 403]);
      expect((await stored()).length).toBe(before);
    });

    it('should refuse an unknown optimizationEvent on create and update, naming the field, and change nothing', async () => {
      const id = await campaign();
      const created = await http()
        .post(`${CAMPAIGN_BASE}/create`)
        .set('x-api-key', advertiser.apiKey)
        .send({ ...openCampaign({}, clock.now()), optimizationEvent: 'click' });
      expectValidationError(created, 'optimizationEvent');
      for (const value of ['purchase', 'Conversion', 3, ['play']]) expectValidationError(await update(id, { optimizationEvent: value }), 'optimizationEvent');
      const detail = await flushedCampaign(t, id);
      expect(detail.optimizationEvent).toBe('conversion');
      expect(detail.updatedAt).toBe(detail.createdAt);
    });
  });

  it('should document the route, its event types and the new campaign and series fields in the Swagger document', async () => {
    const doc = (await http().get('/docs-json').expect(200)).body;
    const route = doc.paths['/api/v2/openapi/ad/event/report/custom'].post;
    expect(route.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/CustomEventReportDto');
    expect(route.security).toEqual([{ 'x-api-key': [] }]);
    expect(Object.keys(route.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403']));
    const schemas = doc.components.schemas;
    // a described property names its schema through allOf
    const refOf = (property: Body) => property.$ref ?? property.allOf?.[0]?.$ref;
    expect(schemas.CustomEventReportDto.properties.eventType.enum).toEqual(['onboard', 'register', 'play', 'payment', 'withdraw']);
    expect(schemas.CustomEventReportDto.required).toEqual(expect.arrayContaining(['eventType', 'eventData']));
    const events = ['conversion', 'onboard', 'register', 'play', 'payment', 'withdraw'];
    for (const dto of ['CampaignCreateDto', 'CampaignUpdateDto']) {
      expect(schemas[dto].properties.optimizationEvent).toEqual(expect.objectContaining({ enum: events, default: 'conversion' }));
      expect(schemas[dto].required ?? []).not.toContain('optimizationEvent');
    }
    expect(Object.keys(schemas.EventCountsDto.properties)).toEqual(events);
    for (const dto of ['CampaignResponseDto', 'CampaignListItemDto', 'CampaignSeriesPointDto']) {
      expect(refOf(schemas[dto].properties.events)).toBe('#/components/schemas/EventCountsDto');
    }
    expect(schemas.CampaignResponseDto.properties.optimizationEvent.enum).toEqual(events);
    expect(schemas.CampaignResponseDto.properties.estimatedEventRate.type).toBe('number');
    expect(refOf(schemas.ConversionSummaryDto.properties.events)).toBe('#/components/schemas/EventAttributionSummariesDto');
    expect(Object.keys(schemas.EventAttributionSummariesDto.properties)).toEqual(events);
  });

  describe('attribution', () => {
    beforeEach(() => endAllCampaigns(t));

    it('should keep an event without any click as unattributed, answering {status: "success"} without the envelope', async () => {
      const before = await summary();
      const user = newUser('noclick');
      const response = await report('onboard', user).expect(200);
      expect(response.body).toEqual({ status: 'success', msg: 'stored, not attributed: no click to credit within the attribution window' });
      expect(await rowsOf(user)).toEqual([
        expect.objectContaining({ advertiserId: advertiser.accountId, eventType: 'onboard', clickId: null, campaignId: null }),
      ]);
      const after = await summary();
      expect(after.events.onboard).toEqual({ attributed: before.events.onboard.attributed, unattributed: before.events.onboard.unattributed + 1 });
      expect({ attributed: after.attributed, unattributed: after.unattributed }).toEqual({ attributed: before.attributed, unattributed: before.unattributed });
    });

    it('should credit the latest counted click within 7 days, and not an older one', async () => {
      const first = await campaign();
      const second = await campaign();
      const user = newUser('latest');
      const stale = newUser('stale');
      await click(first, user);
      await click(first, stale);
      clock.advance(MINUTE);
      await click(second, user);
      clock.advance(7 * DAY - 2 * MINUTE);
      // the click on `second` is 7 days minus 2 minutes old, the one of `stale` 7 days minus a minute
      await report('register', user).expect(200);
      clock.advance(2 * MINUTE);
      await report('register', stale).expect(200);

      expect((await flushedCampaign(t, second)).events).toEqual({ ...NO_EVENTS, register: 1 });
      expect((await flushedCampaign(t, first)).events).toEqual(NO_EVENTS);
      expect((await rowsOf(user)).map((row) => [row.eventType, row.campaignId])).toEqual([['register', second]]);
      expect((await rowsOf(stale)).map((row) => [row.eventType, row.campaignId])).toEqual([['register', null]]);
    });

    it('should count once per click and type: a repeat is answered as not attributed and kept apart; other types on that click count once each', async () => {
      const id = await campaign();
      const user = newUser('repeat');
      await click(id, user);
      const first = await report('play', user).expect(200);
      const repeat = await report('play', user).expect(200);
      expect(first.body).toEqual({ status: 'success', msg: 'attributed to a click' });
      expect(repeat.body).toEqual({ status: 'success', msg: 'stored, not attributed: no click to credit within the attribution window' });
      for (const type of ['payment', 'withdraw', 'onboard', 'register'] as const) await report(type, user).expect(200);
      await report('payment', user).expect(200);
      await convert(user).expect(200);
      await convert(user).expect(200);

      const detail = await flushedCampaign(t, id);
      expect(detail.events).toEqual({ conversion: 1, onboard: 1, register: 1, play: 1, payment: 1, withdraw: 1 });
      expect({ clicks: detail.clicks, conversions: detail.conversions, cr: detail.cr }).toEqual({ clicks: 1, conversions: 1, cr: 1 });
      const rows = await rowsOf(user);
      // play twice, four other types, payment again, conversion twice
      expect(rows).toHaveLength(9);
      const attributed = rows.filter((row) => row.clickId !== null);
      expect(attributed.map((row) => row.eventType).sort()).toEqual(['conversion', 'onboard', 'payment', 'play', 'register', 'withdraw']);
      expect(new Set(attributed.map((row) => row.clickId)).size).toBe(1);
      expect(rows.filter((row) => row.clickId === null).map((row) => row.eventType)).toEqual(['play', 'payment', 'conversion']);
    });

    it('should credit a click once per type when its events arrive concurrently', async () => {
      const id = await campaign();
      const user = newUser('race');
      await click(id, user);
      const responses = await Promise.all([
        ...Array.from({ length: 5 }, () => report('payment', user)),
        ...Array.from({ length: 3 }, () => report('play', user)),
      ]);
      expect(responses.map((response) => response.status)).toEqual(responses.map(() => 200));
      const rows = await rowsOf(user);
      expect(rows).toHaveLength(8);
      expect(
        rows
          .filter((row) => row.clickId !== null)
          .map((row) => row.eventType)
          .sort(),
      ).toEqual(['payment', 'play']);
      const detail = await http().get(`${CAMPAIGN_BASE}/detail`).query({ campaignId: id }).set('x-api-key', ADMIN_KEY).expect(200);
      expect(detail.body.data.events).toEqual({ ...NO_EVENTS, play: 1, payment: 1 });
    });

    it('should not credit an unbilled or an invalid click, as conversions are not', async () => {
      const paused = await campaign();
      const pausedUser = newUser('unbilled');
      const pausedAd = await serve(paused, pausedUser);
      await setStatus(t, advertiser.apiKey, paused, 'paused');
      expect((await clickAd(t, publisher.apiKey, pausedAd, pausedUser).expect(200)).body.data.msg).toBe(
        'click recorded, not billed: the campaign is not billable now',
      );

      const live = await campaign();
      const botUser = newUser('bot');
      const botAd = await serve(live, botUser);
      const botClick = await clickAd(t, publisher.apiKey, botAd, botUser).set('user-agent', 'curl/8.5.0').expect(200);
      expect(botClick.body.data.msg).toBe('click recorded as invalid traffic: a bot or HTTP library agent');

      for (const user of [pausedUser, botUser]) {
        await report('register', user).expect(200);
        await convert(user).expect(200);
      }
      for (const id of [paused, live]) {
        const detail = await flushedCampaign(t, id);
        expect({ clicks: detail.clicks, events: detail.events }).toEqual({ clicks: 0, events: NO_EVENTS });
      }
      for (const user of [pausedUser, botUser])
        expect((await rowsOf(user)).map((row) => [row.eventType, row.clickId])).toEqual([
          ['register', null],
          ['conversion', null],
        ]);
    });

    it("should never credit another advertiser's click, answering exactly as for a user nobody clicked", async () => {
      const mine = await campaign();
      const user = newUser('foreign');
      await click(mine, user);
      const theirs = await summary(otherAdvertiser.apiKey);
      const foreign = await report('payment', user, otherAdvertiser.apiKey);
      const unknown = await report('payment', newUser('nobody'), otherAdvertiser.apiKey);
      expect({ status: foreign.status, body: foreign.body }).toEqual({ status: unknown.status, body: unknown.body });
      expect((await flushedCampaign(t, mine)).events).toEqual(NO_EVENTS);
      expect((await rowsOf(user)).map((row) => [row.advertiserId, row.clickId])).toEqual([[otherAdvertiser.accountId, null]]);
      expect((await summary(otherAdvertiser.apiKey)).events.payment).toEqual({
        attributed: theirs.events.payment.attributed,
        unattributed: theirs.events.payment.unattributed + 2,
      });
    });
  });

  describe('the optimization event', () => {
    beforeEach(() => endAllCampaigns(t));

    /** Three clicks; events: 1 conversion, 2 register, 1 payment, reported an hour apart. Answers the campaign and the hours. */
    const campaignWithEvents = async (overrides: Body = {}) => {
      const id = await campaign(overrides);
      const users = [newUser('opt'), newUser('opt'), newUser('opt')];
      for (const user of users) await click(id, user);
      const reported: [EventType, string, number][] = [];
      const send = async (type: EventType, user: string) => {
        if (type === 'conversion') await convert(user).expect(200);
        else await report(type, user).expect(200);
        reported.push([type, user, clock.now()]);
      };
      await send('conversion', users[0]);
      clock.advance(HOUR);
      await send('register', users[0]);
      await send('register', users[1]);
      clock.advance(HOUR);
      await send('payment', users[1]);
      return { id, reported };
    };

    it('should store optimizationEvent at create (conversion by default) and show it in detail, list and the update answer', async () => {
      const byDefault = await campaign();
      const paying = await campaign({ optimizationEvent: 'payment' });
      expect((await flushedCampaign(t, byDefault)).optimizationEvent).toBe('conversion');
      expect((await flushedCampaign(t, paying)).optimizationEvent).toBe('payment');
      const list = (await http().get(`${CAMPAIGN_BASE}/list`).set('x-api-key', advertiser.apiKey).expect(200)).body.data.campaigns as Body[];
      expect(list.filter((item) => [byDefault, paying].includes(item.id)).map((item) => [item.id, item.optimizationEvent, item.events])).toEqual([
        [paying, 'payment', NO_EVENTS],
        [byDefault, 'conversion', NO_EVENTS],
      ]);
      const updated = await update(paying, { optimizationEvent: 'withdraw' }).expect(200);
      expect(updated.body.data).toEqual(expect.objectContaining({ campaignId: paying, optimizationEvent: 'withdraw', conversions: 0, cr: 0 }));
      // a later update without the field keeps it
      await update(paying, { name: 'Renamed' }).expect(200);
      expect((await flushedCampaign(t, paying)).optimizationEvent).toBe('withdraw');
    });

    it('should switch what conversions, cr and estimatedEventRate show in detail and list, the events staying as they are', async () => {
      const { id } = await campaignWithEvents();
      const events = { ...NO_EVENTS, conversion: 1, register: 2, payment: 1 };
      const figures = async () => {
        const detail = await flushedCampaign(t, id);
        const item = ((await http().get(`${CAMPAIGN_BASE}/list`).set('x-api-key', advertiser.apiKey).expect(200)).body.data.campaigns as Body[]).find(
          (candidate) => candidate.id === id,
        )!;
        expect([item.optimizationEvent, item.conversions, item.cr, item.events]).toEqual([
          detail.optimizationEvent,
          detail.conversions,
          detail.cr,
          detail.events,
        ]);
        return {
          optimizationEvent: detail.optimizationEvent,
          clicks: detail.clicks,
          conversions: detail.conversions,
          cr: detail.cr,
          events: detail.events,
          estimatedEventRate: detail.estimatedEventRate,
        };
      };
      // the prior (fewer than 5 advertisers share the network mean) worth 100 clicks: (events + 100 * 0.02) / (3 + 100)
      const estimate = (count: number) => (count + 100 * DEFAULT_PRIOR) / (3 + 100);
      expect(await figures()).toEqual({ optimizationEvent: 'conversion', clicks: 3, conversions: 1, cr: 1 / 3, events, estimatedEventRate: estimate(1) });

      await update(id, { optimizationEvent: 'register' }).expect(200);
      expect(await figures()).toEqual({ optimizationEvent: 'register', clicks: 3, conversions: 2, cr: 2 / 3, events, estimatedEventRate: estimate(2) });

      await update(id, { optimizationEvent: 'withdraw' }).expect(200);
      expect(await figures()).toEqual({ optimizationEvent: 'withdraw', clicks: 3, conversions: 0, cr: 0, events, estimatedEventRate: estimate(0) });

      await update(id, { optimizationEvent: 'conversion' }).expect(200);
      expect((await figures()).conversions).toBe(1);
    });

    it('should carry the events of every type per bucket in the series, conversions following the optimization event, sums equal to the totals', async () => {
      const start = clock.now();
      const { id, reported } = await campaignWithEvents({ optimizationEvent: 'register' });
      const from = start - 2 * HOUR;
      const to = clock.now() + 2 * HOUR;

      const check = async (granularity: 'hour' | 'day', optimizationEvent: EventType) => {
        const bucket = granularity === 'hour' ? HOUR : DAY;
        const points = await series(id, granularity, from, to);
        const expected = new Map<number, Record<EventType, number>>();
        for (const [type, , at] of reported) {
          const time = at - (at % bucket);
          const counts = expected.get(time) ?? { ...NO_EVENTS };
          counts[type] += 1;
          expected.set(time, counts);
        }
        for (const point of points) {
          const want = expected.get(point.time) ?? NO_EVENTS;
          expect({ time: point.time, events: point.events, conversions: point.conversions }).toEqual({
            time: point.time,
            events: want,
            conversions: want[optimizationEvent],
          });
        }
        const sums = { ...NO_EVENTS };
        for (const point of points) for (const type of Object.keys(NO_EVENTS) as EventType[]) sums[type] += point.events[type];
        const detail = await flushedCampaign(t, id);
        expect(sums).toEqual(detail.events);
        expect(points.reduce((sum, point) => sum + point.conversions, 0)).toBe(detail.conversions);
        expect(points.reduce((sum, point) => sum + point.clicks, 0)).toBe(detail.clicks);
        return points;
      };

      const hourly = await check('hour', 'register');
      // an hour apart: conversion, then both registers, then the payment
      expect(hourly.filter((point) => point.conversions > 0).map((point) => point.conversions)).toEqual([2]);
      expect(hourly.filter((point) => Object.values(point.events as Record<string, number>).some((count) => count > 0))).toHaveLength(3);
      await check('day', 'register');

      await update(id, { optimizationEvent: 'payment' }).expect(200);
      await check('hour', 'payment');
      await check('day', 'payment');
    });

    it('should show every type apart in the attribution summary', async () => {
      const before = await summary();
      const { reported } = await campaignWithEvents();
      await report('withdraw', newUser('never-clicked')).expect(200);
      const after = await summary();
      const delta = (type: EventType) => ({
        attributed: after.events[type].attributed - before.events[type].attributed,
        unattributed: after.events[type].unattributed - before.events[type].unattributed,
      });
      expect(reported).toHaveLength(4);
      expect(Object.fromEntries((Object.keys(NO_EVENTS) as EventType[]).map((type) => [type, delta(type)]))).toEqual({
        conversion: { attributed: 1, unattributed: 0 },
        onboard: { attributed: 0, unattributed: 0 },
        register: { attributed: 2, unattributed: 0 },
        play: { attributed: 0, unattributed: 0 },
        payment: { attributed: 1, unattributed: 0 },
        withdraw: { attributed: 0, unattributed: 1 },
      });
      expect({ attributed: after.attributed, unattributed: after.unattributed }).toEqual(after.events.conversion);
    });
  });
});
