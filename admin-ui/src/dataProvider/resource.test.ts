import { beforeEach, describe, expect, it } from 'vitest';
import type { UpdateParams } from 'react-admin';
import { fakeApi, ok, query } from './fakeApi';
import { matchesFilter } from './resource';

/** A campaign row as the list endpoint answers it. */
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

describe('lists and refusals, for every resource', () => {
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

  it('should refuse what the API cannot do', async () => {
    const { provider } = fakeApi({});
    await expect(provider.delete('campaigns', { id: 'c1' })).rejects.toThrow('delete is not available for campaigns');
    await expect(provider.update('accounts', { id: 1, data: {} } as UpdateParams)).rejects.toThrow('update is not available for accounts');
  });
});
