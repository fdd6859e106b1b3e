import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createAccount } from '../support/factories';

const ME = '/api/v2/openapi/account/me';
const ACCOUNTS = '/api/v2/admin/accounts';
const TEST_KEY = 'published-test-key-0123456789';
const UPDATE = '/api/v2/openapi/account/update';
const ZONE_MESSAGE = 'timeZone must be an IANA time zone name such as Europe/Berlin or UTC';

describe('Accounts, roles and API keys', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ TEST_API_KEY: TEST_KEY });
  });
  afterAll(() => t.close());

  const accountTotal = async () => (await t.http().get(ACCOUNTS).set('x-api-key', ADMIN_KEY).expect(200)).body.data.total;

  it('should bootstrap an admin account from ADMIN_API_KEY', async () => {
    const me = (await t.http().get(ME).set('x-api-key', ADMIN_KEY).expect(200)).body;
    expect(me).toEqual({
      code: 0,
      message: 'success',
      data: {
        accountId: expect.stringMatching(/^[0-9a-z]{26}$/),
        name: 'admin',
        roles: ['admin'],
        createdAt: expect.any(Number),
        timeZone: 'UTC',
        nextTimeZone: null,
        timeZoneChangesAt: null,
        webhookSecret: expect.stringMatching(/^[0-9a-f]{64}$/),
        postbackToken: expect.stringMatching(/^pbt_[A-Za-z0-9_-]{32}$/),
      },
    });
  });

  it('should create an account with its first key, and list it', async () => {
    const before = await accountTotal();
    const created = await t
      .http()
      .post(ACCOUNTS)
      .set('x-api-key', ADMIN_KEY)
      .send({ name: 'Acme Games', roles: ['advertiser', 'publisher'], ignored: 'field' })
      .expect(200);
    expect(created.body).toEqual({
      code: 0,
      message: 'success',
      data: { accountId: expect.stringMatching(/^[0-9a-z]{26}$/), apiKey: expect.stringMatching(/^adn_[A-Za-z0-9_-]{43}$/) },
    });
    const { accountId, apiKey } = created.body.data;

    const me = (await t.http().get(ME).set('x-api-key', apiKey).expect(200)).body.data;
    expect(me).toEqual({
      accountId,
      name: 'Acme Games',
      roles: ['advertiser', 'publisher'],
      createdAt: expect.any(Number),
      timeZone: 'UTC',
      nextTimeZone: null,
      timeZoneChangesAt: null,
      webhookSecret: expect.stringMatching(/^[0-9a-f]{64}$/),
      postbackToken: expect.stringMatching(/^pbt_[A-Za-z0-9_-]{32}$/),
    });

    const list = (await t.http().get(ACCOUNTS).set('x-api-key', ADMIN_KEY).expect(200)).body.data;
    expect(list.total).toBe(before + 1);
    expect(list.accounts[0]).toEqual({
      accountId,
      name: 'Acme Games',
      roles: ['advertiser', 'publisher'],
      createdAt: me.createdAt,
      timeZone: 'UTC',
      nextTimeZone: null,
      timeZoneChangesAt: null,
    });
    const detail = (await t.http().get(`${ACCOUNTS}/${accountId}`).set('x-api-key', ADMIN_KEY).expect(200)).body.data;
    expect(detail).toEqual(list.accounts[0]);
  });

  it('should show the webhook secret to advertisers and publishers (it signs their viewer tokens), not to partners', async () => {
    const publisher = await createAccount(t, ['publisher']);
    const mine = (await t.http().get(ME).set('x-api-key', publisher.apiKey).expect(200)).body.data;
    expect(mine.roles).toEqual(['publisher']);
    expect(mine.webhookSecret).toMatch(/^[0-9a-f]{64}$/);
    const partner = await createAccount(t, ['partner']);
    const me = (await t.http().get(ME).set('x-api-key', partner.apiKey).expect(200)).body.data;
    expect(me.roles).toEqual(['partner']);
    expect(me).not.toHaveProperty('webhookSecret');
  });

  it.each([
    [{ roles: ['advertiser'] }, 'name', 'name is required'],
    [{ name: '', roles: ['advertiser'] }, 'name', 'name must not be empty'],
    [{ name: 'x'.repeat(201), roles: ['advertiser'] }, 'name', 'name must be at most 200 characters'],
    [{ name: 'A' }, 'roles', 'roles is required'],
    [{ name: 'A', roles: [] }, 'roles', 'roles must contain at least 1 elements'],
    [{ name: 'A', roles: 'advertiser' }, 'roles', 'roles must be an array'],
    [{ name: 'A', roles: ['advertiser', 'superuser'] }, 'roles', 'each value in roles must be one of advertiser, publisher, partner, admin'],
    [{ name: 'A', roles: ['advertiser'], timeZone: 'Mars/Olympus' }, 'timeZone', ZONE_MESSAGE],
    [{ name: 'A', roles: ['advertiser'], timeZone: '+09:00' }, 'timeZone', ZONE_MESSAGE],
    [{ name: 'A', roles: ['advertiser'], timeZone: 9 }, 'timeZone', ZONE_MESSAGE],
  ])('should refuse account body %j with 400 naming %s, storing nothing', async (body, field, message) => {
    const before = await accountTotal();
    const response = await t.http().post(ACCOUNTS).set('x-api-key', ADMIN_KEY).send(body).expect(400);
    expect(response.body.code).toBe(400);
    expect(response.body.data.errors).toContainEqual({ field, message });
    expect(await accountTotal()).toBe(before);
  });

  it('should issue several keys per account, list them without secrets, and revoke one', async () => {
    const { accountId, apiKey: first } = await createAccount(t, ['advertiser']);
    const issued = await t.http().post(`${ACCOUNTS}/${accountId}/keys`).set('x-api-key', ADMIN_KEY).send({ label: 'frontend' }).expect(200);
    const { keyId, apiKey: second } = issued.body.data;
    expect(second).not.toBe(first);
    await t.http().get(ME).set('x-api-key', second).expect(200);

    const keys = (await t.http().get(`${ACCOUNTS}/${accountId}/keys`).set('x-api-key', ADMIN_KEY).expect(200)).body.data.keys;
    expect(keys).toHaveLength(2);
    expect(keys[0]).toEqual({ keyId, scope: 'full', label: 'frontend', allowedOrigins: null, createdAt: expect.any(Number), revokedAt: null, active: true });
    expect(JSON.stringify(keys)).not.toContain(second);
    expect(JSON.stringify(keys)).not.toContain(first);

    await t
      .http()
      .post(`/api/v2/admin/keys/${keyId}/revoke`)
      .set('x-api-key', ADMIN_KEY)
      .expect(200, {
        code: 0,
        message: 'success',
        data: { result: 'success' },
      });
    const revoked = await t.http().get(ME).set('x-api-key', second).expect(401);
    expect(revoked.body).toEqual({ code: 401, message: 'x-api-key is not a valid key (unknown or revoked)', data: {} });
    await t.http().get(ME).set('x-api-key', first).expect(200);
    await t.http().post(`/api/v2/admin/keys/${keyId}/revoke`).set('x-api-key', ADMIN_KEY).expect(200);
    const after = (await t.http().get(`${ACCOUNTS}/${accountId}/keys`).set('x-api-key', ADMIN_KEY)).body.data.keys;
    expect(after[0].revokedAt).toEqual(expect.any(Number));
    expect(after[1].revokedAt).toBeNull();
  });

  it('should answer 401 for a missing or unknown key, in the envelope', async () => {
    expect((await t.http().get(ME).expect(401)).body).toEqual({ code: 401, message: 'x-api-key header is missing', data: {} });
    expect((await t.http().get(ME).set('x-api-key', 'adn_nope').expect(401)).body.code).toBe(401);
    expect((await t.http().get(ME).set('x-api-key', 'k'.repeat(500)).expect(401)).body.code).toBe(401);
  });

  it('should answer 403 when a non-admin calls the admin API, before looking at the body', async () => {
    const advertiser = await createAccount(t, ['advertiser']);
    const before = await accountTotal();
    const response = await t.http().post(ACCOUNTS).set('x-api-key', advertiser.apiKey).send({ name: 5 }).expect(403);
    expect(response.body).toEqual({ code: 403, message: "this key's account lacks the admin role", data: {} });
    await t.http().get(ACCOUNTS).set('x-api-key', advertiser.apiKey).expect(403);
    await t.http().post(`/api/v2/admin/keys/whatever/revoke`).set('x-api-key', advertiser.apiKey).expect(403);
    expect(await accountTotal()).toBe(before);
  });

  it('should answer 404 for unknown accounts and keys', async () => {
    const unknown = await t.http().post(`${ACCOUNTS}/01unknown/keys`).set('x-api-key', ADMIN_KEY).send({}).expect(404);
    expect(unknown.body).toEqual({
      code: 404,
      message: 'accountId: account not found',
      data: { errors: [{ field: 'accountId', message: 'account not found' }] },
    });
    await t.http().get(`${ACCOUNTS}/01unknown/keys`).set('x-api-key', ADMIN_KEY).expect(404);
    await t.http().post(`/api/v2/admin/keys/01unknown/revoke`).set('x-api-key', ADMIN_KEY).expect(404);
  });

  describe('time zones', () => {
    it('should create an account in a zone, canonicalised, and list it with it', async () => {
      const created = await t
        .http()
        .post(ACCOUNTS)
        .set('x-api-key', ADMIN_KEY)
        .send({ name: 'Tokyo Games', roles: ['advertiser'], timeZone: 'Asia/Tokyo' })
        .expect(200);
      const me = (await t.http().get(ME).set('x-api-key', created.body.data.apiKey).expect(200)).body.data;
      expect(me).toEqual(expect.objectContaining({ timeZone: 'Asia/Tokyo', nextTimeZone: null, timeZoneChangesAt: null }));
      const alias = await t
        .http()
        .post(ACCOUNTS)
        .set('x-api-key', ADMIN_KEY)
        .send({ name: 'NY', roles: ['advertiser'], timeZone: 'US/Eastern' })
        .expect(200);
      const detail = (await t.http().get(`${ACCOUNTS}/${alias.body.data.accountId}`).set('x-api-key', ADMIN_KEY).expect(200)).body.data;
      expect(detail.timeZone).toBe('America/New_York');
    });

    it('should apply a changed zone from the next local midnight of the zone in force, and cancel it on asking back', async () => {
      const created = await t
        .http()
        .post(ACCOUNTS)
        .set('x-api-key', ADMIN_KEY)
        .send({ name: 'Mover', roles: ['advertiser'], timeZone: 'Asia/Tokyo' })
        .expect(200);
      const key = created.body.data.apiKey;
      const before = Date.now();
      const changed = (await t.http().post(UPDATE).set('x-api-key', key).send({ timeZone: 'America/New_York' }).expect(200)).body.data;
      const after = Date.now();
      // Tokyo has no daylight saving: its midnight is 15:00 UTC, the first one after the request
      const midnightAfter = (ms: number) => Math.floor((ms - 15 * 3_600_000) / 86_400_000 + 1) * 86_400_000 + 15 * 3_600_000;
      expect([midnightAfter(before), midnightAfter(after)]).toContain(changed.timeZoneChangesAt);
      expect(changed).toEqual(expect.objectContaining({ accountId: created.body.data.accountId, timeZone: 'Asia/Tokyo', nextTimeZone: 'America/New_York' }));
      expect((await t.http().get(ME).set('x-api-key', key).expect(200)).body.data).toEqual(changed);

      const back = (await t.http().post(UPDATE).set('x-api-key', key).send({ timeZone: 'Asia/Tokyo' }).expect(200)).body.data;
      expect(back).toEqual(expect.objectContaining({ timeZone: 'Asia/Tokyo', nextTimeZone: null, timeZoneChangesAt: null }));
    });

    it.each([
      [{}, 'timeZone is required'],
      [{ timeZone: 'Mars/Olympus' }, ZONE_MESSAGE],
      [{ timeZone: 'EST' }, ZONE_MESSAGE],
      [{ timeZone: ['UTC'] }, ZONE_MESSAGE],
    ])('should refuse account/update %j with 400 naming timeZone, changing nothing', async (body, message) => {
      const account = await createAccount(t, ['advertiser']);
      const response = await t.http().post(UPDATE).set('x-api-key', account.apiKey).send(body).expect(400);
      expect(response.body.data.errors).toContainEqual({ field: 'timeZone', message });
      const me = (await t.http().get(ME).set('x-api-key', account.apiKey).expect(200)).body.data;
      expect(me).toEqual(expect.objectContaining({ timeZone: 'UTC', nextTimeZone: null, timeZoneChangesAt: null }));
    });

    it('should refuse account/update from a serve key', async () => {
      const account = await createAccount(t, ['publisher']);
      const serve = await t.http().post('/api/v2/openapi/account/keys').set('x-api-key', account.apiKey).send({ scope: 'serve' }).expect(200);
      await t.http().post(UPDATE).set('x-api-key', serve.body.data.apiKey).send({ timeZone: 'Asia/Tokyo' }).expect(403);
      expect((await t.http().get(ME).set('x-api-key', account.apiKey).expect(200)).body.data.timeZone).toBe('UTC');
    });
  });

  it('should refuse the published test key outside the test environment', async () => {
    await t.http().get(ME).set('x-api-key', TEST_KEY).expect(401);
  });
});

describe('Test environment (APP_ENV=test)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ APP_ENV: 'test', TEST_API_KEY: TEST_KEY });
  });
  afterAll(() => t.close());

  it('should accept TEST_API_KEY on a sandbox account holding the integration roles', async () => {
    const me = (await t.http().get(ME).set('x-api-key', TEST_KEY).expect(200)).body.data;
    expect(me).toEqual(expect.objectContaining({ name: 'sandbox', roles: ['advertiser', 'publisher', 'partner'] }));
    await t.http().get('/api/v2/openapi/ad/campaign/list').set('x-api-key', TEST_KEY).expect(200);
    await t.http().get(ACCOUNTS).set('x-api-key', TEST_KEY).expect(403);
  });
});
