import { beforeEach, describe, expect, it } from 'vitest';
import { fakeApi, ok } from './fakeApi';
import { keyBody, parseOrigins, servingSnippet } from './keys';

describe('keys', () => {
  beforeEach(() => localStorage.clear());

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
});
