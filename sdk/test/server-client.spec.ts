import { AdnetBatchFailedError } from '../src/errors';
import { AdnetServerClient, type ProfileUploadProgress } from '../src/server-client';
import type { CampaignListItem, ProfileBatchStatus, ProfileRecord } from '../src/types';
import { envelope, FakeFetch, json, type RecordedCall } from './fake-fetch';

const BASE = 'https://ads.example.test';

function server(fake: FakeFetch) {
  return new AdnetServerClient({ baseUrl: BASE, apiKey: 'adn_full', fetch: fake.fetch, random: () => 0.5 });
}

function batchStatus(batchId: string, status: ProfileBatchStatus['status'], total: number, processed: number, error: string | null = null): Response {
  return envelope({ batchId, status, total, processed, attempts: 1, error, createdAt: 1, finishedAt: status === 'done' ? 2 : null });
}

const records = (count: number): ProfileRecord[] => Array.from({ length: count }, (_, index) => ({ messengerUserId: `user-${index}` }));

describe('AdnetServerClient: custom events', () => {
  it('reports a custom event to ad/event/report/custom', async () => {
    const fake = new FakeFetch().answer(json({ status: 'success' }));
    await expect(server(fake).sendEvent('register', 'user-1')).resolves.toEqual({ status: 'success' });
    expect(fake.calls[0].method).toBe('POST');
    expect(fake.calls[0].url.pathname).toBe('/api/v2/openapi/ad/event/report/custom');
    expect(fake.bodies()).toEqual([{ eventType: 'register', eventData: { messengerUserId: 'user-1' } }]);
  });

  it('reports a conversion or event by click id with a transaction id (docs/CONTRACT.md §20)', async () => {
    const fake = new FakeFetch().answer(json({ status: 'success', msg: 'attributed to a click' }), json({ status: 'success', msg: 'duplicate' }));
    const client = server(fake);
    await expect(client.sendConversion({ clickId: 'mip4x2k0aQe1Zr8VtL0pXy7BnC5dFgHjKq', transactionId: 'order-7' })).resolves.toEqual({
      status: 'success',
      msg: 'attributed to a click',
    });
    await expect(client.sendEvent('payment', { clickId: 'mip4x2k0aQe1Zr8VtL0pXy7BnC5dFgHjKq', transactionId: 'order-7' })).resolves.toEqual({
      status: 'success',
      msg: 'duplicate',
    });
    expect(fake.calls.map((call) => call.url.pathname)).toEqual(['/api/v2/openapi/ad/event/report/conversion', '/api/v2/openapi/ad/event/report/custom']);
    expect(fake.bodies()).toEqual([
      { eventType: 'conversion', eventData: { clickId: 'mip4x2k0aQe1Zr8VtL0pXy7BnC5dFgHjKq', transactionId: 'order-7' } },
      { eventType: 'payment', eventData: { clickId: 'mip4x2k0aQe1Zr8VtL0pXy7BnC5dFgHjKq', transactionId: 'order-7' } },
    ]);
  });

  it('reads a report and rotates the postback token', async () => {
    const report = { timeZone: 'UTC', from: 0, to: 3_600_000, groupBy: ['country'], rows: [], totals: {} };
    const fake = new FakeFetch().answer(envelope(report), envelope({ accountId: 'a1', postbackToken: 'pbt_new' }));
    const client = server(fake);
    await expect(client.report({ groupBy: 'country', from: 0, to: 3_600_000 })).resolves.toEqual(report);
    await expect(client.rotatePostbackToken()).resolves.toEqual({ accountId: 'a1', postbackToken: 'pbt_new' });
    expect(fake.calls.map((call) => `${call.method} ${call.url.pathname}${call.url.search}`)).toEqual([
      'GET /api/v2/openapi/report?groupBy=country&from=0&to=3600000',
      'POST /api/v2/openapi/account/postback-token/rotate',
    ]);
  });

  it('refuses an event type the service does not know, without a request', async () => {
    const fake = new FakeFetch();
    await expect(server(fake).sendEvent('signup' as never, 'user-1')).rejects.toThrow('eventType must be one of onboard, register, play, payment, withdraw');
    expect(fake.calls).toHaveLength(0);
  });
});

