import { beforeEach, describe, expect, it } from 'vitest';
import { fakeApi, ok } from './fakeApi';

describe('the combined data provider', () => {
  beforeEach(() => localStorage.clear());

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

  it('should refuse, by name, a resource the API does not have', async () => {
    const { provider, calls } = fakeApi({});
    const page = { pagination: { page: 1, perPage: 20 }, sort: { field: 'id', order: 'DESC' as const }, filter: {} };
    await expect(provider.getList('orders', page)).rejects.toThrow('getList is not available for orders');
    await expect(provider.getOne('toString', { id: 'x' })).rejects.toThrow('getOne is not available for toString');
    await expect(provider.create('orders', { data: {} })).rejects.toThrow('create is not available for orders');
    expect(calls).toEqual([]);
  });
});
