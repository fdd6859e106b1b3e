import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { AccountsService } from '../../../src/accounts/accounts.service';
import { TEST_PROFILE } from '../../support/profile';
import { CLICK, FETCH, IP, refreshIndex } from '../../support/serving-helpers';
import { createServable, endAllCampaigns, flushedCampaign, newUser } from '../../support/serving-fixtures';
import { BROWSER_USER_AGENT, startTestApp, TestApp } from '../../support/test-app';
import { createAdBlock, openCampaign, createAccount } from '../../support/factories';

/**
 * Attacks on the edge when a publisher's key is public (it ships in a frontend): what a `serve` key can reach, what
 * foreign origins get, unauthenticated floods (big bodies, unknown keys), one audience behind one key, and the
 * bootstrap admin key. See docs/TRUST_AND_SAFETY.md.
 */
const KEYS = '/api/v2/openapi/account/keys';
const SERVE_KEY_MESSAGE =
  'this key is a publishable (serve) key: it may only fetch ads and report clicks (matching/ad, ad/event/report, matching/exchange, exchange/event/report); use a full key';
const MiB = 1024 * 1024;
// floods of a few hundred requests, and app restarts: far longer than the default 5 s on a busy machine
jest.setTimeout(60_000);

type Account = { accountId: string; apiKey: string };

async function issueKey(t: TestApp, apiKey: string, body: object): Promise<{ keyId: string; apiKey: string }> {
  return (await t.http().post(KEYS).set('x-api-key', apiKey).send(body).expect(200)).body.data;
}

/** Waits for the start of the next wall-clock second, so a burst shares one rate-limit window. */
async function nextSecond(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 5));
}

async function count(t: TestApp, sql: string, params: unknown[] = []): Promise<number> {
  const rows: { n: number | string }[] = await t.app.get(DataSource).query(sql, params);
  return Number(rows[0].n);
}

