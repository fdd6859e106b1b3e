import { beforeEach, describe, expect, it } from 'vitest';
import type { UpdateParams } from 'react-admin';
import { API_KEY_STORAGE, createApiClient, type FieldError, toFormErrors } from './api';
import { campaignBody, createDataProvider, keyBody, matchesFilter, parseOrigins, servingSnippet } from './dataProvider';

interface Call {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** What a failed call rejects with: react-admin's HttpError and the body the client gives it. */
interface ApiFailure {
  status: number;
  message: string;
  body: { errors: unknown; fieldErrors: FieldError[] };
}

/** A fake `fetch` answering from a route table, recording each call. */
function fakeApi(routes: Record<string, (call: Call) => { status?: number; json: unknown }>) {
  const calls: Call[] = [];
  const fetchImpl = async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = String(input);
    const call: Call = {
      url,
      method: init.method ?? 'GET',
      headers: init.headers as Record<string, string>,
      body: typeof init.body === 'string' ? JSON.parse(init.body) : init.body,
    };
    calls.push(call);
    const path = new URL(url, 'http://panel.test').pathname;
    const route = routes[`${call.method} ${path}`];
    const answer = route ? route(call) : { status: 404, json: { code: 404, message: `no route ${call.method} ${path}`, data: {} } };
    return new Response(JSON.stringify(answer.json), { status: answer.status ?? 200, headers: { 'content-type': 'application/json' } });
  };
  const api = createApiClient(fetchImpl as typeof fetch);
  return { api, calls, provider: createDataProvider(api) };
}

const ok = (data: unknown) => ({ json: { code: 0, message: 'success', data } });
const query = (call: Call) => Object.fromEntries(new URL(call.url, 'http://panel.test').searchParams);

const campaign = (index: number, extra: Record<string, unknown> = {}) => ({
  id: `c${index}`,
  userId: 'acc1',
  name: `Campaign ${index}`,
  campaignStatus: index % 2 ? 'paused' : 'onGoing',
  deliveryStatus: index % 2 ? 'paused' : 'delivering',
  billingType: index % 3 ? 'CPM' : 'CPC',
  impressions: index * 10,
  clicks: index,
  conversions: 0,
  cost: index / 10,
  ctr: 0.1,
  cr: 0,
  createdAt: 1_700_000_000_000 + index,
  ...extra,
});

describe('api client', () => {
  beforeEach(() => localStorage.clear());

  it('should send the stored key as x-api-key and unwrap the envelope', async () => {
    localStorage.setItem(API_KEY_STORAGE, 'adn_stored');
    const { api, calls } = fakeApi({ 'GET /api/v2/openapi/account/me': () => ok({ accountId: 'a1', roles: ['advertiser'] }) });

    const me = await api('/api/v2/openapi/account/me');

    expect(me).toEqual({ accountId: 'a1', roles: ['advertiser'] });
    expect(calls[0].headers['x-api-key']).toBe('adn_stored');
    expect(calls[0].headers['content-type']).toBeUndefined();
  });

  it('should turn a 400 envelope into an HttpError whose body carries nested field errors, in the words of the form', async () => {
    const { api } = fakeApi({
      'POST /api/v2/openapi/ad/campaign/create': () => ({
        status: 400,
        json: {
          code: 400,
          message: 'budget.amount (daily) must not exceed budget.total; ad.destination.url must be an http(s) URL',
          data: {
            errors: [
              { field: 'budget.amount', message: 'budget.amount (daily) must not exceed budget.total' },
              { field: 'ad.destination.url', message: 'ad.destination.url must be an http(s) URL' },
            ],
          },
        },
      }),
    });

    const error = (await api('/api/v2/openapi/ad/campaign/create', { body: {} }).catch((caught: unknown) => caught)) as ApiFailure;

    expect(error.status).toBe(400);
    expect(error.message).toBe('Daily budget must not exceed total budget; Destination URL must be an http(s) URL');
    expect(error.body.errors).toEqual({
      budget: { amount: 'Daily budget must not exceed total budget' },
      ad: { destination: { url: 'Destination URL must be an http(s) URL' } },
    });
    expect(error.body.fieldErrors).toHaveLength(2);
  });

  it('should keep the status of 401, 403, 404 and 409 answers', async () => {
    for (const status of [401, 403, 404, 409]) {
      const { api } = fakeApi({ 'GET /x': () => ({ status, json: { code: status, message: `failure ${status}`, data: {} } }) });
      const error = (await api('/x').catch((caught: unknown) => caught)) as ApiFailure;
      expect(error.status).toBe(status);
      expect(error.message).toBe(`failure ${status}`);
      expect(error.body.errors).toEqual({});
    }
  });

  it('should report a body that is not JSON with its HTTP status', async () => {
    const fetchImpl = async () => new Response('<html>bad gateway</html>', { status: 502, statusText: 'Bad Gateway' });
    const error = (await createApiClient(fetchImpl as typeof fetch)('/x').catch((caught: unknown) => caught)) as ApiFailure;
    expect(error.status).toBe(502);
    expect(error.message).toBe('HTTP 502 Bad Gateway');
  });

  it('should report an unreachable API', async () => {
    const fetchImpl = async () => {
      throw new TypeError('Failed to fetch');
    };
    const error = (await createApiClient(fetchImpl as typeof fetch)('/x').catch((caught: unknown) => caught)) as ApiFailure;
    expect(error.status).toBe(0);
    expect(error.message).toBe('The API cannot be reached: Failed to fetch');
  });

  it('should nest indexed paths and join two messages on one field', () => {
    expect(
      toFormErrors([
        { field: 'list.17.ipAddress', message: 'bad ip' },
        { field: 'name', message: 'too long' },
        { field: 'name', message: 'blank' },
      ]),
    ).toEqual({ list: { '17': { ipAddress: 'bad ip' } }, name: 'too long; blank' });
  });
});

