import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AccountsService } from '../../src/accounts/accounts.service';
import { TEST_PROFILE } from '../support/profile';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { expectValidationError, UNKNOWN_ID } from '../support/serving-fixtures';
import { createAccount, createAdBlock } from '../support/factories';

const KEYS = '/api/v2/openapi/account/keys';
const REVOKE = '/api/v2/openapi/account/keys/revoke';
const ME = '/api/v2/openapi/account/me';
const FETCH = '/api/v2/openapi/matching/ad';
const SERVE_KEY_MESSAGE =
  'this key is a publishable (serve) key: it may only fetch ads and report clicks (matching/ad, ad/event/report, matching/exchange, exchange/event/report); use a full key';

/** Self-service keys (`/account/keys`) and the admin API's key scopes: what is stored and answered, and bad input. */
describe('Account keys: scopes, labels, allowed origins', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const keyRows = async (accountId: string): Promise<number> => {
    const rows: { n: number | string }[] = await t.app.get(DataSource).query('SELECT COUNT(*) AS n FROM api_keys WHERE accountId = ?', [accountId]);
    return Number(rows[0].n);
  };
  const listKeys = async (apiKey: string) => (await t.http().get(KEYS).set('x-api-key', apiKey).expect(200)).body.data.keys;

  it('should issue a publishable key with label and origins, list it without secrets, and let it fetch ads', async () => {
    const publisher = await createAccount(t, ['publisher'], 'Self-service publisher');
    const block = await createAdBlock(t, publisher.apiKey, 'Widget block');
    const issued = await t
      .http()
      .post(KEYS)
      .set('x-api-key', publisher.apiKey)
      .send({ scope: 'serve', label: 'landing widget', allowedOrigins: ['https://app.example.com', 'http://localhost:5173'], extra: 'ignored' })
      .expect(200);
    expect(issued.body).toEqual({
      code: 0,
      message: 'success',
      data: { keyId: expect.stringMatching(/^[0-9a-z]{26}$/), apiKey: expect.stringMatching(/^adn_[A-Za-z0-9_-]{43}$/), scope: 'serve' },
    });
    const { keyId, apiKey } = issued.body.data;

    const keys = await listKeys(publisher.apiKey);
    expect(keys).toEqual([
      {
        keyId,
        scope: 'serve',
        label: 'landing widget',
        allowedOrigins: ['https://app.example.com', 'http://localhost:5173'],
        createdAt: expect.any(Number),
        revokedAt: null,
        active: true,
      },
      { keyId: expect.any(String), scope: 'full', label: 'first key', allowedOrigins: null, createdAt: expect.any(Number), revokedAt: null, active: true },
    ]);
    expect(JSON.stringify(keys)).not.toContain(apiKey.slice(4, 12));
    expect(JSON.stringify(keys)).not.toContain(publisher.apiKey.slice(4, 12));

    const fetched = await t
      .http()
      .get(FETCH)
      .query({ adBlockId: block, openId: 'u1', type: 'messenger', limit: 1 })
      .set('x-api-key', apiKey)
      .set('origin', 'https://app.example.com')
      .expect(200);
    expect(fetched.body).toEqual({ code: 0, message: 'success', data: { msg: expect.any(String), success: true, ads: [] } });
  });

  it('should issue a full key by default', async () => {
    const advertiser = await createAccount(t, ['advertiser'], 'Default scope');
    const issued = await t.http().post(KEYS).set('x-api-key', advertiser.apiKey).send({}).expect(200);
    expect(issued.body.data.scope).toBe('full');
    await t.http().get(ME).set('x-api-key', issued.body.data.apiKey).expect(200);
    const keys = await listKeys(advertiser.apiKey);
    expect(keys[0]).toEqual({
      keyId: issued.body.data.keyId,
      scope: 'full',
      label: '',
      allowedOrigins: null,
      createdAt: expect.any(Number),
      revokedAt: null,
      active: true,
    });
  });

  it.each([
    ['scope', { scope: 'admin' }],
    ['scope', { scope: 42 }],
    ['label', { label: 'l'.repeat(101) }],
    ['label', { label: 7 }],
    ['allowedOrigins', { allowedOrigins: 'https://app.example.com' }],
    ['allowedOrigins', { allowedOrigins: ['https://app.example.com/path'] }],
    ['allowedOrigins', { allowedOrigins: ['https://app.example.com/'] }],
    ['allowedOrigins', { allowedOrigins: ['app.example.com'] }],
    ['allowedOrigins', { allowedOrigins: ['ftp://app.example.com'] }],
    ['allowedOrigins', { allowedOrigins: ['*'] }],
    ['allowedOrigins', { allowedOrigins: [42] }],
    ['allowedOrigins', { allowedOrigins: Array.from({ length: 21 }, (_, i) => `https://a${i}.example.com`) }],
  ])('should refuse a bad %s (%j) with 400 naming it, storing no key', async (field, body) => {
    const account = await createAccount(t, ['publisher'], 'Bad input');
    const before = await keyRows(account.accountId);
    expectValidationError(await t.http().post(KEYS).set('x-api-key', account.apiKey).send(body), field);
    expectValidationError(await t.http().post(`/api/v2/admin/accounts/${account.accountId}/keys`).set('x-api-key', ADMIN_KEY).send(body), field);
    expect(await keyRows(account.accountId)).toBe(before);
  });

  it('should accept 20 origins with ports and IPv6 literals', async () => {
    const account = await createAccount(t, ['publisher'], 'Many origins');
    const origins = [...Array.from({ length: 18 }, (_, i) => `https://a${i}.example.com`), 'http://localhost:8080', 'http://[::1]:3000'];
    await t.http().post(KEYS).set('x-api-key', account.apiKey).send({ scope: 'serve', allowedOrigins: origins }).expect(200);
    expect((await listKeys(account.apiKey))[0].allowedOrigins).toEqual(origins);
  });

  it("should revoke one of the account's keys at once (cached or not), and answer 404 for another account's key as for an unknown one", async () => {
    const owner = await createAccount(t, ['publisher'], 'Revoker');
    const other = await createAccount(t, ['publisher'], 'Other');
    const second = (await t.http().post(KEYS).set('x-api-key', owner.apiKey).send({ scope: 'serve' }).expect(200)).body.data;
    const othersKey = (await t.http().post(KEYS).set('x-api-key', other.apiKey).send({}).expect(200)).body.data;
    // cached by a first use
    await t.http().get(FETCH).query({ adBlockId: UNKNOWN_ID, openId: 'u', type: 'messenger', limit: 1 }).set('x-api-key', second.apiKey).expect(404);
    expect(t.app.get(AccountsService).cachedPrincipal(second.apiKey)?.scope).toBe('serve');

    const foreign = await t.http().post(REVOKE).set('x-api-key', owner.apiKey).send({ keyId: othersKey.keyId }).expect(404);
    const unknown = await t.http().post(REVOKE).set('x-api-key', owner.apiKey).send({ keyId: UNKNOWN_ID }).expect(404);
    expect(foreign.body).toEqual({ code: 404, message: 'keyId: key not found', data: { errors: [{ field: 'keyId', message: 'key not found' }] } });
    expect(unknown.body).toEqual(foreign.body);
    await t.http().get(ME).set('x-api-key', othersKey.apiKey).expect(200);

    await t
      .http()
      .post(REVOKE)
      .set('x-api-key', owner.apiKey)
      .send({ keyId: second.keyId })
      .expect(200, { code: 0, message: 'success', data: { result: 'success' } });
    const refused = await t
      .http()
      .get(FETCH)
      .query({ adBlockId: UNKNOWN_ID, openId: 'u', type: 'messenger', limit: 1 })
      .set('x-api-key', second.apiKey)
      .expect(401);
    expect(refused.body).toEqual({ code: 401, message: 'x-api-key is not a valid key (unknown or revoked)', data: {} });
    // idempotent
    await t.http().post(REVOKE).set('x-api-key', owner.apiKey).send({ keyId: second.keyId }).expect(200);
    const keys = await listKeys(owner.apiKey);
    expect(keys.find((key: { keyId: string }) => key.keyId === second.keyId)).toEqual(
      expect.objectContaining({ revokedAt: expect.any(Number), active: false }),
    );
  });

  it.each([
    [{}, 'keyId'],
    [{ keyId: 42 }, 'keyId'],
    [{ keyId: '' }, 'keyId'],
    [{ keyId: 'k'.repeat(65) }, 'keyId'],
  ])('should refuse the revocation body %j with 400 naming %s, revoking nothing', async (body, field) => {
    const owner = await createAccount(t, ['advertiser'], 'Bad revoker');
    expectValidationError(await t.http().post(REVOKE).set('x-api-key', owner.apiKey).send(body), field);
    expect((await listKeys(owner.apiKey)).every((key: { active: boolean }) => key.active)).toBe(true);
  });

  it('should answer 403 to a serve key on every key-management route, before reading the body', async () => {
    const owner = await createAccount(t, ['publisher'], 'Serve cannot manage');
    const serve = (await t.http().post(KEYS).set('x-api-key', owner.apiKey).send({ scope: 'serve' }).expect(200)).body.data;
    const before = await keyRows(owner.accountId);
    for (const call of [
      t.http().get(KEYS).set('x-api-key', serve.apiKey),
      t.http().post(KEYS).set('x-api-key', serve.apiKey).send({ scope: 'full' }),
      t.http().post(KEYS).set('x-api-key', serve.apiKey).set('content-type', 'application/json').send('{"scope":'),
      t.http().post(REVOKE).set('x-api-key', serve.apiKey).send({ keyId: serve.keyId }),
      t.http().get(ME).set('x-api-key', serve.apiKey),
    ]) {
      const response = await call;
      expect({ status: response.status, body: response.body }).toEqual({ status: 403, body: { code: 403, message: SERVE_KEY_MESSAGE, data: {} } });
    }
    expect(await keyRows(owner.accountId)).toBe(before);
    expect((await listKeys(owner.apiKey)).every((key: { active: boolean }) => key.active)).toBe(true);
  });

  it('should let the admin API issue keys with a scope, label and origins, and list them', async () => {
    const partner = await createAccount(t, ['partner'], 'Admin-issued');
    const issued = await t
      .http()
      .post(`/api/v2/admin/accounts/${partner.accountId}/keys`)
      .set('x-api-key', ADMIN_KEY)
      .send({ scope: 'serve', label: 'exchange widget', allowedOrigins: ['https://partner.example.com'] })
      .expect(200);
    expect(issued.body.data).toEqual({ keyId: expect.any(String), apiKey: expect.stringMatching(/^adn_/), scope: 'serve' });
    const keys = (await t.http().get(`/api/v2/admin/accounts/${partner.accountId}/keys`).set('x-api-key', ADMIN_KEY).expect(200)).body.data.keys;
    expect(keys[0]).toEqual({
      keyId: issued.body.data.keyId,
      scope: 'serve',
      label: 'exchange widget',
      allowedOrigins: ['https://partner.example.com'],
      createdAt: expect.any(Number),
      revokedAt: null,
      active: true,
    });
    expect(await listKeys(partner.apiKey)).toEqual(keys);
  });
});