describe('abuse: a publishable (serve) key and allowed origins', () => {
  let t: TestApp;
  let publisher: Account;
  let both: Account;
  let block: string;
  let campaignId: string;
  let serveKey: string;

  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: 'true' });
    await endAllCampaigns(t);
    publisher = await createAccount(t, ['publisher'], 'Public-key publisher');
    both = await createAccount(t, ['advertiser', 'publisher'], 'Advertiser and publisher');
    const advertiser = await createAccount(t, ['advertiser'], 'Serve advertiser');
    block = await createAdBlock(t, publisher.apiKey, 'Widget block');
    campaignId = await createServable(t, advertiser.apiKey, openCampaign({ bidding: { billingType: 'CPC', costPer: 1 } }));
    await refreshIndex(t);
    serveKey = (await issueKey(t, publisher.apiKey, { scope: 'serve', label: 'frontend' })).apiKey;
  });
  afterAll(() => t.close());

  const fetchAd = (key: string, user: string, origin?: string) => {
    const call = t.http().get(FETCH).query({ adBlockId: block, openId: user, type: 'messenger', limit: 1 }).set('x-api-key', key).set('x-forwarded-for', IP.US);
    return origin === undefined ? call : call.set('origin', origin);
  };
  const click = (key: string, user: string, origin?: string) => {
    const call = t
      .http()
      .post(CLICK)
      .set('x-api-key', key)
      .send({ eventType: 'click', eventData: { adBlockId: block, messengerUserId: user, adId: `ad_${campaignId}`, campaignId } });
    return origin === undefined ? call : call.set('origin', origin);
  };
  const expectServeRefusal = (response: { status: number; body: unknown }) =>
    expect({ status: response.status, body: response.body }).toEqual({ status: 403, body: { code: 403, message: SERVE_KEY_MESSAGE, data: {} } });

  it('should refuse a serve key on profile upload, stats, lists and key management, storing nothing', async () => {
    const batchesBefore = await count(t, 'SELECT COUNT(*) AS n FROM profile_batches');
    const keysBefore = await count(t, 'SELECT COUNT(*) AS n FROM api_keys');
    const bothServe = (await issueKey(t, both.apiKey, { scope: 'serve' })).apiKey;
    const from = Date.now() - 3_600_000;
    const attempts = [
      t
        .http()
        .post('/api/v2/openapi/user/profile/batch')
        .set('x-api-key', serveKey)
        .send({ list: [{ messengerUserId: 'victim', walletAddress: 'EQD4', walletClassify: 'primary' }] }),
      t.http().get('/api/v2/openapi/ad/block/stats').query({ adBlockId: block, from, to: Date.now(), granularity: 'hour' }).set('x-api-key', serveKey),
      t.http().get('/api/v2/openapi/ad/block/list').set('x-api-key', serveKey),
      t.http().get('/api/v2/openapi/ad/block/detail').query({ adBlockId: block }).set('x-api-key', serveKey),
      t.http().post('/api/v2/openapi/ad/block/create').set('x-api-key', serveKey).send({ name: 'Spam block' }),
      t.http().get('/api/v2/openapi/ad/campaign/list').set('x-api-key', bothServe),
      t.http().get('/api/v2/openapi/ad/campaign/stats').query({ campaignId, from, to: Date.now(), granularity: 'day' }).set('x-api-key', bothServe),
      t.http().post('/api/v2/openapi/ad/campaign/create').set('x-api-key', bothServe).send({}),
      t.http().get(KEYS).set('x-api-key', serveKey),
      t.http().post(KEYS).set('x-api-key', serveKey).send({ scope: 'full' }),
      t.http().post(`${KEYS}/revoke`).set('x-api-key', serveKey).send({ keyId: 'x' }),
      t.http().get('/api/v2/openapi/account/me').set('x-api-key', serveKey),
      t.http().get('/api/v2/admin/accounts').set('x-api-key', serveKey),
    ];
    for (const attempt of attempts) expectServeRefusal(await attempt);
    expect(await count(t, 'SELECT COUNT(*) AS n FROM profile_batches')).toBe(batchesBefore);
    // the one key this test issued itself
    expect(await count(t, 'SELECT COUNT(*) AS n FROM api_keys')).toBe(keysBefore + 1);
    // the same account's full key still may
    await t.http().get('/api/v2/openapi/ad/campaign/list').set('x-api-key', both.apiKey).expect(200);
  });

  it('should serve ads (5) and count a click (6) with a serve key for its own block only', async () => {
    const user = newUser();
    const fetched = await fetchAd(serveKey, user).expect(200);
    expect(fetched.body.data.ads).toEqual([expect.objectContaining({ adBlockId: block, campaignId })]);
    const counted = await click(serveKey, user).expect(200);
    expect(counted.body).toEqual({ code: 0, message: 'success', data: { status: 'success', msg: 'click counted' } });
    const campaign = await flushedCampaign(t, campaignId);
    expect({ impressions: campaign.impressions, clicks: campaign.clicks, cost: campaign.cost }).toEqual({ impressions: 1, clicks: 1, cost: 1 });

    const otherPublisher = await createAccount(t, ['publisher'], 'Other publisher');
    const otherServe = (await issueKey(t, otherPublisher.apiKey, { scope: 'serve' })).apiKey;
    const foreign = await fetchAd(otherServe, newUser()).expect(404);
    expect(foreign.body.message).toBe('adBlockId: ad block not found');
  });

  it('should answer 403 from a foreign Origin, 200 from the allowed one and without Origin, through every way in', async () => {
    const locked = (await issueKey(t, publisher.apiKey, { scope: 'serve', allowedOrigins: ['https://app.example.com'] })).apiKey;
    const before = await flushedCampaign(t, campaignId);
    for (let round = 0; round < 2; round++) {
      // round 0: the key's first use (looked up in the database); round 1: cached, the hot routes' fast lanes
      const user = newUser();
      const evil = await fetchAd(locked, user, 'https://evil.example.com');
      expect({ status: evil.status, body: evil.body }).toEqual({
        status: 403,
        body: { code: 403, message: 'this key is not allowed from origin https://evil.example.com', data: {} },
      });
      const lookalike = await fetchAd(locked, user, 'https://app.example.com.evil.example');
      expect(lookalike.status).toBe(403);
      const evilClick = await click(locked, user, 'https://evil.example.com');
      expect(evilClick.status).toBe(403);

      const allowed = await fetchAd(locked, user, 'https://app.example.com').expect(200);
      expect(allowed.body.data.ads).toHaveLength(1);
      const noOrigin = await fetchAd(locked, newUser()).expect(200);
      expect(noOrigin.body.data.ads).toHaveLength(1);
      await click(locked, user, 'https://app.example.com').expect(200);
      expect(t.app.get(AccountsService).cachedPrincipal(locked)?.allowedOrigins).toEqual(['https://app.example.com']);
    }
    const after = await flushedCampaign(t, campaignId);
    // two served impressions per round and one click per round; the refused requests counted nothing
    expect({ impressions: after.impressions - before.impressions, clicks: after.clicks - before.clicks }).toEqual({ impressions: 4, clicks: 2 });
  });

  it("should let a partner's serve key fetch (8) and report clicks (9) for its own exchange campaign only", async () => {
    const exchangeBody = (name: string) => ({
      name,
      icon: 'https://cdn.example.com/icon.png',
      text: 'Swap traffic',
      destination: { actionType: 'open.miniapp', url: 'https://t.example/app' },
    });
    const partnerA = await createAccount(t, ['partner'], 'Serve partner A');
    const partnerB = await createAccount(t, ['partner'], 'Serve partner B');
    const out = (await t.http().post('/api/v2/openapi/exchange/campaign/create').set('x-api-key', partnerA.apiKey).send(exchangeBody('A')).expect(200)).body
      .data.exchangeCampaignId;
    const promoted = (await t.http().post('/api/v2/openapi/exchange/campaign/create').set('x-api-key', partnerB.apiKey).send(exchangeBody('B')).expect(200))
      .body.data.exchangeCampaignId;
    const serveA = (await issueKey(t, partnerA.apiKey, { scope: 'serve', allowedOrigins: ['https://a.example.com'] })).apiKey;
    const user = newUser();

    const fetched = await t
      .http()
      .get('/api/v2/openapi/matching/exchange')
      .query({ exchangeCampaignId: out, openId: user, type: 'messenger', limit: 3 })
      .set('x-api-key', serveA)
      .set('origin', 'https://a.example.com')
      .expect(200);
    expect(fetched.body.data.exchangeCampaigns).toEqual([expect.objectContaining({ outExchangeCampaignId: out, inExchangeCampaignId: promoted })]);
    const report = { eventType: 'click', eventData: { messengerUserId: user, inExchangeCampaignId: promoted, outExchangeCampaignId: out } };
    await t.http().post('/api/v2/openapi/exchange/event/report').set('x-api-key', serveA).set('origin', 'https://evil.example.com').send(report).expect(403);
    await t.http().post('/api/v2/openapi/exchange/event/report').set('x-api-key', serveA).send(report).expect(200, { status: 'success' });

    const foreign = await t
      .http()
      .get('/api/v2/openapi/matching/exchange')
      .query({ exchangeCampaignId: promoted, openId: user, type: 'messenger', limit: 3 })
      .set('x-api-key', serveA)
      .expect(404);
    expect(foreign.body.code).toBe(404);
    for (const attempt of [
      t.http().get('/api/v2/openapi/exchange/campaign/list').set('x-api-key', serveA),
      t.http().get('/api/v2/openapi/exchange/campaign/detail').query({ exchangeCampaignId: out }).set('x-api-key', serveA),
      t.http().post('/api/v2/openapi/exchange/campaign/status').set('x-api-key', serveA).send({ exchangeCampaignId: out, status: 'end' }),
      t.http().post('/api/v2/openapi/exchange/campaign/create').set('x-api-key', serveA).send(exchangeBody('spam')),
    ]) {
      expectServeRefusal(await attempt);
    }
    const detail = (
      await t.http().get('/api/v2/openapi/exchange/campaign/detail').query({ exchangeCampaignId: out }).set('x-api-key', partnerA.apiKey).expect(200)
    ).body.data;
    // the refused status change did nothing; the click counted once
    expect({ campaignStatus: detail.campaignStatus, clicksSent: detail.clicksSent }).toEqual({ campaignStatus: 'onGoing', clicksSent: 1 });
  });

  it('should apply allowedOrigins to full keys too', async () => {
    const lockedFull = (await issueKey(t, publisher.apiKey, { allowedOrigins: ['https://dashboard.example.com'] })).apiKey;
    await t.http().get('/api/v2/openapi/ad/block/list').set('x-api-key', lockedFull).set('origin', 'https://evil.example.com').expect(403);
    await t.http().get('/api/v2/openapi/ad/block/list').set('x-api-key', lockedFull).set('origin', 'https://dashboard.example.com').expect(200);
    await t.http().get('/api/v2/openapi/ad/block/list').set('x-api-key', lockedFull).expect(200);
  });
});

