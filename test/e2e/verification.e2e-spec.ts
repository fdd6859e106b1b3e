import { createHmac } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { Click } from '../../src/clicks/entities/click.entity';
import { VerificationScheduler } from '../../src/verification/verification-scheduler.service';
import { VerificationService } from '../../src/verification/verification.service';
import { startTestApp, TestApp } from '../support/test-app';
import { Body, CAMPAIGN_BASE, clickAd, createServable, DAY, endAllCampaigns, fetchAds, flushedCampaign, newUser } from '../support/serving-fixtures';
import { createAccount, createAdBlock, openCampaign, createAccounts } from '../support/factories';

type Account = { accountId: string; apiKey: string };
const HEALTH = `${CAMPAIGN_BASE}/verification`;

/**
 * The advertiser's verification endpoint (interface 11), as a real local HTTP server. Each path answers one way;
 * every request is recorded.
 */
class AdvertiserEndpoint {
  readonly requests: { path: string; messengerId: string | null; telegramId: string | null; timestamp: string; signature: string }[] = [];
  private flakyCalls = 0;
  private server: Server;
  base = '';

  async start(): Promise<void> {
    this.server = createServer((request, response) => this.answer(request, response));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  callsTo(path: string) {
    return this.requests.filter((request) => request.path === path);
  }

  private answer(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', this.base);
    this.requests.push({
      path: url.pathname,
      messengerId: url.searchParams.get('messenger_id'),
      telegramId: url.searchParams.get('telegram_id'),
      timestamp: String(request.headers['x-adnet-timestamp']),
      signature: String(request.headers['x-adnet-signature']),
    });
    const send = (status: number, body: string, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'text/plain', ...headers });
      response.end(body);
    };
    switch (url.pathname) {
      case '/true':
        return send(200, ' TRUE\n');
      case '/false':
        return send(200, 'false');
      case '/garbage':
        return send(200, '{"verified": true}');
      case '/error':
        return send(500, 'true');
      case '/slow':
        setTimeout(() => send(200, 'true'), 1500).unref();
        return;
      case '/redirect':
        return send(302, '', { location: `${this.base}/true` });
      case '/flaky':
        this.flakyCalls += 1;
        return this.flakyCalls <= 2 ? send(503, 'busy') : send(200, 'true');
      default:
        return send(404, 'not found');
    }
  }
}