describe('Account keys of the published test key', () => {
  const TEST_KEY = 'published-test-key-0123456789';
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ APP_ENV: 'test', TEST_API_KEY: TEST_KEY });
  });
  afterAll(() => t.close());

  it('should not let the sandbox key issue, list or revoke keys (anyone holds it)', async () => {
    const me = (await t.http().get(ME).set('x-api-key', TEST_KEY).expect(200)).body.data;
    const before = Number((await t.app.get(DataSource).query('SELECT COUNT(*) AS n FROM api_keys WHERE accountId = ?', [me.accountId]))[0].n);
    const sandboxKeys = (await t.http().get(`/api/v2/admin/accounts/${me.accountId}/keys`).set('x-api-key', ADMIN_KEY).expect(200)).body.data.keys;
    for (const call of [
      t.http().post(KEYS).set('x-api-key', TEST_KEY).send({ scope: 'full' }),
      t.http().get(KEYS).set('x-api-key', TEST_KEY),
      t.http().post(REVOKE).set('x-api-key', TEST_KEY).send({ keyId: sandboxKeys[0].keyId }),
    ]) {
      const response = await call;
      expect({ status: response.status, body: response.body }).toEqual({
        status: 403,
        body: { code: 403, message: 'the published test key (TEST_API_KEY) cannot manage keys', data: {} },
      });
    }
    expect(Number((await t.app.get(DataSource).query('SELECT COUNT(*) AS n FROM api_keys WHERE accountId = ?', [me.accountId]))[0].n)).toBe(before);
    await t.http().get(ME).set('x-api-key', TEST_KEY).expect(200);
  });
});