describe('abuse: unauthenticated big bodies are refused before they are read', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await startTestApp({ UNKNOWN_KEY_RATE_LIMIT_PER_SECOND: '1000' });
    const server = t.app.getHttpServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  /** A raw POST: headers and `sent` bytes of a body declared `declared` bytes long; resolves with the status. */
  const post = (path: string, headers: Record<string, string>, body: Buffer, declared = body.length): Promise<number> =>
    new Promise((resolve, reject) => {
      const request = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path,
          agent: false,
          headers: { 'content-type': 'application/json', 'content-length': String(declared), 'user-agent': BROWSER_USER_AGENT, ...headers },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
          request.destroy();
        },
      );
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
      });
      request.write(body);
      if (body.length === declared) request.end();
    });

  it('should answer 401 to a request whose 10 MiB body has not even been sent', async () => {
    // only 1 KiB of the declared 10 MiB arrives: an answer proves the body was not awaited
    const statuses = await Promise.all([
      post('/api/v2/openapi/ad/campaign/create', {}, Buffer.alloc(1024, 0x20), 10 * MiB),
      post('/api/v2/openapi/user/profile/batch', { 'x-api-key': `adn_${randomBytes(32).toString('base64url')}` }, Buffer.alloc(1024, 0x20), 10 * MiB),
    ]);
    expect(statuses).toEqual([401, 401]);
  });

  it('should keep /health answering and memory flat under 40 concurrent unauthenticated 10 MiB bodies', async () => {
    // a first call outside the flood: the test process hosts the app, and a route's first call compiles its code
    await t.http().get('/health').expect(200);
    // the attacker runs in a process of its own, so only the service's work is measured here
    const attacker = spawn(process.execPath, [join(__dirname, '../../support/body-flood-child.js'), String(port), '40', '10'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    const sending = new Promise<void>((resolve) =>
      attacker.stdout.on('data', (chunk) => {
        output += String(chunk);
        if (output.includes('sending')) resolve();
      }),
    );
    const finished = new Promise<void>((resolve) => attacker.on('close', () => resolve()));
    const rssBefore = process.memoryUsage().rss;
    const logStart = t.logs.length;
    await sending;
    const started = Date.now();
    await t.http().get('/health').expect(200);
    const healthMs = Date.now() - started;
    await finished;
    const rssGrowth = process.memoryUsage().rss - rssBefore;

    // every request was answered 401 (the server's access log); the attacker read each answer unless the server
    // had already closed the connection under its still-running upload
    const answered = t.logs
      .slice(logStart)
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.msg === 'request' && entry.method === 'POST');
    expect(answered.map((entry) => entry.status)).toEqual(Array.from({ length: 40 }, () => 401));
    const statuses = JSON.parse(output.split('\n')[1]) as unknown[];
    expect(statuses).toHaveLength(40);
    expect(statuses.filter((status) => status !== 401 && status !== 'reset')).toEqual([]);
    // A bound for an event loop held by 400 MiB of bodies, not a speed target: reading them would take seconds, and
    // the e2e files run beside each other in parallel workers on a small machine.
    expect(healthMs).toBeLessThan(1_000);
    expect(rssGrowth).toBeLessThan(200 * MiB);
  }, 60_000);

  it('should cap bodies at 64 KiB on every route but the bulk uploads (413 in the envelope)', async () => {
    const advertiser = await createAccount(t, ['advertiser'], 'Big body advertiser');
    const publisher = await createAccount(t, ['publisher'], 'Big body publisher');
    const filler = 'x'.repeat(64 * 1024);
    const big = await t.http().post('/api/v2/openapi/ad/campaign/create').set('x-api-key', advertiser.apiKey).send({ name: filler });
    expect({ status: big.status, body: big.body }).toEqual({ status: 413, body: { code: 413, message: 'request body too large', data: {} } });
    const click = await t
      .http()
      .post(CLICK)
      .set('x-api-key', publisher.apiKey)
      .send({ eventType: 'click', eventData: { messengerUserId: filler } });
    expect(click.status).toBe(413);
    // over a MiB of profiles still fits the batch route
    const list = Array.from({ length: 5000 }, (_, i) => ({
      messengerUserId: `bulk-${i}-${'p'.repeat(100)}`,
      walletAddress: 'w'.repeat(128),
      walletClassify: 'evm',
    }));
    expect(Buffer.byteLength(JSON.stringify({ list }))).toBeGreaterThan(MiB);
    const batch = await t.http().post('/api/v2/openapi/user/profile/batch').set('x-api-key', publisher.apiKey).send({ list }).expect(200);
    expect(batch.body.data.batchId).toEqual(expect.any(String));
  });
});