describe('AdnetServerClient: campaigns and ad blocks', () => {
  it('sends each campaign call to its path with its body or query', async () => {
    const fake = new FakeFetch().answer(
      envelope({ campaignId: 'c1' }),
      envelope({ campaignId: 'c1', name: 'Renamed' }),
      envelope({ campaignId: 'c1' }),
      envelope({ series: [] }),
    );
    const client = server(fake);
    await client.campaigns.create({ name: 'Winter' } as never);
    await client.campaigns.update('c1', { name: 'Renamed', budget: { amount: 5 } });
    await client.campaigns.detail('c1');
    await client.campaigns.stats({ campaignId: 'c1', from: 10, to: 20, granularity: 'day' });
    expect(fake.calls.map((call) => `${call.method} ${call.url.pathname}${call.url.search}`)).toEqual([
      'POST /api/v2/openapi/ad/campaign/create',
      'POST /api/v2/openapi/ad/campaign/update',
      'GET /api/v2/openapi/ad/campaign/detail?campaignId=c1',
      'GET /api/v2/openapi/ad/campaign/stats?campaignId=c1&from=10&to=20&granularity=day',
    ]);
    expect(fake.bodies().slice(0, 2)).toEqual([{ name: 'Winter' }, { name: 'Renamed', budget: { amount: 5 }, campaignId: 'c1' }]);
  });

  it('pages through every campaign, giving an item pushed onto the next page by a new campaign once', async () => {
    const item = (id: string) => ({ id, name: id }) as CampaignListItem;
    const page = (ids: string[], current: number) => envelope({ campaigns: ids.map(item), total: 5, current, pageSize: 2, success: true });
    // Between page 1 and 2 a campaign is created: c3 moves from the 2nd page's start to its end... and c2 repeats.
    const fake = new FakeFetch().answer(page(['c5', 'c4'], 1), page(['c4', 'c3'], 2), page(['c2'], 3));
    const seen: string[] = [];
    for await (const campaign of server(fake).campaigns.list({ pageSize: 2 })) seen.push(campaign.id);
    expect(seen).toEqual(['c5', 'c4', 'c3', 'c2']);
    expect(fake.calls.map((call) => call.url.search)).toEqual(['?current=1&pageSize=2', '?current=2&pageSize=2', '?current=3&pageSize=2']);
  });

  it('reads pages lazily: breaking out of the loop reads no further page', async () => {
    const fake = new FakeFetch().answer(envelope({ adBlocks: [{ adBlockId: 'b1' }, { adBlockId: 'b2' }], total: 9, current: 1, pageSize: 2, success: true }));
    for await (const block of server(fake).adBlocks.list({ pageSize: 2 })) {
      expect(block.adBlockId).toBe('b1');
      break;
    }
    expect(fake.calls).toHaveLength(1);
  });

  it('sends each ad block and account call to its path', async () => {
    const fake = new FakeFetch();
    fake.fallback = envelope({});
    const client = server(fake);
    await client.adBlocks.create({ name: 'Home', requireSignedViewer: true });
    await client.adBlocks.update('b1', { requireSignedViewer: false });
    await client.adBlocks.detail('b1');
    await client.adBlocks.page({ current: 2, pageSize: 10 });
    await client.adBlocks.stats({ adBlockId: 'b1', granularity: 'hour' });
    await client.me();
    await client.issueKey({ scope: 'serve', allowedOrigins: ['https://app.example.test'] });
    fake.answer(envelope({ keys: [{ keyId: 'k1' }] }));
    await expect(client.listKeys()).resolves.toEqual([{ keyId: 'k1' }]);
    await client.revokeKey('k1');
    expect(fake.calls.map((call: RecordedCall) => `${call.method} ${call.url.pathname}${call.url.search}`)).toEqual([
      'POST /api/v2/openapi/ad/block/create',
      'POST /api/v2/openapi/ad/block/update',
      'GET /api/v2/openapi/ad/block/detail?adBlockId=b1',
      'GET /api/v2/openapi/ad/block/list?current=2&pageSize=10',
      'GET /api/v2/openapi/ad/block/stats?adBlockId=b1&granularity=hour',
      'GET /api/v2/openapi/account/me',
      'POST /api/v2/openapi/account/keys',
      'GET /api/v2/openapi/account/keys',
      'POST /api/v2/openapi/account/keys/revoke',
    ]);
    const bodies = fake.bodies();
    expect([bodies[0], bodies[1], bodies[6], bodies[8]]).toEqual([
      { name: 'Home', requireSignedViewer: true },
      { requireSignedViewer: false, adBlockId: 'b1' },
      { scope: 'serve', allowedOrigins: ['https://app.example.test'] },
      { keyId: 'k1' },
    ]);
  });
});

