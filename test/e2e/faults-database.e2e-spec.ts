import { createServer, Server, Socket } from 'node:net';
import { DataSource } from 'typeorm';
import { staleReads } from '../../src/common/stale-reads';
import { TEST_DATABASE_URL, TEST_PROFILE } from '../support/profile';
import { startTestApp, TestApp } from '../support/test-app';
import { CLICK, CONVERSION, flushStats } from '../support/serving-helpers';
import { clickAd, createServable, fetchAds, flushedCampaign, newUser } from '../support/serving-fixtures';
import { createAccount, createAdBlock, openCampaign } from '../support/factories';
import { StatsWriterService } from '../../src/stats/stats-writer.service';
import { countRows, postBatch, uploadBatch } from '../support/profile-helpers';

/**
 * The database out of reach (a proxy between the application and MariaDB that stops forwarding: a frozen server, or
 * one whose connections are refused): ads keep being answered from what the process holds, stale past its life,
 * and clicks are answered 503 with Retry-After, never 500, and stored only when sent again after it is back
 * (docs/OPERATIONS.md, "Faults"). The shared MariaDB itself is never stopped.
 */
/**
 * Once the database resumes, the connection requests that waited through the fault are served first, and until they
 * are a new one may still be refused at once (a stalled pool, src/database/connect-breaker.ts): waits until the
 * application's own pool answers a query again, as the reliability suite waits for /health.
 */