describe('abuse: a flood of unknown keys', () => {
  let t: TestApp;
  let publisher: Account;
  let block: string;
  const LIMIT = 10;

  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: 'true', UNKNOWN_KEY_RATE_LIMIT_PER_SECOND: String(LIMIT), UNKNOWN_KEY_CACHE_MAX: '100' });
    publisher = await createAccount(t, ['publisher'], 'Flooded publisher');
    block = await createAdBlock(t, publisher.apiKey, 'Flooded block');
  });
  afterAll(() => t.close());

  const fetchFrom = (ip: string, key: string) =>
    t.http().get(FETCH).query({ adBlockId: block, openId: newUser(), type: 'messenger', limit: 1 }).set('x-api-key', key).set('x-forwarded-for', ip);
  const randomKey = () => `adn_${randomBytes(32).toString('base64url')}`;

  it('should answer 429 past the per-IP limit, while a valid key from another IP is still served from the cache', async () => {
    const accounts = t.app.get(AccountsService);
    await fetchFrom('203.0.113.7', publisher.apiKey).expect(200);
    expect(accounts.cachedPrincipal(publisher.apiKey)?.accountId).toBe(publisher.accountId);

    // 600 distinct unknown keys, each from its own address under the per-IP limit: every one is looked up once and
    // remembered in the unknown-key LRU (100 entries), which they overflow six times
    for (let wave = 0; wave < 6; wave++) {
      const statuses = await Promise.all(Array.from({ length: 100 }, (_, i) => fetchFrom(`198.51.${wave}.${i + 1}`, randomKey()).then((r) => r.status)));
      expect(statuses).toEqual(Array.from({ length: 100 }, () => 401));
    }
    // then one IP floods: LIMIT answers 401, the rest 429 (and no lookup for them)
    await nextSecond();
    const lookupsBefore = accounts.keyDatabaseLookups;
    const statuses: number[] = [];
    for (let i = 0; i < 3 * LIMIT; i++) statuses.push((await fetchFrom('192.0.2.66', randomKey())).status);
    expect(statuses).toEqual([...Array.from({ length: LIMIT }, () => 401), ...Array.from({ length: 2 * LIMIT }, () => 429)]);
    expect(accounts.keyDatabaseLookups - lookupsBefore).toBe(LIMIT);
    const limited = await fetchFrom('192.0.2.66', randomKey());
    expect({ status: limited.status, body: limited.body, retryAfter: limited.headers['retry-after'] }).toEqual({
      status: 429,
      body: { code: 429, message: 'rate limit exceeded, retry after 1 s', data: { retryAfter: 1 } },
      retryAfter: '1',
    });
    const noKey = await t.http().get(FETCH).set('x-forwarded-for', '192.0.2.66');
    expect(noKey.status).toBe(429);

    // the valid key, from another address, is still cached: answered without a database lookup
    const lookups = accounts.keyDatabaseLookups;
    expect(accounts.cachedPrincipal(publisher.apiKey)?.accountId).toBe(publisher.accountId);
    await fetchFrom('203.0.113.7', publisher.apiKey).expect(200);
    expect(accounts.keyDatabaseLookups).toBe(lookups);
  });

  it('should remember an unknown key so repeats of it skip the database', async () => {
    const accounts = t.app.get(AccountsService);
    const key = randomKey();
    await fetchFrom('198.18.0.1', key).expect(401);
    const lookups = accounts.keyDatabaseLookups;
    await fetchFrom('198.18.0.2', key).expect(401);
    await fetchFrom('198.18.0.3', key).expect(401);
    expect(accounts.keyDatabaseLookups).toBe(lookups);
  });
});

