import { DataSource } from 'typeorm';
import { ManualClock } from '../../src/common/clock';
import { ExchangeConversion } from '../../src/exchange/entities/exchange-conversion.entity';
import { ExchangeClick } from '../../src/exchange/entities/exchange-click.entity';
import { ExchangeStatsWriterService } from '../../src/exchange/exchange-stats-writer.service';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { IP } from '../support/serving-helpers';
import { Body, DAY, expectValidationError, HOUR, MINUTE, newUser } from '../support/serving-fixtures';
import { createAccount, createAccounts } from '../support/factories';

type Account = { accountId: string; apiKey: string };

const BASE = '/api/v2/openapi/exchange/campaign';
const FETCH = '/api/v2/openapi/matching/exchange';
const CLICK = '/api/v2/openapi/exchange/event/report';
const CONVERSION = '/api/v2/openapi/exchange/event/report/conversion';
const SUCCESS = { status: 'success' };

/**
 * Exchange conversions (docs/CONTRACT.md §14): the partner whose exchange campaign received a user reports the user's
 * conversion; it is credited to that user's latest counted exchange click into that partner's campaigns within 7
 * days, once per click, and counted in that campaign's `conversions` and `cr` (list, detail, series).
 */
describe('Exchange conversions (docs/CONTRACT.md §14)', () => {
  let t: TestApp;
  const clock = new ManualClock();
  /** shows the others' entries */
  let sender: Account;
  /** owns the promoted campaigns: receives the users and reports their conversions */
  let receiver: Account;
  let bystander: Account;
  let outCampaign: string;
  let promoted: string;
  let promotedToo: string;
  let bystanderCampaign: string;

  const http = () => t.http();
  const createExchange = async (key: string, name: string) =>
    (
      await http()
        .post(`${BASE}/create`)
        .set('x-api-key', key)
        .send({ name, icon: 'https://cdn.example.com/i.png', text: name, destination: { actionType: 'open.miniapp', url: 'https://t.example/app' } })
        .expect(200)
    ).body.data.exchangeCampaignId as string;
  const report = (key: string, eventData: Body, eventType: unknown = 'conversion') =>
    http().post(CONVERSION).set('x-api-key', key).send({ eventType, eventData });
  const convert = async (messengerUserId: string, key = receiver.apiKey) => {
    const response = await report(key, { messengerUserId });
    expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: SUCCESS });
  };
  /** Serves `inId` inside the sender's campaign to `user` and reports the click; answers when it is counted. */
  const clickInto = async (inId: string, user: string) => {
    const entries = await http()
      .get(FETCH)
      .query({ exchangeCampaignId: outCampaign, openId: user, type: 'messenger', limit: 9 })
      .set({ 'x-api-key': sender.apiKey, 'x-forwarded-for': IP.US })
      .expect(200);
    expect((entries.body.data.exchangeCampaigns as Body[]).map((entry) => entry.inExchangeCampaignId)).toContain(inId);
    const clicked = await http()
      .post(CLICK)
      .set('x-api-key', sender.apiKey)
      .send({ eventType: 'click', eventData: { messengerUserId: user, inExchangeCampaignId: inId, outExchangeCampaignId: outCampaign } });
    expect({ status: clicked.status, body: clicked.body }).toEqual({ status: 200, body: SUCCESS });
  };
  const detail = async (exchangeCampaignId: string) => {
    await t.app.get(ExchangeStatsWriterService).flush();
    const data = (await http().get(`${BASE}/detail`).query({ exchangeCampaignId }).set('x-api-key', ADMIN_KEY).expect(200)).body.data as Body;
    return { clicksReceived: data.clicksReceived, conversions: data.conversions, cr: data.cr };
  };
  const stored = () =>
    t.app
      .get(DataSource)
      .getRepository(ExchangeConversion)
      .find({ order: { createdAt: 'ASC', id: 'ASC' } });
  const latestClickOf = (messengerUserId: string) =>
    t.app
      .get(DataSource)
      .getRepository(ExchangeClick)
      .findOneOrFail({ where: { messengerUserId }, order: { createdAt: 'DESC', id: 'DESC' } });

  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: 'true' }, { clock });
    ({ sender, receiver, bystander } = await createAccounts(t, {
      sender: ['partner', 'Sending partner'],
      receiver: ['partner', 'Receiving partner'],
      bystander: ['partner', 'Another partner'],
    }));
    outCampaign = await createExchange(sender.apiKey, 'Sender app');
    promoted = await createExchange(receiver.apiKey, 'Receiver game');
    promotedToo = await createExchange(receiver.apiKey, 'Receiver second game');
    bystanderCampaign = await createExchange(bystander.apiKey, 'Bystander app');
  });
  afterAll(() => t.close());

  it('should credit the conversion to the click that brought the user, counted in detail, list and series exactly', async () => {
    const user = newUser('converts');
    const before = await detail(promoted);
    await clickInto(promoted, user);
    await convert(user);

    const click = await latestClickOf(user);
    expect((await stored()).filter((row) => row.messengerUserId === user)).toEqual([
      expect.objectContaining({ partnerId: receiver.accountId, exchangeClickId: click.id, exchangeCampaignId: promoted }),
    ]);
    const after = await detail(promoted);
    expect(after).toEqual({
      clicksReceived: before.clicksReceived + 1,
      conversions: before.conversions + 1,
      cr: (before.conversions + 1) / (before.clicksReceived + 1),
    });
    expect(await detail(outCampaign)).toEqual({ clicksReceived: 0, conversions: 0, cr: 0 });

    const list = (await http().get(`${BASE}/list`).set('x-api-key', receiver.apiKey).expect(200)).body.data.exchangeCampaigns as Body[];
    expect(list.find((item) => item.id === promoted)).toEqual(expect.objectContaining({ conversions: after.conversions, cr: after.cr }));

    const now = clock.now();
    const series = (
      await http()
        .get(`${BASE}/stats`)
        .query({ exchangeCampaignId: promoted, from: now - DAY, to: now + HOUR, granularity: 'hour' })
        .set('x-api-key', receiver.apiKey)
        .expect(200)
    ).body.data.series as Body[];
    expect(series.reduce((sum, point) => sum + point.conversions, 0)).toBe(after.conversions);
    const hour = now - (now % HOUR);
    expect(series.find((point) => point.time === hour)?.conversions).toBe(1);
  });

  it('should credit each click once: a second conversion of the same click is kept unattributed; a new click takes a new one', async () => {
    const user = newUser('twice');
    await clickInto(promoted, user);
    const first = await detail(promoted);
    await Promise.all([convert(user), convert(user), convert(user)]);
    expect(await detail(promoted)).toEqual({ ...first, conversions: first.conversions + 1, cr: (first.conversions + 1) / first.clicksReceived });
    const rows = (await stored()).filter((row) => row.messengerUserId === user);
    expect(rows.map((row) => row.exchangeClickId !== null).sort()).toEqual([false, false, true]);

    // in production a clicked entry is not offered to that user again for 10 minutes
    clock.advance(11 * MINUTE);
    await clickInto(promoted, user);
    await convert(user);
    const second = await detail(promoted);
    expect({ clicksReceived: second.clicksReceived, conversions: second.conversions }).toEqual({
      clicksReceived: first.clicksReceived + 1,
      conversions: first.conversions + 2,
    });
    expect((await stored()).filter((row) => row.messengerUserId === user && row.exchangeClickId === null)).toHaveLength(2);
  });

  it("should credit the latest click into the partner's campaigns", async () => {
    const user = newUser('latest');
    await clickInto(promoted, user);
    clock.advance(MINUTE);
    await clickInto(promotedToo, user);
    const [first, second] = [await detail(promoted), await detail(promotedToo)];
    await convert(user);
    expect((await detail(promoted)).conversions).toBe(first.conversions);
    expect((await detail(promotedToo)).conversions).toBe(second.conversions + 1);
    expect((await stored()).find((row) => row.messengerUserId === user)?.exchangeCampaignId).toBe(promotedToo);
  });

  it('should attribute within 7 days of the click and not after', async () => {
    const [inside, outside] = [newUser('inside'), newUser('outside')];
    await clickInto(promotedToo, outside);
    clock.advance(MINUTE);
    await clickInto(promotedToo, inside);
    const before = await detail(promotedToo);
    clock.advance(7 * DAY - MINUTE / 2);
    // `outside` clicked 7 days and 30 s ago, `inside` 7 days less 30 s ago
    await convert(outside);
    await convert(inside);
    expect((await detail(promotedToo)).conversions).toBe(before.conversions + 1);
    const rows = await stored();
    expect(rows.find((row) => row.messengerUserId === outside)?.exchangeClickId).toBeNull();
    expect(rows.find((row) => row.messengerUserId === inside)?.exchangeClickId).toBe((await latestClickOf(inside)).id);
  });

  it("should not attribute a conversion reported with another partner's key (the sender's or a bystander's)", async () => {
    const user = newUser('elsewhere');
    await clickInto(promoted, user);
    const [received, sent, other] = [await detail(promoted), await detail(outCampaign), await detail(bystanderCampaign)];
    await convert(user, sender.apiKey);
    await convert(user, bystander.apiKey);
    expect([await detail(promoted), await detail(outCampaign), await detail(bystanderCampaign)]).toEqual([received, sent, other]);
    const rows = (await stored()).filter((row) => row.messengerUserId === user);
    expect(rows.map((row) => [row.partnerId, row.exchangeClickId])).toEqual([
      [sender.accountId, null],
      [bystander.accountId, null],
    ]);
    // the receiver's own report still takes the click
    await convert(user);
    expect((await detail(promoted)).conversions).toBe(received.conversions + 1);
  });

  it('should accept telegramUserId, the Open API alias of messengerUserId', async () => {
    const user = newUser('alias');
    await clickInto(promoted, user);
    const before = await detail(promoted);
    const response = await report(receiver.apiKey, { telegramUserId: user });
    expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: SUCCESS });
    expect((await detail(promoted)).conversions).toBe(before.conversions + 1);
  });

  describe('bad input and access', () => {
    const cases: [string, string, object][] = [
      ['eventType missing', 'eventType', { eventData: { messengerUserId: 'u' } }],
      ['eventType click', 'eventType', { eventType: 'click', eventData: { messengerUserId: 'u' } }],
      ['eventData missing', 'eventData', { eventType: 'conversion' }],
      ['eventData null', 'eventData', { eventType: 'conversion', eventData: null }],
      ['eventData a string', 'eventData', { eventType: 'conversion', eventData: 'u' }],
      ['messengerUserId missing', 'eventData.messengerUserId', { eventType: 'conversion', eventData: {} }],
      ['messengerUserId empty', 'eventData.messengerUserId', { eventType: 'conversion', eventData: { messengerUserId: '' } }],
      ['messengerUserId a number', 'eventData.messengerUserId', { eventType: 'conversion', eventData: { messengerUserId: 42 } }],
      ['messengerUserId too long', 'eventData.messengerUserId', { eventType: 'conversion', eventData: { messengerUserId: 'x'.repeat(129) } }],
      ['telegramUserId a number', 'eventData.telegramUserId', { eventType: 'conversion', eventData: { telegramUserId: 42 } }],
      [
        'telegramUserId beside another messengerUserId',
        'eventData.telegramUserId',
        { eventType: 'conversion', eventData: { messengerUserId: 'a', telegramUserId: 'b' } },
      ],
    ];

    it.each(cases)('should answer 400 naming the field for %s and store nothing', async (_case, field, body) => {
      const before = (await stored()).length;
      const response = await http().post(CONVERSION).set('x-api-key', receiver.apiKey).send(body);
      expectValidationError(response, field);
      expect((await stored()).length).toBe(before);
    });

    it('should answer 401 without a key, 403 for a key without the partner role or a serve key, and store nothing', async () => {
      const before = (await stored()).length;
      const advertiser = await createAccount(t, ['advertiser'], 'Not a partner');
      const body = { eventType: 'conversion', eventData: { messengerUserId: 'u' } };
      expect((await http().post(CONVERSION).send(body)).status).toBe(401);
      expect((await http().post(CONVERSION).set('x-api-key', advertiser.apiKey).send(body)).status).toBe(403);
      const serveKey = (
        await http()
          .post(`/api/v2/admin/accounts/${receiver.accountId}/keys`)
          .set('x-api-key', ADMIN_KEY)
          .send({ scope: 'serve', label: 'frontend' })
          .expect(200)
      ).body.data.apiKey;
      const refused = await http().post(CONVERSION).set('x-api-key', serveKey).send(body);
      expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 403, code: 403 });
      expect((await stored()).length).toBe(before);
    });
  });

  it('should document the route, its alias and the conversion counts in Swagger', async () => {
    const doc = (await http().get('/docs-json').expect(200)).body;
    const operation = doc.paths[CONVERSION]?.post;
    expect(operation?.tags).toEqual(['exchange']);
    expect(operation.security).toEqual([{ 'x-api-key': [] }]);
    expect(operation.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/ExchangeConversionReportDto');
    expect(operation.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/ExchangeConversionResultDto');
    for (const status of [400, 401, 403]) expect(operation.responses[String(status)]).toBeDefined();
    const schemas = doc.components.schemas;
    expect(schemas.ExchangeConversionEventDataDto.required).toEqual(['messengerUserId']);
    expect(schemas.ExchangeConversionEventDataDto.properties.telegramUserId).toEqual(expect.objectContaining({ type: 'string', deprecated: true }));
    expect(schemas.ExchangeCampaignResponseDto.properties).toEqual(expect.objectContaining({ conversions: expect.any(Object), cr: expect.any(Object) }));
    expect(schemas.ExchangeSeriesPointDto.properties.conversions).toBeDefined();
  });
});
