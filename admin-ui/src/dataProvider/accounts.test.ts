import { beforeEach, describe, expect, it } from 'vitest';
import { fakeApi, ok } from './fakeApi';

describe('accounts', () => {
  beforeEach(() => localStorage.clear());

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
});