describe('abuse: one publisher key, a whole audience', () => {
  let t: TestApp;
  let publisher: Account;
  let block: string;
  const LIMIT = 5;

  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: 'true', RATE_LIMIT_PER_SECOND: String(LIMIT) });
    publisher = await createAccount(t, ['publisher'], 'Popular publisher');
    block = await createAdBlock(t, publisher.apiKey, 'Popular block');
  });
  afterAll(() => t.close());

  const fetchFrom = (ip: string) =>
    t
      .http()
      .get(FETCH)
      .query({ adBlockId: block, openId: newUser(), type: 'messenger', limit: 1 })
      .set('x-api-key', publisher.apiKey)
      .set('x-forwarded-for', ip);

  it(`should not throttle 50 client IPs sharing one key above RATE_LIMIT_PER_SECOND in total, but throttle one IP above it`, async () => {
    await nextSecond();
    const audience = Array.from({ length: 50 }, (_, i) => `81.2.${i}.1`);
    const statuses = await Promise.all(audience.flatMap((ip) => [fetchFrom(ip), fetchFrom(ip)]).map((call) => call.then((r) => r.status)));
    expect(statuses).toEqual(Array.from({ length: 100 }, () => 200));

    await nextSecond();
    const single: number[] = [];
    for (let i = 0; i < 2 * LIMIT; i++) single.push((await fetchFrom('85.214.132.117')).status);
    expect(single).toEqual([...Array.from({ length: LIMIT }, () => 200), ...Array.from({ length: LIMIT }, () => 429)]);
  });

  it('should keep the per-key limit on the other routes, whatever the client IP', async () => {
    await nextSecond();
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 2; i++) {
      statuses.push(
        (
          await t
            .http()
            .get('/api/v2/openapi/ad/block/list')
            .set('x-api-key', publisher.apiKey)
            .set('x-forwarded-for', `81.2.69.${i + 1}`)
        ).status,
      );
    }
    expect(statuses).toEqual([...Array.from({ length: LIMIT }, () => 200), 429, 429]);
  });
});