/** Two server processes on one database and Redis: a revocation in one reaches the other's key cache at once. */
(TEST_PROFILE === 'mysql' ? describe : describe.skip)('Key revocation across processes (MySQL + Redis)', () => {
  let first: TestApp;
  let second: TestApp;
  beforeAll(async () => {
    // a key cache far longer than the test: only the change notice can make the second process forget the key
    const shared = { REDIS_PREFIX: `adnet-e2e:keys-${randomBytes(4).toString('hex')}:`, KEY_CACHE_TTL_MS: '600000' };
    first = await startTestApp(shared);
    second = await startTestApp(shared, { dropSchema: false });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('should refuse a key in the other process as soon as it is revoked', async () => {
    const owner = await createAccount(first, ['publisher'], 'Two processes');
    const serve = (await first.http().post(KEYS).set('x-api-key', owner.apiKey).send({ scope: 'serve' }).expect(200)).body.data;
    const fetch = (t: TestApp) => t.http().get(FETCH).query({ adBlockId: UNKNOWN_ID, openId: 'u', type: 'messenger', limit: 1 }).set('x-api-key', serve.apiKey);
    await fetch(second).expect(404);
    expect(second.app.get(AccountsService).cachedPrincipal(serve.apiKey)?.keyId).toBe(serve.keyId);

    await first.http().post(REVOKE).set('x-api-key', owner.apiKey).send({ keyId: serve.keyId }).expect(200);
    const deadline = Date.now() + 2000;
    while (second.app.get(AccountsService).cachedPrincipal(serve.apiKey) !== undefined && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await fetch(second).expect(401);
    await fetch(first).expect(401);
  });
});