describe('data provider', () => {
  beforeEach(() => localStorage.clear());

  it('should map the campaign list envelope and paging to react-admin', async () => {
    const { provider, calls } = fakeApi({
      'GET /api/v2/openapi/ad/campaign/list': (call) =>
        ok({ campaigns: [campaign(3), campaign(2)], total: 7, current: Number(query(call).current), pageSize: 2, success: true }),
    });

    const result = await provider.getList('campaigns', {
      pagination: { page: 2, perPage: 2 },
      sort: { field: 'createdAt', order: 'DESC' },
      filter: {},
    });

    expect(query(calls[0])).toEqual({ current: '2', pageSize: '2' });
    expect(calls).toHaveLength(1);
    expect(result.total).toBe(7);
    expect(result.data.map((row) => row.id)).toEqual(['c3', 'c2']);
  });

  it('should read every page and filter on its side when a filter is set', async () => {
    const all = Array.from({ length: 150 }, (_, index) => campaign(150 - index));
    const { provider, calls } = fakeApi({
      'GET /api/v2/openapi/ad/campaign/list': (call) => {
        const { current, pageSize } = query(call);
        const start = (Number(current) - 1) * Number(pageSize);
        return ok({
          campaigns: all.slice(start, start + Number(pageSize)),
          total: all.length,
          current: Number(current),
          pageSize: Number(pageSize),
          success: true,
        });
      },
    });

    const result = await provider.getList('campaigns', {
      pagination: { page: 2, perPage: 10 },
      sort: { field: 'createdAt', order: 'DESC' },
      filter: { campaignStatus: 'paused', billingType: 'CPC' },
    });

    expect(calls.map((call) => query(call))).toEqual([
      { current: '1', pageSize: '100' },
      { current: '2', pageSize: '100' },
    ]);
    const expected = all.filter((row) => row.campaignStatus === 'paused' && row.billingType === 'CPC');
    expect(result.total).toBe(expected.length);
    expect(result.data.map((row) => row.id)).toEqual(expected.slice(10, 20).map((row) => row.id));
  });

  it('should sort on its side by another column', async () => {
    const rows = [campaign(1, { cost: 5 }), campaign(2, { cost: 1 }), campaign(3, { cost: 3 })];
    const { provider } = fakeApi({
      'GET /api/v2/openapi/ad/campaign/list': () => ok({ campaigns: rows, total: 3, current: 1, pageSize: 100, success: true }),
    });
    const result = await provider.getList('campaigns', { pagination: { page: 1, perPage: 10 }, sort: { field: 'cost', order: 'ASC' }, filter: {} });
    expect(result.data.map((row) => row.cost)).toEqual([1, 3, 5]);
  });

  it('should search names with q', () => {
    expect(matchesFilter(campaign(1), { q: 'campaign 1' })).toBe(true);
    expect(matchesFilter(campaign(1), { q: 'winter' })).toBe(false);
    expect(matchesFilter({ id: 'a', roles: ['publisher', 'partner'] }, { roles: 'partner' })).toBe(true);
  });

  it('should give ad blocks, accounts and keys their ids', async () => {
    const { provider, calls } = fakeApi({
      'GET /api/v2/openapi/ad/block/list': () =>
        ok({ adBlocks: [{ adBlockId: 'b1', name: 'Home', earnings: 2.1 }], total: 1, current: 1, pageSize: 20, success: true }),
      'GET /api/v2/admin/accounts': () => ok({ accounts: [{ accountId: 'a1', name: 'Acme', roles: ['advertiser'] }], total: 1, current: 1, pageSize: 20 }),
      'GET /api/v2/admin/accounts/a1/keys': () =>
        ok({ keys: [{ keyId: 'k1', scope: 'full', label: '', allowedOrigins: null, revokedAt: null, active: true }] }),
    });
    const page = { pagination: { page: 1, perPage: 20 }, sort: { field: 'id', order: 'DESC' as const }, filter: {} };

    expect((await provider.getList('adBlocks', page)).data).toEqual([{ id: 'b1', adBlockId: 'b1', name: 'Home', earnings: 2.1 }]);
    expect((await provider.getList('accounts', page)).data[0]).toMatchObject({ id: 'a1', accountId: 'a1' });
    expect(await provider.getList('keys', { ...page, filter: { accountId: 'a1' } })).toEqual({
      data: [{ id: 'k1', keyId: 'k1', accountId: 'a1', scope: 'full', label: '', allowedOrigins: null, revokedAt: null, active: true }],
      total: 1,
    });
    expect(await provider.getList('keys', page)).toEqual({ data: [], total: 0 });
    expect(calls.map((call) => new URL(call.url, 'http://x').pathname)).toEqual([
      '/api/v2/openapi/ad/block/list',
      '/api/v2/admin/accounts',
      '/api/v2/admin/accounts/a1/keys',
    ]);
  });

  it('should create a campaign from the form shape only and answer the detail', async () => {
    const detail = { campaignId: 'c9', id: 'c9', name: 'Winter', campaignStatus: 'onGoing' };
    const { provider, calls } = fakeApi({
      'POST /api/v2/openapi/ad/campaign/create': () => ok({ campaignId: 'c9' }),
      'GET /api/v2/openapi/ad/campaign/detail': () => ok(detail),
    });
    const form = {
      name: 'Winter',
      targeting: { platform: 'All' },
      budget: { amount: 1, total: 10, strategy: 'daily', startTime: 1, endTime: 2 },
      bidding: { billingType: 'CPM', costPer: 2 },
      ad: { adFormat: 'image' },
      verificationUrl: '  ',
      impressions: 5,
    };

    const result = await provider.create('campaigns', { data: form });

    expect(calls[0].body).toEqual({
      name: 'Winter',
      targeting: { platform: 'All' },
      budget: { amount: 1, total: 10, strategy: 'daily', startTime: 1, endTime: 2 },
      bidding: { billingType: 'CPM', costPer: 2 },
      ad: { adFormat: 'image' },
    });
    expect(query(calls[1])).toEqual({ campaignId: 'c9' });
    expect(result.data).toEqual(detail);
  });

  it('should update a campaign by id and remove an emptied verification URL', async () => {
    const { provider, calls } = fakeApi({
      'POST /api/v2/openapi/ad/campaign/update': (call) => ok({ campaignId: call.body.campaignId, name: call.body.name }),
    });
    const result = await provider.update('campaigns', {
      id: 'c1',
      data: { id: 'c1', name: 'New', verificationUrl: '', clicks: 3, campaignStatus: 'onGoing' },
      previousData: {},
    } as UpdateParams);
    expect(calls[0].body).toEqual({ campaignId: 'c1', name: 'New', verificationUrl: null });
    expect(result.data).toEqual({ id: 'c1', campaignId: 'c1', name: 'New' });
    expect(campaignBody({ verificationUrl: ' https://v.example/x ' })).toEqual({ verificationUrl: 'https://v.example/x' });
  });

  it('should send the optimization event, and never the read-only event counts or estimate of the detail', () => {
    const detail = {
      name: 'Funnel',
      optimizationEvent: 'payment',
      conversions: 2,
      cr: 0.1,
      events: { conversion: 1, onboard: 0, register: 4, play: 0, payment: 2, withdraw: 0 },
      estimatedEventRate: 0.04,
    };
    expect(campaignBody(detail)).toEqual({ name: 'Funnel', optimizationEvent: 'payment' });
    expect(campaignBody({ name: 'Kept' })).toEqual({ name: 'Kept' });
  });

  it('should send a filled frequency cap, leave out an empty one, and remove an emptied one on update', async () => {
    expect(campaignBody({ name: 'A', frequencyCap: { impressions: 3, hours: 24 } })).toEqual({ name: 'A', frequencyCap: { impressions: 3, hours: 24 } });
    expect(campaignBody({ name: 'A', frequencyCap: { impressions: null, hours: '' } })).toEqual({ name: 'A' });
    expect(campaignBody({ name: 'A', frequencyCap: null })).toEqual({ name: 'A' });
    expect(campaignBody({ frequencyCap: { hours: 48 } })).toEqual({ frequencyCap: { hours: 48 } });

    const { provider, calls } = fakeApi({
      'POST /api/v2/openapi/ad/campaign/update': (call) => ok({ campaignId: call.body.campaignId, frequencyCap: call.body.frequencyCap }),
    });
    await provider.update('campaigns', { id: 'c1', data: { id: 'c1', frequencyCap: { impressions: null, hours: null } }, previousData: {} } as UpdateParams);
    await provider.update('campaigns', { id: 'c1', data: { id: 'c1', frequencyCap: { impressions: 5, hours: 2 } }, previousData: {} } as UpdateParams);
    await provider.update('campaigns', { id: 'c1', data: { id: 'c1', name: 'Kept' }, previousData: {} } as UpdateParams);
    expect(calls.map((call) => call.body)).toEqual([
      { campaignId: 'c1', frequencyCap: null },
      { campaignId: 'c1', frequencyCap: { impressions: 5, hours: 2 } },
      { campaignId: 'c1', name: 'Kept' },
    ]);
  });

  it('should answer the one-time key when creating an account or a key', async () => {
    const { provider, calls } = fakeApi({
      'POST /api/v2/admin/accounts': () => ok({ accountId: 'a2', apiKey: 'adn_first' }),
      'GET /api/v2/admin/accounts/a2': () => ok({ accountId: 'a2', name: 'Pub', roles: ['publisher'], createdAt: 5 }),
      'POST /api/v2/admin/accounts/a2/keys': () => ok({ keyId: 'k2', apiKey: 'adn_second' }),
      'POST /api/v2/admin/keys/k2/revoke': () => ok({ result: 'success' }),
    });

    const account = await provider.create('accounts', { data: { name: 'Pub', roles: ['publisher'], extra: 1 } });
    const key = await provider.create('keys', { data: { accountId: 'a2', label: 'ci' } });
    await provider.revokeKey('k2');

    expect(calls[0].body).toEqual({ name: 'Pub', roles: ['publisher'] });
    expect(account.data).toEqual({ id: 'a2', accountId: 'a2', name: 'Pub', roles: ['publisher'], createdAt: 5, apiKey: 'adn_first' });
    expect(calls[2].body).toEqual({ label: 'ci' });
    expect(key.data).toEqual({ id: 'k2', keyId: 'k2', accountId: 'a2', label: 'ci', scope: undefined, apiKey: 'adn_second' });
    expect(calls[3].method).toBe('POST');
  });

  it("should list, issue and revoke the caller's own keys through the self-service routes", async () => {
    const own = { keyId: 'k5', scope: 'serve', label: 'widget', allowedOrigins: ['https://app.example.com'], createdAt: 1, revokedAt: null, active: true };
    const { provider, calls } = fakeApi({
      'GET /api/v2/openapi/account/keys': () => ok({ keys: [own] }),
      'POST /api/v2/openapi/account/keys': (call) => ok({ keyId: 'k6', apiKey: 'adn_pub', scope: call.body.scope }),
      'POST /api/v2/openapi/account/keys/revoke': () => ok({ result: 'success' }),
    });
    const page = { pagination: { page: 1, perPage: 20 }, sort: { field: 'id', order: 'DESC' as const }, filter: { own: true } };

    expect(await provider.getList('keys', page)).toEqual({ data: [{ ...own, id: 'k5' }], total: 1 });
    const issued = await provider.create('keys', {
      data: { own: true, label: '  landing page ', scope: 'serve', allowedOrigins: 'https://app.example.com, http://localhost:5173\nhttps://m.example.com' },
    });
    await provider.revokeKey('k6', { own: true });

    expect(calls.map((call) => `${call.method} ${new URL(call.url, 'http://x').pathname}`)).toEqual([
      'GET /api/v2/openapi/account/keys',
      'POST /api/v2/openapi/account/keys',
      'POST /api/v2/openapi/account/keys/revoke',
    ]);
    expect(calls[1].body).toEqual({
      label: 'landing page',
      scope: 'serve',
      allowedOrigins: ['https://app.example.com', 'http://localhost:5173', 'https://m.example.com'],
    });
    expect(issued.data).toEqual({ id: 'k6', keyId: 'k6', label: 'landing page', scope: 'serve', apiKey: 'adn_pub' });
    expect(calls[2].body).toEqual({ keyId: 'k6' });
  });

  it('should issue a publishable key for an account through the admin API with its scope and origins', async () => {
    const { provider, calls } = fakeApi({
      'POST /api/v2/admin/accounts/a3/keys': () => ok({ keyId: 'k7', apiKey: 'adn_serve', scope: 'serve' }),
      'POST /api/v2/admin/keys/k7/revoke': () => ok({ result: 'success' }),
    });
    const key = await provider.create('keys', { data: { accountId: 'a3', label: '', scope: 'serve', allowedOrigins: ['https://shop.example.com'] } });
    await provider.revokeKey('k7');
    expect(calls[0].body).toEqual({ scope: 'serve', allowedOrigins: ['https://shop.example.com'] });
    expect(key.data).toEqual({ id: 'k7', keyId: 'k7', accountId: 'a3', label: '', scope: 'serve', apiKey: 'adn_serve' });
    expect(`${calls[1].method} ${new URL(calls[1].url, 'http://x').pathname}`).toBe('POST /api/v2/admin/keys/k7/revoke');
  });

  it('should build key bodies, origins and the frontend snippet', () => {
    expect(parseOrigins(' https://a.example.com,https://b.example.com\n\n http://localhost:3000 ')).toEqual([
      'https://a.example.com',
      'https://b.example.com',
      'http://localhost:3000',
    ]);
    expect(keyBody({ label: ' ', scope: 'full', allowedOrigins: '' })).toEqual({ scope: 'full' });
    expect(keyBody({})).toEqual({});
    const snippet = servingSnippet('https://ads.example.com', 'adn_pub');
    expect(snippet).toContain("'https://ads.example.com/api/v2/openapi/matching/ad?'");
    expect(snippet).toContain("headers: { 'x-api-key': 'adn_pub' }");
    expect(snippet).toContain("type: 'messenger'");
  });

  it('should send status actions and read series with their range', async () => {
    const series = [{ time: 0, impressions: 4, clicks: 1, conversions: 0, cost: 0.01, verifiedClicks: 0 }];
    const { provider, calls } = fakeApi({
      'POST /api/v2/openapi/ad/campaign/status': () => ok({ result: 'success' }),
      'GET /api/v2/openapi/ad/campaign/stats': () => ok({ series }),
    });
    await provider.setCampaignStatus('c1', 'paused');
    const points = await provider.campaignSeries('c1', { from: 10, to: 20, granularity: 'hour' });
    expect(calls[0].body).toEqual({ campaignId: 'c1', status: 'paused' });
    expect(query(calls[1])).toEqual({ campaignId: 'c1', from: '10', to: '20', granularity: 'hour' });
    expect(points).toEqual(series);
  });

  it('should refuse what the API cannot do', async () => {
    const { provider } = fakeApi({});
    await expect(provider.delete('campaigns')).rejects.toThrow('delete is not available for campaigns');
    await expect(provider.update('accounts', { id: 1, data: {} } as UpdateParams)).rejects.toThrow('update is not available for accounts');
  });

  it('should map exchange campaigns: list, create without an empty image, update removing it, status and series', async () => {
    const item = { exchangeCampaignId: 'x1', id: 'x1', name: 'Promo', balance: 2, clicksSent: 3, clicksReceived: 1 };
    const { provider, calls } = fakeApi({
      'GET /api/v2/openapi/exchange/campaign/list': () => ok({ exchangeCampaigns: [item], total: 1, current: 1, pageSize: 20, success: true }),
      'POST /api/v2/openapi/exchange/campaign/create': () => ok({ exchangeCampaignId: 'x1' }),
      'GET /api/v2/openapi/exchange/campaign/detail': () => ok(item),
      'POST /api/v2/openapi/exchange/campaign/update': (call) => ok({ ...item, name: call.body.name }),
      'POST /api/v2/openapi/exchange/campaign/status': () => ok({ result: 'success' }),
      'GET /api/v2/openapi/exchange/campaign/stats': () => ok({ series: [{ time: 0, clicksSent: 3 }] }),
    });
    const page = { pagination: { page: 1, perPage: 20 }, sort: { field: 'createdAt', order: 'DESC' as const }, filter: {} };

    expect(await provider.getList('exchangeCampaigns', page)).toEqual({ data: [item], total: 1 });
    const created = await provider.create('exchangeCampaigns', {
      data: {
        name: 'Promo',
        icon: 'https://i.example/i.png',
        image: '',
        text: 't',
        destination: { actionType: 'visit.website', url: 'https://d.example' },
        balance: 9,
      },
    });
    const updated = await provider.update('exchangeCampaigns', { id: 'x1', data: { name: 'Renamed', image: '' }, previousData: {} } as UpdateParams);
    await provider.setExchangeCampaignStatus('x1', 'end');
    const series = await provider.exchangeCampaignSeries('x1', { granularity: 'day' });

    expect(calls[1].body).toEqual({
      name: 'Promo',
      icon: 'https://i.example/i.png',
      text: 't',
      destination: { actionType: 'visit.website', url: 'https://d.example' },
    });
    expect(created.data).toEqual(item);
    expect(calls[3].body).toEqual({ exchangeCampaignId: 'x1', name: 'Renamed', image: null });
    expect(updated.data.name).toBe('Renamed');
    expect(calls[4].body).toEqual({ exchangeCampaignId: 'x1', status: 'end' });
    expect(query(calls[5])).toEqual({ exchangeCampaignId: 'x1', granularity: 'day' });
    expect(series).toEqual([{ time: 0, clicksSent: 3 }]);
  });

  it('should send a CSV file as text/csv and read batch status', async () => {
    const { provider, calls } = fakeApi({
      'POST /api/v2/openapi/user/profile/batch/csv': () => ok({ batchIds: ['b1', 'b2'], total: 6000 }),
      'GET /api/v2/openapi/user/profile/batch/status': () => ok({ batchId: 'b1', status: 'processing', total: 5000, processed: 1000 }),
    });
    const csv = 'messengerUserId,walletAddress,walletClassify\nu1,,\n';
    const imported = await provider.importProfilesCsv(new Blob([csv], { type: 'text/csv' }));
    const status = await provider.profileBatchStatus('b1');

    expect(calls[0].method).toBe('POST');
    expect(calls[0].headers['content-type']).toBe('text/csv');
    expect(imported).toEqual({ batchIds: ['b1', 'b2'], total: 6000 });
    expect(query(calls[1])).toEqual({ batchId: 'b1' });
    expect(status).toMatchObject({ status: 'processing', processed: 1000 });
  });

  it("should send an admin's CSV import for the publisher it names", async () => {
    const { provider, calls } = fakeApi({ 'POST /api/v2/openapi/user/profile/batch/csv': () => ok({ batchIds: ['b1'], total: 1 }) });
    await provider.importProfilesCsv(new Blob(['messengerUserId,walletAddress,walletClassify\nu1,,\n']), 'pub1');
    await provider.importProfilesCsv(new Blob(['messengerUserId,walletAddress,walletClassify\nu1,,\n']));
    expect(query(calls[0])).toEqual({ publisherId: 'pub1' });
    expect(query(calls[1])).toEqual({});
  });

  it('should create an ad block with its signed-viewer rule and update it through ad/block/update', async () => {
    const detail = (extra: Record<string, unknown>) => ({ adBlockId: 'blk1', userId: 'acc1', name: 'Banner', requireSignedViewer: false, ...extra });
    const { provider, calls } = fakeApi({
      'POST /api/v2/openapi/ad/block/create': () => ok({ adBlockId: 'blk1' }),
      'GET /api/v2/openapi/ad/block/detail': () => ok(detail({ requireSignedViewer: true })),
      'POST /api/v2/openapi/ad/block/update': (call) => ok(detail(call.body)),
    });
    const created = await provider.create('adBlocks', { data: { name: 'Banner', requireSignedViewer: true } });
    expect(calls[0].body).toEqual({ name: 'Banner', requireSignedViewer: true });
    expect(created.data).toMatchObject({ id: 'blk1', requireSignedViewer: true });

    const updated = await provider.update('adBlocks', { id: 'blk1', data: { requireSignedViewer: false, impressions: 3 } });
    expect(calls[2].body).toEqual({ adBlockId: 'blk1', requireSignedViewer: false });
    expect(updated.data).toMatchObject({ id: 'blk1', adBlockId: 'blk1', requireSignedViewer: false });
    await provider.create('adBlocks', { data: { name: 'Plain' } });
    expect(calls[3].body).toEqual({ name: 'Plain' });
  });

  it("should send a block's reward settings, an emptied reward URL as null, and call the rewards routes", async () => {
    const { provider, calls } = fakeApi({
      'POST /api/v2/openapi/ad/block/create': () => ok({ adBlockId: 'blk2' }),
      'GET /api/v2/openapi/ad/block/detail': () => ok({ adBlockId: 'blk2', name: 'Extra life' }),
      'POST /api/v2/openapi/ad/block/update': (call) => ok({ adBlockId: 'blk2', ...call.body }),
      'GET /api/v2/openapi/ad/block/rewards': () => ok({ rewards: [], total: 0, current: 1, pageSize: 50 }),
      'POST /api/v2/openapi/ad/block/rewards/replay': (call) => ok({ eventId: call.body.eventId, status: 'pending' }),
      'POST /api/v2/openapi/ad/block/rewards/test': () => ok({ statusCode: 200, ms: 12, error: null }),
    });
    const settings = { format: 'rewarded', rewardUrl: ' https://game.example.com/reward ', minViewMs: 15000, dailyRewardCap: 5 };
    await provider.create('adBlocks', { data: { name: 'Extra life', ...settings, completions: 3 } });
    expect(calls[0].body).toEqual({
      name: 'Extra life',
      format: 'rewarded',
      rewardUrl: 'https://game.example.com/reward',
      minViewMs: 15000,
      dailyRewardCap: 5,
    });
    await provider.update('adBlocks', { id: 'blk2', data: { rewardUrl: '' } } as unknown as UpdateParams);
    expect(calls[2].body).toEqual({ adBlockId: 'blk2', rewardUrl: null });
    expect(await provider.rewardLog('blk2')).toEqual({ rewards: [], total: 0, current: 1, pageSize: 50 });
    expect(query(calls[3])).toEqual({ adBlockId: 'blk2', pageSize: '50' });
    await provider.replayReward('rw_1');
    expect(calls[4].body).toEqual({ eventId: 'rw_1' });
    expect(await provider.testReward('blk2')).toEqual({ statusCode: 200, ms: 12, error: null });
    expect(calls[5].body).toEqual({ adBlockId: 'blk2' });
  });

  it('should map CSV line errors to their lines', async () => {
    const { provider } = fakeApi({
      'POST /api/v2/openapi/user/profile/batch/csv': () => ({
        status: 400,
        json: {
          code: 400,
          message: 'line.3.walletClassify is required with walletAddress',
          data: { errors: [{ field: 'line.3.walletClassify', message: 'line.3.walletClassify is required with walletAddress' }] },
        },
      }),
    });
    const error = (await provider.importProfilesCsv(new Blob(['x'])).catch((caught: unknown) => caught)) as ApiFailure;
    expect(error.status).toBe(400);
    expect(error.body.fieldErrors).toEqual([{ field: 'line.3.walletClassify', message: 'Line 3, walletClassify is required with walletAddress' }]);
  });
});