async function databaseBack(t: TestApp): Promise<void> {
  for (let tries = 0; ; tries++) {
    try {
      await t.app.get(DataSource).query('SELECT 1');
      return;
    } catch (error) {
      if (tries >= 40) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

(TEST_PROFILE === 'mysql' ? describe : describe.skip)('Database out of reach: ads served, clicks refused and not stored', () => {
  let proxy: PausableProxy;
  let t: TestApp;
  let publisher: { apiKey: string };
  let advertiser: { apiKey: string };
  let block: string;
  let campaignId: string;
  const PRICE = 0.04;

  beforeAll(async () => {
    const target = new URL(TEST_DATABASE_URL);
    proxy = await PausableProxy.start(target.hostname, Number(target.port || 3306));
    target.port = String(proxy.port);
    // entries of the key and block caches go past their life within the test: they are answered stale
    t = await startTestApp({ DATABASE_URL: target.toString(), KEY_CACHE_TTL_MS: '200', INDEX_REFRESH_MS: '200' });
    publisher = await createAccount(t, ['publisher']);
    advertiser = await createAccount(t, ['advertiser']);
    block = await createAdBlock(t, publisher.apiKey);
    campaignId = await createServable(t, advertiser.apiKey, openCampaign({ bidding: { billingType: 'CPC', costPer: PRICE } }));
  });

  afterAll(async () => {
    proxy.resume();
    await t?.close();
    await proxy.close();
  });

  it.each(['frozen', 'refusing'] as const)(
    'should serve ads and refuse clicks 503 while the database is %s, storing only the click sent after',
    async (fault) => {
      const user = newUser();
      const [warm] = await fetchAds(t, publisher.apiKey, block, user);
      expect(warm.campaignId).toBe(campaignId);

      if (fault === 'frozen') proxy.freeze();
      else proxy.refuse();
      await new Promise((resolve) => setTimeout(resolve, 300)); // past the caches' 200 ms life

      const staleBefore = { keys: staleReads.answered.get('keys') ?? 0, adBlocks: staleReads.answered.get('adBlocks') ?? 0 };
      const served = await fetchAds(t, publisher.apiKey, block, user);
      // the key and the block came from their caches, past their life
      expect(staleReads.answered.get('keys')).toBeGreaterThan(staleBefore.keys);
      expect(staleReads.answered.get('adBlocks')).toBeGreaterThan(staleBefore.adBlocks);
      expect(served.map((ad) => ad.campaignId)).toEqual([campaignId]);
      const [ad] = served;
      const refused = await clickAd(t, publisher.apiKey, ad, user);
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.body).toEqual({ code: 503, message: 'database unavailable: nothing was stored; retry after 1 s', data: { retryAfter: 1 } });
      // a key this process never saw needs the database: 503, not 401 or 500
      const unknownKey = await t.http().post(CLICK).set('x-api-key', 'adn_never_issued_0123456789abcdefghijklmnopqrstuv').send({});
      expect(unknownKey.status).toBe(503);
      expect(unknownKey.headers['retry-after']).toBe('1');

      proxy.resume();
      await databaseBack(t);
      const before = (await flushedCampaign(t, campaignId)).clicks as number;
      const counted = await clickAd(t, publisher.apiKey, ad, user);
      expect(counted.status).toBe(200);
      expect(counted.body.data.msg).toBe('click counted');
      await flushStats(t);
      const campaign = await flushedCampaign(t, campaignId);
      expect(campaign.clicks).toBe(before + 1);
      expect(campaign.cost).toBeCloseTo(PRICE * campaign.clicks, 6);
    },
  );

  it('should answer a conversion 503 at its write deadline while the database is frozen, and roll it back when it resumes', async () => {
    const user = newUser();
    const [ad] = await fetchAds(t, publisher.apiKey, block, user);
    expect((await clickAd(t, publisher.apiKey, ad, user)).body.data.msg).toBe('click counted');
    const before = await flushedCampaign(t, campaignId);
    const report = () =>
      t
        .http()
        .post(CONVERSION)
        .set('x-api-key', advertiser.apiKey)
        .send({ eventType: 'conversion', eventData: { messengerUserId: user } });
    await report().expect(200); // the key is now in this process's cache, answered stale through the freeze
    const rows = async () => Number((await t.app.get(DataSource).query('SELECT COUNT(*) AS n FROM conversions WHERE messengerUserId = ?', [user]))[0].n);
    expect(await rows()).toBe(1);

    proxy.freeze();
    await new Promise((resolve) => setTimeout(resolve, 300)); // past the key cache's 200 ms life
    // its transaction is held by the frozen database past the write deadline: refused, not "request timed out"
    const refused = await report();
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.body).toEqual({ code: 503, message: 'database unavailable: nothing was stored; retry after 1 s', data: { retryAfter: 1 } });
    proxy.resume();

    // the held transaction reaches its commit after its answer and rolls back: only a report sent again is stored
    await databaseBack(t);
    const again = await report().expect(200);
    expect(again.body.msg).toBe('stored, not attributed: no click to credit within the attribution window');
    for (let i = 0; i < 10; i++) {
      expect(await rows()).toBe(2);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const after = await flushedCampaign(t, campaignId);
    expect(after.conversions).toBe(before.conversions + 1);
  });

  it('should roll back a click whose group commit the database took only after the click was answered 503', async () => {
    // an application whose handler deadline is 2 s, beside the first one on the same database (through the proxy)
    const target = new URL(TEST_DATABASE_URL);
    target.port = String(proxy.port);
    const late = await startTestApp({ DATABASE_URL: target.toString(), HANDLER_TIMEOUT_MS: '2000' }, { dropSchema: false });
    try {
      const user = newUser();
      const [ad] = await fetchAds(late, publisher.apiKey, block, user);
      const rows = async () => Number((await t.app.get(DataSource).query('SELECT COUNT(*) AS n FROM clicks WHERE messengerUserId = ?', [user]))[0].n);
      const before = await flushedCampaign(t, campaignId);
      // the database freezes once the click was checked and bound, as its group commit is sent
      const writer = late.app.get(StatsWriterService);
      const recordClick = writer.recordClick.bind(writer);
      writer.recordClick = (click) => {
        proxy.freeze();
        return recordClick(click);
      };
      const answered = clickAd(late, publisher.apiKey, ad, user);
      const refused = await answered;
      writer.recordClick = recordClick;
      expect(refused.status).toBe(503);
      expect(refused.body.message).toBe('request timed out; retry later');
      // the database wakes after the answer: the group commit reaches it past its deadline and rolls back
      proxy.resume();
      for (let i = 0; i < 10; i++) {
        expect(await rows()).toBe(0);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // sent again, the click counts once
      const again = await clickAd(late, publisher.apiKey, ad, user);
      expect(again.body.data.msg).toBe('click counted');
      expect(await rows()).toBe(1);
      await flushStats(late);
      const after = await flushedCampaign(t, campaignId);
      expect(after.clicks).toBe(before.clicks + 1);
      expect(after.cost).toBeCloseTo(before.cost + PRICE, 6);
    } finally {
      proxy.resume();
      await late.close();
    }
  });

  it('should answer a profile batch upload 503 at its write deadline while the database is frozen, and store nothing', async () => {
    await uploadBatch(t, publisher.apiKey, [{ messengerUserId: newUser(), isPremium: true }]); // the key now cached
    const batchesBefore = await countRows(t, 'profile_batches');
    proxy.freeze();
    await new Promise((resolve) => setTimeout(resolve, 300)); // past the key cache's 200 ms life
    const sentAt = Date.now();
    const refused = await postBatch(t, publisher.apiKey, [{ messengerUserId: newUser(), isPremium: true }]);
    const answeredMs = Date.now() - sentAt;
    proxy.resume();
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.body.message).toBe('database unavailable: nothing was stored; retry after 1 s');
    // at the write deadline (2 s), not after the freeze
    expect(answeredMs).toBeLessThan(5000);
    // the held insert reaches its commit after the answer and rolls back
    await databaseBack(t);
    for (let i = 0; i < 10; i++) {
      expect(await countRows(t, 'profile_batches')).toBe(batchesBefore);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  it('should answer a postback 503 at the read deadline while the database is frozen, storing nothing', async () => {
    const token = (await t.http().get('/api/v2/openapi/account/me').set('x-api-key', advertiser.apiKey).expect(200)).body.data.postbackToken as string;
    const rows = async () => Number((await t.app.get(DataSource).query('SELECT COUNT(*) AS n FROM conversions'))[0].n);
    const stored = await rows();
    proxy.freeze();
    const refused = await t.http().get('/api/v2/openapi/postback').query({ token, clickId: 'never-served' });
    proxy.resume();
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.body.message).toBe('database unavailable: nothing was stored; retry after 1 s');
    expect(await rows()).toBe(stored);
  });
});

/** A TCP proxy whose forwarding the test stops: `freeze` holds every byte (a frozen server), `refuse` cuts and refuses. */
class PausableProxy {
  private readonly sockets = new Set<Socket>();
  private frozen = false;
  private refusing = false;
  private readonly held: (() => void)[] = [];

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static start(host: string, port: number): Promise<PausableProxy> {
    return new Promise((resolve) => {
      let proxy!: PausableProxy;
      const server = createServer((client) => proxy.connect(client, host, port));
      server.listen(0, '127.0.0.1', () => {
        proxy = new PausableProxy(server, (server.address() as { port: number }).port);
        resolve(proxy);
      });
    });
  }

  private connect(client: Socket, host: string, port: number): void {
    if (this.refusing) return void client.destroy();
    const upstream = new Socket();
    upstream.connect(port, host);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    const forward = (from: Socket, to: Socket) =>
      from.on('data', (chunk) => {
        if (this.frozen) this.held.push(() => to.write(chunk));
        else to.write(chunk);
      });
    forward(client, upstream);
    forward(upstream, client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }

  freeze(): void {
    this.frozen = true;
  }

  refuse(): void {
    this.refusing = true;
    for (const socket of this.sockets) socket.destroy();
  }

  resume(): void {
    this.frozen = false;
    this.refusing = false;
    for (const release of this.held.splice(0)) release();
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