describe('abuse: rotating ADMIN_API_KEY', () => {
  const sqliteFile = join(tmpdir(), `adnet-rotation-${process.pid}-${randomBytes(4).toString('hex')}.sqlite`);
  const shared: Record<string, string> = TEST_PROFILE === 'embedded' ? { DATABASE_URL: `sqlite:${sqliteFile}` } : {};
  const KEY_A = `rotation-key-A-${randomBytes(12).toString('hex')}`;
  const KEY_B = `rotation-key-B-${randomBytes(12).toString('hex')}`;
  afterAll(() => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(sqliteFile + suffix, { force: true });
  });

  it('should revoke the previous bootstrap key when the app starts with a new one, keeping the admin account', async () => {
    const first = await startTestApp({ ...shared, ADMIN_API_KEY: KEY_A });
    let adminAccountId: string;
    let customer: Account;
    try {
      adminAccountId = (await first.http().get('/api/v2/openapi/account/me').set('x-api-key', KEY_A).expect(200)).body.data.accountId;
      const created = await first
        .http()
        .post('/api/v2/admin/accounts')
        .set('x-api-key', KEY_A)
        .send({ name: 'Survives rotation', roles: ['publisher'] })
        .expect(200);
      customer = created.body.data;
    } finally {
      await first.close();
    }

    const second = await startTestApp({ ...shared, ADMIN_API_KEY: KEY_B }, { dropSchema: false });
    try {
      const old = await second.http().get('/api/v2/admin/accounts').set('x-api-key', KEY_A).expect(401);
      expect(old.body).toEqual({ code: 401, message: 'x-api-key is not a valid key (unknown or revoked)', data: {} });
      await second.http().get('/api/v2/admin/accounts').set('x-api-key', KEY_B).expect(200);
      expect((await second.http().get('/api/v2/openapi/account/me').set('x-api-key', KEY_B).expect(200)).body.data.accountId).toBe(adminAccountId);
      await second.http().get('/api/v2/openapi/account/me').set('x-api-key', customer.apiKey).expect(200);

      const keys = (await second.http().get(`/api/v2/admin/accounts/${adminAccountId}/keys`).set('x-api-key', KEY_B).expect(200)).body.data.keys;
      expect(keys).toEqual([
        {
          keyId: expect.any(String),
          scope: 'full',
          label: 'admin key from the environment',
          allowedOrigins: null,
          createdAt: expect.any(Number),
          revokedAt: null,
          active: true,
        },
        {
          keyId: expect.any(String),
          scope: 'full',
          label: 'admin key from the environment',
          allowedOrigins: null,
          createdAt: expect.any(Number),
          revokedAt: expect.any(Number),
          active: false,
        },
      ]);
      // no clear part of any key, in the answer or in the table
      const listed = JSON.stringify(keys);
      const stored = JSON.stringify(await second.app.get(DataSource).query('SELECT * FROM api_keys'));
      for (const secret of [KEY_A, KEY_B, customer.apiKey]) {
        expect(listed).not.toContain(secret.slice(0, 12));
        expect(stored).not.toContain(secret.slice(0, 12));
      }
      expect(stored).not.toContain('"prefix"');
    } finally {
      await second.close();
    }

    // starting again with the old (revoked) value does not bring it back, nor does a stale value revoke the new one
    const third = await startTestApp({ ...shared, ADMIN_API_KEY: KEY_A }, { dropSchema: false });
    try {
      await third.http().get('/api/v2/admin/accounts').set('x-api-key', KEY_A).expect(401);
      await third.http().get('/api/v2/admin/accounts').set('x-api-key', KEY_B).expect(200);
    } finally {
      await third.close();
    }
  }, 60_000);
});

describe('abuse: the admin panel cannot be framed', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('should answer /admin/ with a CSP forbidding frames and the other protective headers', async () => {
    for (const path of ['/admin/', '/admin/campaigns']) {
      const response = await t.http().get(path).expect(200);
      expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(response.headers['content-security-policy']).toContain("script-src 'self'");
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['referrer-policy']).toBe('no-referrer');
    }
    const api = await t.http().get('/health').expect(200);
    expect(api.headers['content-security-policy']).toBeUndefined();
  });
});
