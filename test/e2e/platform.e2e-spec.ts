import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { CampaignsService } from '../../src/campaigns/campaigns.service';
import { ProfilesService } from '../../src/profiles/profiles.service';
import { ServingService } from '../../src/serving/serving.service';
import { fetchAds } from '../support/serving-fixtures';
import { postBatch } from '../support/profile-helpers';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { TEST_PROFILE } from '../support/profile';
import { createAdBlock, createAccount, campaignBody } from '../support/factories';

const CREATE = '/api/v2/openapi/ad/campaign/create';

describe('HTTP platform: envelope, errors, docs, health, CORS', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ BODY_LIMIT: '20000' });
  });
  afterAll(() => t.close());

  const campaignCount = async () => (await t.http().get('/api/v2/openapi/ad/campaign/list').set('x-api-key', ADMIN_KEY).expect(200)).body.data.total;

  it('should report health with the database (and Redis on the MySQL profile) up', async () => {
    const response = await t.http().get('/health').expect(200);
    expect(response.body).toEqual({
      code: 0,
      message: 'success',
      data: { status: 'ok', database: 'up', redis: TEST_PROFILE === 'mysql' ? 'up' : 'not configured' },
    });
  });

  it('should answer readiness 200 while this process can serve', async () => {
    const response = await t.http().get('/health/ready').expect(200);
    expect(response.body).toEqual({
      code: 0,
      message: 'success',
      data: { ready: true, database: 'up', redis: TEST_PROFILE === 'mysql' ? 'up' : 'not configured', closing: false },
    });
  });

  it('should serve Swagger UI and a JSON document covering every route with the x-api-key scheme', async () => {
    await t.http().get('/docs').expect(200).expect('content-type', /html/);
    const doc = (await t.http().get('/docs-json').expect(200)).body;
    expect(doc.components.securitySchemes['x-api-key']).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-api-key' }));
    for (const path of [
      '/api/v2/openapi/ad/campaign/create',
      '/api/v2/openapi/ad/campaign/status',
      '/api/v2/openapi/ad/campaign/list',
      '/api/v2/openapi/ad/campaign/detail',
      '/api/v2/openapi/ad/campaign/update',
      '/api/v2/openapi/account/me',
      '/api/v2/admin/accounts',
      '/api/v2/admin/keys/{keyId}/revoke',
      '/health',
      '/health/ready',
    ]) {
      expect(doc.paths[path]).toBeDefined();
    }
    const create = doc.paths['/api/v2/openapi/ad/campaign/create'].post;
    expect(create.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/CampaignCreateDto');
    expect(create.responses['200'].content['application/json'].schema.properties.data.$ref).toBe('#/components/schemas/CampaignCreatedDto');
    expect(create.responses['400'].content['application/json'].schema.$ref).toBe('#/components/schemas/ErrorEnvelopeDto');
    expect(create.security).toEqual([{ 'x-api-key': [] }]);
    // each failure status shows an answer of its own status, as the service words it
    const exampleOf = (status: string) => create.responses[status].content['application/json'].example;
    expect(exampleOf('400')).toMatchObject({ code: 400, data: { errors: [{ field: 'budget.amount' }] } });
    expect(exampleOf('401')).toEqual({ code: 401, message: 'x-api-key is not a valid key (unknown or revoked)', data: {} });
    expect(exampleOf('403')).toEqual({ code: 403, message: "this key's account lacks the advertiser role", data: {} });
    expect(exampleOf('429')).toEqual({ code: 429, message: 'rate limit exceeded, retry after 1 s', data: {} });
    for (const operation of Object.values(doc.paths).flatMap((methods) => Object.values(methods as Record<string, { responses: object }>))) {
      for (const [status, response] of Object.entries(operation.responses as Record<string, { content?: Record<string, { example?: { code: number } }> }>)) {
        const example = response.content?.['application/json']?.example;
        if (Number(status) >= 400 && example) expect({ status, code: example.code }).toEqual({ status, code: Number(status) });
      }
    }
    const budget = doc.components.schemas.BudgetDto;
    expect(budget.required).toEqual(expect.arrayContaining(['amount', 'total', 'strategy', 'startTime', 'endTime']));
    expect(doc.info.description).toContain('x-api-key');
  });

  it('should answer unknown routes and wrong methods with a 404 envelope', async () => {
    expect((await t.http().get('/api/v2/openapi/nothing').expect(404)).body).toEqual({
      code: 404,
      message: 'no route GET /api/v2/openapi/nothing',
      data: {},
    });
    const wrongMethod = await t.http().get(CREATE).set('x-api-key', ADMIN_KEY).expect(404);
    expect(wrongMethod.body.code).toBe(404);
  });

  it('should answer malformed JSON with 400 after the key check, and store nothing', async () => {
    await t.http().post(CREATE).set('content-type', 'application/json').send('{"name":').expect(401);
    const response = await t.http().post(CREATE).set('x-api-key', ADMIN_KEY).set('content-type', 'application/json').send('{"name":').expect(400);
    expect(response.body).toEqual({
      code: 400,
      message: 'body is not valid JSON',
      data: { errors: [{ field: 'body', message: 'body is not valid JSON' }] },
    });
    expect(await campaignCount()).toBe(0);
  });

  it('should refuse prototype-poisoning JSON as malformed', async () => {
    const response = await t
      .http()
      .post(CREATE)
      .set('x-api-key', ADMIN_KEY)
      .set('content-type', 'application/json')
      .send('{"__proto__": {"polluted": true}}')
      .expect(400);
    expect(response.body.data.errors[0].field).toBe('body');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('should answer an empty body and a JSON array with 400 naming the body', async () => {
    const empty = await t.http().post(CREATE).set('x-api-key', ADMIN_KEY).set('content-type', 'application/json').send('');
    expect(empty.status).toBe(400);
    expect(empty.body.data.errors).toEqual([{ field: 'body', message: 'body must be a JSON object' }]);
    const array = await t.http().post(CREATE).set('x-api-key', ADMIN_KEY).send([1, 2]).expect(400);
    expect(array.body.message).toBe('body must be a JSON object');
  });

  it('should answer a body over BODY_LIMIT with 413 in the envelope', async () => {
    const body = campaignBody({ ad: { text: 'x'.repeat(30_000) } });
    const response = await t.http().post(CREATE).set('x-api-key', ADMIN_KEY).send(body).expect(413);
    expect(response.body).toEqual({ code: 413, message: 'request body too large', data: {} });
    expect(await campaignCount()).toBe(0);
  });

  it('should answer an unsupported content type with a 4xx envelope', async () => {
    const response = await t.http().post(CREATE).set('x-api-key', ADMIN_KEY).set('content-type', 'application/xml').send('<campaign/>');
    expect(response.status).toBe(415);
    expect(response.body.code).toBe(415);
  });

  it('should answer CORS preflight for browser callers with the headers they send', async () => {
    const response = await t
      .http()
      .options('/api/v2/openapi/ad/campaign/list')
      .set('origin', 'https://miniapp.example.com')
      .set('access-control-request-method', 'GET')
      .set('access-control-request-headers', 'x-api-key,debug,content-type')
      .expect(204);
    expect(response.headers['access-control-allow-origin']).toBe('https://miniapp.example.com');
    expect(response.headers['access-control-allow-headers']).toMatch(/x-api-key/);
    expect(response.headers['access-control-allow-headers']).toMatch(/debug/);
  });

  it('should expose the request id to browsers on normal answers, errors included', async () => {
    const ok = await t.http().get('/health').set('origin', 'https://miniapp.example.com').expect(200);
    expect(ok.headers['access-control-allow-origin']).toBe('https://miniapp.example.com');
    expect(ok.headers['access-control-expose-headers']).toMatch(/x-request-id/);
    const denied = await t.http().get('/api/v2/openapi/account/me').set('origin', 'https://miniapp.example.com').expect(401);
    expect(denied.headers['access-control-allow-origin']).toBe('https://miniapp.example.com');
    const noOrigin = await t.http().get('/health').expect(200);
    expect(noOrigin.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('should allow only the configured origins when CORS_ORIGINS is set', async () => {
    const restricted = await startTestApp({ CORS_ORIGINS: 'https://app.example.com,https://admin.example.com' }, { dropSchema: false });
    try {
      const preflight = (origin: string) =>
        restricted
          .http()
          .options('/api/v2/openapi/matching/ad')
          .set('origin', origin)
          .set('access-control-request-method', 'GET')
          .set('access-control-request-headers', 'x-api-key');
      const allowed = await preflight('https://admin.example.com').expect(204);
      expect(allowed.headers['access-control-allow-origin']).toBe('https://admin.example.com');
      expect(allowed.headers['access-control-allow-methods']).toMatch(/GET/);
      const refused = await preflight('https://evil.example.com');
      expect(refused.headers['access-control-allow-origin']).toBeUndefined();
      const get = await restricted.http().get('/health').set('origin', 'https://evil.example.com').expect(200);
      expect(get.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await restricted.close();
    }
  });

  it('should echo a request id and never log the API key', async () => {
    const response = await t.http().get('/api/v2/openapi/account/me').set('x-api-key', ADMIN_KEY).set('x-request-id', 'trace-abc-123').expect(200);
    expect(response.headers['x-request-id']).toBe('trace-abc-123');
    const line = t.logs.map((entry) => JSON.parse(entry)).find((entry) => entry.reqId === 'trace-abc-123');
    expect(line).toEqual(expect.objectContaining({ msg: 'request', path: '/api/v2/openapi/account/me', status: 200 }));
    expect(t.logs.join('\n')).not.toContain(ADMIN_KEY);
    const generated = await t.http().get('/health').expect(200);
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('should redirect /admin to the admin panel at /admin/', async () => {
    const response = await t.http().get('/admin').expect(302);
    expect(response.headers.location).toBe('/admin/');
    await t.http().get('/admin/').expect(200).expect('content-type', /html/);
  });
});

describe('HTTP platform: rate limit and internal errors', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_SECOND: '3' });
  });
  afterAll(() => t.close());

  it('should answer 429 with Retry-After once a key passes its per-second budget', async () => {
    // Ten at once: even split over two one-second windows, one of them gets more than 3 (the files run side by side,
    // so requests one after another could each land in a window of their own).
    const responses = await Promise.all(Array.from({ length: 10 }, () => t.http().get('/api/v2/openapi/account/me').set('x-api-key', ADMIN_KEY)));
    const statuses = responses.map((response) => response.status);
    const limited = responses.find((response) => response.status === 429);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(1);
    expect(statuses.filter((status) => status !== 429 && status !== 200)).toEqual([]);
    expect(limited!.headers['retry-after']).toBe('1');
    expect(limited!.body).toEqual({ code: 429, message: 'rate limit exceeded, retry after 1 s', data: { retryAfter: 1 } });
  });

  it('should answer a failure deep inside with a 500 envelope that reveals no SQL or stack', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const dataSource = t.app.get(require('typeorm').DataSource);
    await dataSource.query('DROP TABLE campaigns');
    const response = await t.http().get('/api/v2/openapi/ad/campaign/list').set('x-api-key', ADMIN_KEY).expect(500);
    expect(response.body).toEqual({ code: 500, message: 'internal error', data: {} });
    expect(JSON.stringify(response.body)).not.toMatch(/campaigns|SELECT|at /);
    const logged = t.logs.map((entry) => JSON.parse(entry)).find((entry) => entry.msg === 'request failed');
    expect(logged).toBeDefined();
  });
});

describe('HTTP platform: abuse limits (per-key rate, query size, slow requests, stuck handlers)', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_SECOND: '5', REQUEST_TIMEOUT_MS: '400', HANDLER_TIMEOUT_MS: '1000', MAX_QUERY_BYTES: '512' });
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  /** Sends raw bytes and answers everything the server writes until it closes the connection. */
  const rawExchange = (bytes: string, holdOpenMs = 0) =>
    new Promise<{ text: string; closedAfterMs: number }>((resolve, reject) => {
      const started = Date.now();
      const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('utf8')));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve({ text, closedAfterMs: Date.now() - started }));
      setTimeout(() => reject(new Error(`connection still open after ${holdOpenMs + 10_000} ms`)), holdOpenMs + 10_000).unref();
    });
  const envelopeOf = (raw: string) => JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));

  it("should limit each key on its own: one key's 429 leaves another key's budget whole", async () => {
    const other = await createAccount(t, ['advertiser'], 'second tenant');
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 20));
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await t.http().get('/api/v2/openapi/account/me').set('x-api-key', ADMIN_KEY)).status);
    const limited = await t.http().get('/api/v2/openapi/account/me').set('x-api-key', ADMIN_KEY);
    const otherKey = await t.http().get('/api/v2/openapi/account/me').set('x-api-key', other.apiKey);
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('1');
    expect(otherKey.status).toBe(200);
  });

  it('should answer a query string over MAX_QUERY_BYTES with 414 in the envelope, before any work', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const response = await t
      .http()
      .get(`/api/v2/openapi/ad/campaign/list?current=1&pageSize=10&pad=${'x'.repeat(600)}`)
      .set('x-api-key', ADMIN_KEY)
      .expect(414);
    expect(response.body).toEqual({ code: 414, message: 'query string longer than 512 bytes', data: {} });
    await t
      .http()
      .get(`/api/v2/openapi/ad/campaign/list?current=1&pageSize=10&pad=${'x'.repeat(400)}`)
      .set('x-api-key', ADMIN_KEY)
      .expect(200);
  });

  it('should answer headers over the HTTP limit with 431 in the envelope and close the connection', async () => {
    const { text } = await rawExchange(`GET /health HTTP/1.1\r\nHost: x\r\nx-pad: ${'y'.repeat(20_000)}\r\n\r\n`);
    expect(text).toMatch(/^HTTP\/1\.1 431 /);
    expect(envelopeOf(text)).toEqual({ code: 431, message: 'request headers (URL included) too large', data: {} });
  });

  it('should answer a body that trickles in slower than REQUEST_TIMEOUT_MS with 408 and store nothing', async () => {
    const before = await t.http().get('/api/v2/openapi/ad/campaign/list').set('x-api-key', ADMIN_KEY).expect(200);
    const body = JSON.stringify(campaignBody());
    const { text, closedAfterMs } = await rawExchange(
      `POST ${CREATE} HTTP/1.1\r\nHost: x\r\nx-api-key: ${ADMIN_KEY}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(envelopeOf(text)).toEqual({ code: 408, message: 'request not received in time', data: {} });
    expect(closedAfterMs).toBeGreaterThanOrEqual(350);
    const after = await t.http().get('/api/v2/openapi/ad/campaign/list').set('x-api-key', ADMIN_KEY).expect(200);
    expect(after.body.data.total).toBe(before.body.data.total);
  });

  it('should answer 503 in the envelope when a handler is stuck past HANDLER_TIMEOUT_MS, and serve the next request', async () => {
    const campaigns = t.app.get(CampaignsService);
    const stuck = jest.spyOn(campaigns, 'list').mockImplementationOnce(() => new Promise((resolve) => setTimeout(() => resolve([[], 0]), 3000)));
    const started = Date.now();
    const response = await t.http().get('/api/v2/openapi/ad/campaign/list').set('x-api-key', ADMIN_KEY).expect(503);
    expect(Date.now() - started).toBeLessThan(2500);
    expect(response.body).toEqual({ code: 503, message: 'request timed out; retry later', data: {} });
    stuck.mockRestore();
    await t.http().get('/api/v2/openapi/ad/campaign/list').set('x-api-key', ADMIN_KEY).expect(200);
  });
});

describe('HTTP platform: big uploads keep only the request deadline', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ HANDLER_TIMEOUT_MS: '300' });
  });
  afterAll(() => t.close());

  it('should let a profile batch take longer than HANDLER_TIMEOUT_MS, while a campaign list may not', async () => {
    const publisher = await createAccount(t, ['publisher']);
    const profiles = t.app.get(ProfilesService);
    const slowAccept = profiles.accept.bind(profiles);
    jest.spyOn(profiles, 'accept').mockImplementationOnce(async (...args) => {
      await new Promise((resolve) => setTimeout(resolve, 800));
      return slowAccept(...args);
    });
    const response = await postBatch(t, publisher.apiKey, [
      { messengerUserId: 'slow-1', ipAddress: '8.8.8.8', walletAddress: 'EQD4FPq', walletClassify: 'primary' },
    ]).expect(200);
    expect(response.body.data.batchId).toEqual(expect.any(String));
    const campaigns = t.app.get(CampaignsService);
    jest.spyOn(campaigns, 'list').mockImplementationOnce(() => new Promise((resolve) => setTimeout(() => resolve([[], 0]), 800)));
    await t.http().get('/api/v2/openapi/ad/campaign/list').set('x-api-key', ADMIN_KEY).expect(503);
  });

  it('should keep the ad path free of the handler deadline (it is bounded by Redis retries instead)', async () => {
    const publisher = await createAccount(t, ['publisher']);
    const block = await createAdBlock(t, publisher.apiKey);
    const serving = t.app.get(ServingService);
    const fetch = serving.fetchAds.bind(serving);
    jest.spyOn(serving, 'fetchAds').mockImplementationOnce(async (...args) => {
      await new Promise((resolve) => setTimeout(resolve, 800));
      return fetch(...args);
    });
    expect(await fetchAds(t, publisher.apiKey, block, 'deadline-user')).toEqual([]);
  });
});