describe('AdnetServerClient: profiles', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('uploads 12,001 records as batches of 5000, 5000 and 2001, each applied before the next is sent', async () => {
    const fake = new FakeFetch().answer(
      envelope({ batchId: 'b1' }),
      batchStatus('b1', 'processing', 5000, 2000),
      batchStatus('b1', 'done', 5000, 5000),
      envelope({ batchId: 'b2' }),
      batchStatus('b2', 'done', 5000, 5000),
      envelope({ batchId: 'b3' }),
      batchStatus('b3', 'queued', 2001, 0),
      batchStatus('b3', 'done', 2001, 2001),
    );
    const progress: ProfileUploadProgress[] = [];
    const upload = server(fake).updateUserProfiles(records(12_001), { onProgress: (step) => progress.push(step), pollIntervalMs: 500 });
    await jest.advanceTimersByTimeAsync(0);
    expect(fake.calls).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(499);
    expect(fake.calls).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(1);
    await jest.advanceTimersByTimeAsync(500);
    const result = await upload;

    const uploads = fake.calls.filter((call) => call.method === 'POST');
    expect(uploads.map((call) => call.url.pathname)).toEqual(Array(3).fill('/api/v2/openapi/user/profile/batch'));
    const lists = uploads.map((call) => (JSON.parse(call.body!) as { list: ProfileRecord[] }).list);
    expect(lists.map((list) => list.length)).toEqual([5000, 5000, 2001]);
    expect(lists.flat().map((record) => record.messengerUserId)).toEqual(records(12_001).map((record) => record.messengerUserId));
    // No batch is sent before the one before it is done.
    expect(fake.calls.map((call) => (call.method === 'POST' ? 'upload' : call.url.searchParams.get('batchId')))).toEqual([
      'upload',
      'b1',
      'b1',
      'upload',
      'b2',
      'upload',
      'b3',
      'b3',
    ]);
    expect(result.recordsTotal).toBe(12_001);
    expect(result.batches.map((batch) => [batch.batchId, batch.status, batch.processed])).toEqual([
      ['b1', 'done', 5000],
      ['b2', 'done', 5000],
      ['b3', 'done', 2001],
    ]);
    expect(progress.map((step) => step.recordsProcessed)).toEqual([0, 2000, 5000, 5000, 10_000, 10_000, 10_000, 12_001]);
    expect(progress.every((step) => step.recordsTotal === 12_001)).toBe(true);
  });

  it('stops at a failed batch with AdnetBatchFailedError, sending no further batch', async () => {
    const fake = new FakeFetch().answer(envelope({ batchId: 'b1' }), batchStatus('b1', 'failed', 5000, 0, 'database unreachable'));
    const error = await server(fake)
      .updateUserProfiles(records(5001))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AdnetBatchFailedError);
    expect(error).toMatchObject({ batchId: 'b1', message: 'profile batch b1 failed: database unreachable' });
    expect(fake.calls).toHaveLength(2);
  });

  it('imports a CSV file as text/csv and waits on every batch it became', async () => {
    const csv = 'messengerUserId,walletAddress,walletClassify\nu1,EQabc,primary\n';
    const fake = new FakeFetch().answer(
      envelope({ batchIds: ['b1', 'b2'], total: 5001 }),
      batchStatus('b1', 'done', 5000, 5000),
      batchStatus('b2', 'processing', 1, 0),
      batchStatus('b2', 'done', 1, 1),
    );
    const progress: number[] = [];
    const imported = server(fake).importProfilesCsv(csv, { publisherId: 'pub-1', onProgress: (step) => progress.push(step.recordsProcessed) });
    await jest.advanceTimersByTimeAsync(1000);
    const result = await imported;
    expect(fake.calls[0]).toMatchObject({ method: 'POST', body: csv });
    expect(fake.calls[0].headers['content-type']).toBe('text/csv');
    expect(`${fake.calls[0].url.pathname}${fake.calls[0].url.search}`).toBe('/api/v2/openapi/user/profile/batch/csv?publisherId=pub-1');
    expect(result.batches.map((batch) => [batch.batchId, batch.total, batch.status])).toEqual([
      ['b1', 5000, 'done'],
      ['b2', 1, 'done'],
    ]);
    expect(progress).toEqual([0, 5000, 5000, 5001]);
  });

  it('refuses an empty list without a request', async () => {
    const fake = new FakeFetch();
    await expect(server(fake).updateUserProfiles([])).rejects.toThrow('records must hold at least one profile');
    expect(fake.calls).toHaveLength(0);
  });
});