describe('Verification calls (endpoint 11, docs/CONTRACT.md §7)', () => {
  const endpoint = new AdvertiserEndpoint();
  let t: TestApp;
  let publisher: Account;
  let advertiser: Account;
  let otherAdvertiser: Account;
  let block: string;

  beforeAll(async () => {
    await endpoint.start();
    t = await startTestApp({
      VERIFY_DELAY_MS: '0',
      VERIFY_TIMEOUT_MS: '400',
      VERIFY_ATTEMPTS: '3',
      VERIFY_BACKOFF_MS: '20',
      VERIFICATION_ALLOW_PRIVATE: 'true',
    });
    ({ publisher, advertiser, otherAdvertiser } = await createAccounts(t, {
      publisher: 'publisher',
      advertiser: ['advertiser', 'Verified advertiser'],
      otherAdvertiser: ['advertiser', 'Other advertiser'],
    }));
    block = await createAdBlock(t, publisher.apiKey);
  });
  afterAll(async () => {
    await t?.close();
    await endpoint.stop();
  });
  beforeEach(() => endAllCampaigns(t));

  const secretOf = async (key = advertiser.apiKey): Promise<string> =>
    (await t.http().get('/api/v2/openapi/account/me').set('x-api-key', key).expect(200)).body.data.webhookSecret;

  /** A campaign verified at `path`, one of its ads served to a new user and clicked; answers ids. */
  const clickedCampaign = async (path: string | null) => {
    const campaignId = await createServable(
      t,
      advertiser.apiKey,
      path === null ? openCampaign() : { ...openCampaign(), verificationUrl: `${endpoint.base}${path}` },
    );
    const user = newUser('verify');
    const ad = (await fetchAds(t, publisher.apiKey, block, user, { limit: 9 })).find((a: Body) => a.campaignId === campaignId);
    expect(ad).toBeDefined();
    const response = await clickAd(t, publisher.apiKey, ad as Body, user).expect(200);
    expect(response.body.data.msg).toBe('click counted');
    return { campaignId, user };
  };

  const health = async (campaignId: string, key = advertiser.apiKey) =>
    (await t.http().get(HEALTH).query({ campaignId }).set('x-api-key', key).expect(200)).body.data;

  /** Waits until no click of the campaign is pending any more. */
  const settled = async (campaignId: string) => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const data = await health(campaignId);
      if (data.clicks.pending === 0) return data;
      if (Date.now() > deadline) throw new Error(`still pending: ${JSON.stringify(data)}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  const storedClick = async (campaignId: string) => t.app.get(DataSource).getRepository(Click).findOneByOrFail({ campaignId });

  it('calls the endpoint with messenger_id (and telegram_id, its TON AI name) and a signature that verifies, and counts a `true` as verified', async () => {
    const secret = await secretOf();
    const { campaignId, user } = await clickedCampaign('/true');
    const data = await settled(campaignId);
    expect(data.clicks).toEqual({ pending: 0, verified: 1, unverified: 0, error: 0 });
    expect(data.calls).toHaveLength(1);
    expect(data.calls[0]).toMatchObject({ attempt: 1, outcome: 'verified', httpStatus: 200, error: null });

    const [call] = endpoint.callsTo('/true').filter((request) => request.messengerId === user);
    expect(call).toBeDefined();
    expect(call.telegramId).toBe(user);
    expect(call.timestamp).toMatch(/^\d{13}$/);
    expect(call.signature).toBe(createHmac('sha256', secret).update(`${call.timestamp}.${user}`).digest('hex'));

    expect(await storedClick(campaignId)).toMatchObject({ verificationStatus: 'verified', verificationAttempts: 1 });
    const detail = await flushedCampaign(t, campaignId);
    expect({ clicks: detail.clicks, verifiedClicks: detail.verifiedClicks }).toEqual({ clicks: 1, verifiedClicks: 1 });
    const series = await t
      .http()
      .get(`${CAMPAIGN_BASE}/stats`)
      .query({ campaignId, granularity: 'day', from: Date.now() - DAY, to: Date.now() + DAY })
      .set('x-api-key', advertiser.apiKey)
      .expect(200);
    const points = series.body.data.series as Body[];
    expect(points.reduce((sum, point) => sum + point.verifiedClicks, 0)).toBe(1);
  });

  it('records `false` as unverified after one call, not counted as verified', async () => {
    const { campaignId } = await clickedCampaign('/false');
    const data = await settled(campaignId);
    expect(data.clicks).toEqual({ pending: 0, verified: 0, unverified: 1, error: 0 });
    expect(data.calls.map((call: Body) => call.outcome)).toEqual(['unverified']);
    expect((await flushedCampaign(t, campaignId)).verifiedClicks).toBe(0);
  });

  it.each([
    ['another body', '/garbage', 'answer is not true or false'],
    ['a 500', '/error', 'HTTP 500'],
    ['a timeout', '/slow', 'timeout after 400 ms'],
    ['a redirect (never followed)', '/redirect', 'redirect 302 not followed'],
  ])('retries %s up to VERIFY_ATTEMPTS, then records error', async (_case, path, message) => {
    const trueCallsBefore = endpoint.callsTo('/true').length;
    const { campaignId } = await clickedCampaign(path);
    const data = await settled(campaignId);
    expect(data.clicks).toEqual({ pending: 0, verified: 0, unverified: 0, error: 1 });
    expect(data.calls.map((call: Body) => call.attempt).sort()).toEqual([1, 2, 3]);
    for (const call of data.calls) {
      expect(call.outcome).toBe('failed');
      expect(call.error).toContain(message);
    }
    const click = await storedClick(campaignId);
    expect(click).toMatchObject({ verificationStatus: 'error', verificationAttempts: 3 });
    expect(click.verificationError).toContain(message);
    expect(endpoint.callsTo('/true').length).toBe(trueCallsBefore);
    expect((await flushedCampaign(t, campaignId)).verifiedClicks).toBe(0);
  });

  it('verifies after failed tries when a later try answers true', async () => {
    const { campaignId } = await clickedCampaign('/flaky');
    const data = await settled(campaignId);
    expect(data.clicks.verified).toBe(1);
    expect(data.calls.map((call: Body) => [call.attempt, call.outcome, call.httpStatus]).sort()).toEqual([
      [1, 'failed', 503],
      [2, 'failed', 503],
      [3, 'verified', 200],
    ]);
    expect((await flushedCampaign(t, campaignId)).verifiedClicks).toBe(1);
  });

  it('counts a click once when its job runs twice, and schedules again a pending click whose job was lost', async () => {
    const { campaignId, user } = await clickedCampaign('/true');
    await settled(campaignId);
    const click = await storedClick(campaignId);
    // A second run of the same job (a redelivery) changes nothing.
    expect(await t.app.get(VerificationService).attempt(click.id, 1)).toBe('skipped');
    expect((await flushedCampaign(t, campaignId)).verifiedClicks).toBe(1);

    // A click committed long ago whose job never ran (a crash between commit and enqueue): the sweep finds it.
    const clicks = t.app.get(DataSource).getRepository(Click);
    const lostUser = newUser('lost');
    const lostId = '01lost' + click.id.slice(6);
    await clicks.insert({
      ...click,
      id: lostId,
      messengerUserId: lostUser,
      createdAt: Date.now() - DAY,
      verificationStatus: 'pending',
      verificationAttempts: 0,
      verificationError: null,
      verifiedAt: null,
    });
    expect(await t.app.get(VerificationScheduler).sweep()).toBe(1);
    const data = await settled(campaignId);
    expect(data.clicks).toEqual({ pending: 0, verified: 2, unverified: 0, error: 0 });
    expect(endpoint.callsTo('/true').filter((request) => request.messengerId === lostUser)).toHaveLength(1);
    expect(await clicks.findOneByOrFail({ id: lostId })).toMatchObject({ verificationStatus: 'verified', verificationAttempts: 1 });
    expect(await t.app.get(VerificationScheduler).sweep()).toBe(0);
    expect(user).toBeDefined();
  });

  it('does not call anything for a campaign without a verification URL', async () => {
    const before = endpoint.requests.length;
    const { campaignId } = await clickedCampaign(null);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await storedClick(campaignId)).toMatchObject({ verificationStatus: 'none', verificationAttempts: 0 });
    expect((await health(campaignId)).calls).toEqual([]);
    expect(endpoint.requests.length).toBe(before);
  });

  it('signs with the new secret once the advertiser rotates it', async () => {
    const old = await secretOf();
    const rotated = await t.http().post('/api/v2/openapi/account/webhook-secret/rotate').set('x-api-key', advertiser.apiKey).expect(200);
    const fresh = rotated.body.data.webhookSecret as string;
    expect(fresh).toMatch(/^[0-9a-f]{64}$/);
    expect(fresh).not.toBe(old);
    expect(await secretOf()).toBe(fresh);
    const { campaignId, user } = await clickedCampaign('/true');
    await settled(campaignId);
    const [call] = endpoint.callsTo('/true').filter((request) => request.messengerId === user);
    expect(call.signature).toBe(createHmac('sha256', fresh).update(`${call.timestamp}.${user}`).digest('hex'));
    // publishers rotate theirs too (it signs their viewer tokens); a partner has none to rotate
    const partner = await createAccount(t, ['partner']);
    const forbidden = await t.http().post('/api/v2/openapi/account/webhook-secret/rotate').set('x-api-key', partner.apiKey);
    expect(forbidden.status).toBe(403);
  });

  it("answers another advertiser's campaign like an unknown one, a publisher 403, and a bad limit 400", async () => {
    const { campaignId } = await clickedCampaign('/false');
    const foreign = await t.http().get(HEALTH).query({ campaignId }).set('x-api-key', otherAdvertiser.apiKey);
    const unknown = await t.http().get(HEALTH).query({ campaignId: '01hzzzzzzzzzzzzzzzzzzzzzzz' }).set('x-api-key', advertiser.apiKey);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(unknown.body);
    expect((await t.http().get(HEALTH).query({ campaignId }).set('x-api-key', publisher.apiKey)).status).toBe(403);
    const bad = await t.http().get(HEALTH).query({ campaignId, limit: 0 }).set('x-api-key', advertiser.apiKey);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('limit');
  });
});

describe('Verification target guard (VERIFICATION_ALLOW_PRIVATE unset)', () => {
  const endpoint = new AdvertiserEndpoint();
  let t: TestApp;

  beforeAll(async () => {
    await endpoint.start();
    t = await startTestApp({ VERIFY_DELAY_MS: '0', VERIFY_ATTEMPTS: '2', VERIFY_BACKOFF_MS: '20' });
  });
  afterAll(async () => {
    await t?.close();
    await endpoint.stop();
  });

  it('refuses to call a loopback address and records why, without any request reaching it', async () => {
    const publisher = await createAccount(t, ['publisher']);
    const advertiser = await createAccount(t, ['advertiser']);
    const block = await createAdBlock(t, publisher.apiKey);
    const campaignId = await createServable(t, advertiser.apiKey, { ...openCampaign(), verificationUrl: `${endpoint.base}/true` });
    const user = newUser('ssrf');
    const [ad] = await fetchAds(t, publisher.apiKey, block, user, { limit: 1 });
    await clickAd(t, publisher.apiKey, ad, user).expect(200);

    const deadline = Date.now() + 10_000;
    let data: Body;
    for (;;) {
      data = (await t.http().get(HEALTH).query({ campaignId }).set('x-api-key', advertiser.apiKey).expect(200)).body.data;
      if (data.clicks.pending === 0 || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(data.clicks).toEqual({ pending: 0, verified: 0, unverified: 0, error: 1 });
    expect(data.calls).toHaveLength(2);
    for (const call of data.calls) expect(call.error).toContain('non-public address 127.0.0.1');
    expect(endpoint.requests).toEqual([]);
  });
});
