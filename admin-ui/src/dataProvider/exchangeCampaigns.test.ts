import { beforeEach, describe, expect, it } from 'vitest';
import type { UpdateParams } from 'react-admin';
import { fakeApi, ok, query } from './fakeApi';

describe('exchange campaigns', () => {
  beforeEach(() => localStorage.clear());

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
});
