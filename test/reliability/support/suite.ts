import type { Cluster as RedisCluster, default as Redis } from 'ioredis';
import { stateKeys } from '../../../src/serving/state/serving-state';
import { campaignBody } from '../../factories/campaign.factory';
import { audit, Audit } from './audit';
import { ADMIN_KEY, Cluster, healthOf, sleep, waitUntil } from './cluster';
import { apiFigureMismatches, counterMismatches, counterOffsets, redisOf } from './figures';
import { Answer, call, FETCH, Json, Ledger, newUser, runLoad, Tally, World } from './load';

/**
 * What the reliability files share: the world they set up (two publishers, two advertisers, four campaigns of which
 * two have small budgets), the load under a fault, the settled audit and what a clean audit means.
 */
const DAY = 24 * 60 * 60 * 1000;

export function print(title: string, lines: string[]): void {
  process.stdout.write(`\n[reliability] ${title}\n${lines.map((line) => `    ${line}`).join('\n')}\n`);
}

export function auditLines(result: Audit): string[] {
  return [
    `impressions answered ${result.impressionsAnswered}, counted ${result.impressionsStored} (lost ${result.impressionsLost}, extra ${result.impressionsDoubled})`,
    `clicks answered "counted" ${result.clicksCounted}, rows ${result.clickRows}, duplicates answered "not counted again" ${result.duplicateClicksAnswered}; ` +
      `lost ${result.clicksLost}, double counts ${result.clicksDoubled}, stored after an error answer ${result.clicksStoredUnacknowledged}`,
    `not billed: invalid impressions answered ${result.invalidImpressionsAnswered}, counted ${result.invalidImpressionsStored}; ` +
      `unbilled clicks answered ${result.unbilledClicksAnswered}, rows ${result.unbilledClickRows}; invalid clicks answered ${result.invalidClicksAnswered}, rows ${result.invalidClickRows}`,
    ...(result.impressionsLostInCrash > 0 ? [`impressions lost with the SIGKILLed API (its last flush interval): ${result.impressionsLostInCrash}`] : []),
    `conversions answered ${result.conversionsAnswered}, rows ${result.conversionRows} (attributed ${result.attributedConversions}); lost ${result.conversionsLost}`,
    `money: campaign/block/series mismatches ${result.moneyMismatches.length}; max overspend ${result.maxOverspendMicros} micro-USDT ` +
      `(${result.overspend
        .filter((c) => c.spentMicros >= c.totalMicros)
        .map((c) => `spent ${c.spentMicros} of ${c.totalMicros}, unit ${c.unitMicros}`)
        .join('; ')})`,
    `Redis counters = database (less leases held aside) for ${result.countersCompared ?? '-'} campaigns; series = list = detail = database for ${result.figuresCompared?.campaigns ?? '-'} campaigns and ${result.figuresCompared?.blocks ?? '-'} blocks, blocks = campaigns`,
    `profile batches accepted ${result.batchesAccepted}, done ${result.batchesDone}; profiles ${result.profilesStored} of ${result.profilesExpected}`,
    `=> events lost ${result.clicksLost + result.conversionsLost + result.impressionsLost}, double counts ${result.clicksDoubled + result.impressionsDoubled}, ` +
      `max overspend ${result.maxOverspendMicros} micro-USDT (all phases so far)`,
  ];
}

export function expectClean(result: Audit): void {
  expect(result.problems).toEqual([]);
  expect(result.clicksLost).toBe(0);
  expect(result.clicksDoubled).toBe(0);
  expect(result.conversionsLost).toBe(0);
  expect(result.impressionsLost).toBe(0);
  expect(result.impressionsDoubled).toBe(0);
  expect(result.moneyMismatches).toEqual([]);
  expect(result.batchesDone).toBe(result.batchesAccepted);
  expect(result.impressionsStored).toBe(result.impressionsAnswered - result.impressionsLostInCrash);
  expect(result.clickRows).toBe(result.clicksCounted + result.unbilledClicksAnswered + result.invalidClicksAnswered + result.clicksStoredUnacknowledged);
  expect(result.unbilledClickRows).toBe(result.unbilledClicksAnswered + result.unbilledStoredUnacknowledged);
  expect(result.invalidClickRows).toBe(result.invalidClicksAnswered + result.invalidStoredUnacknowledged);
}

export /** Polls /health/ready of the APIs every 100 ms until stopped; `seen` holds every observation. */
function watchHealth(ports: number[]) {
  const seen: { at: number; port: number; status: number; data: Json | undefined }[] = [];
  let on = true;
  const loop = (async () => {
    while (on) {
      const at = Date.now();
      const results = await Promise.all(ports.map((port) => healthOf(port)));
      results.forEach((result, i) => seen.push({ at, port: ports[i], status: result.status, data: result.body?.data }));
      await sleep(100);
    }
  })();
  return {
    seen,
    stop: async () => {
      on = false;
      await loop;
    },
  };
}

export /** A tally that also counts into whichever window tally is current. */
class WindowedTally extends Tally {
  window: Tally = new Tally();
  override add(kind: string, answer: Answer): void {
    super.add(kind, answer);
    this.window.add(kind, answer);
  }
}

export class Suite {
  readonly ledger = new Ledger();
  readonly world: World = { ports: [], publishers: [], advertisers: [], campaignOwner: new Map() };
  readonly small: { cpm: string; cpc: string } = { cpm: '', cpc: '' };

  /**
   * What each campaign's budget counter may stand off the database's spend after the phases so far (0 unless listed):
   * phase B5 sets it once it checked what the SIGKILLed process's billed and never written impressions left there.
   */
  readonly counterAllowance = new Map<string, number>();
  private readonly startedAt = Date.now();

  constructor(readonly cluster: Cluster) {}

  /**
   * Waits until the buffered impression counters of the APIs reached the database, then audits: the events against
   * the answers (support/audit.ts), the Redis budget counters against the database (`counters: false` leaves them to
   * the caller) and the API's figures against the database and each other (support/figures.ts).
   */
  async settledAudit(options: { counters?: boolean } = {}): Promise<Audit> {
    const want = this.ledger.impressionsAnswered;
    let last = -1;
    let stableSince = Date.now();
    await waitUntil(
      'impression counters written',
      async () => {
        const [row] = await this.cluster.sql<{ n: string | null }>('SELECT SUM(impressions) AS n FROM stats_hourly');
        const stored = Number(row?.n ?? 0);
        if (stored !== last) {
          last = stored;
          stableSince = Date.now();
        }
        return stored === want || Date.now() - stableSince > 3000;
      },
      20_000,
      100,
    );
    const result = await audit(this.cluster, this.ledger);
    if (options.counters !== false) {
      const redis = redisOf(this.cluster);
      try {
        // a click's entry leaves the leases hash after its commit, not awaited: a difference is read again for 3 s
        let offsets = new Map<string, number>();
        let mismatches: string[] = [];
        await waitUntil(
          'Redis counters equal to the database',
          async () => {
            offsets = await counterOffsets(this.cluster, redis);
            mismatches = counterMismatches(offsets, this.counterAllowance);
            return mismatches.length === 0;
          },
          3000,
          200,
        ).catch(() => undefined);
        result.countersCompared = offsets.size;
        result.problems.push(...mismatches);
      } finally {
        redis.disconnect();
      }
    }
    const figures = await apiFigureMismatches(this.cluster, this.world, this.startedAt);
    result.figuresCompared = { campaigns: figures.campaigns, blocks: figures.blocks };
    result.problems.push(...figures.mismatches);
    return result;
  }

  /** Takes what the counters stand off the database now as allowed from here on (phase B5, after checking it). */
  async allowCounterOffsets(): Promise<void> {
    const redis = redisOf(this.cluster);
    try {
      for (const [campaignId, offset] of await counterOffsets(this.cluster, redis)) this.counterAllowance.set(campaignId, offset);
    } finally {
      redis.disconnect();
    }
  }

  async createCampaign(advertiser: number, name: string, budget: { amount: number; total: number }, bidding: { billingType: string; costPer: number }) {
    const now = Date.now();
    const body = campaignBody({
      name,
      targeting: { includedRegions: [], includedLanguages: [], platform: 'All' },
      budget: { ...budget, startTime: now - DAY, endTime: now + 30 * DAY },
      bidding,
    });
    const answer = await call(this.world.ports[0], 'POST', '/api/v2/openapi/ad/campaign/create', { key: this.world.advertisers[advertiser].key, body });
    if (answer.status !== 200) throw new Error(`campaign create: ${answer.status} ${JSON.stringify(answer.body)}`);
    const campaignId = answer.body!.data.campaignId as string;
    this.world.campaignOwner.set(campaignId, advertiser);
    return campaignId;
  }

  async adminPost(path: string, body: unknown): Promise<Json> {
    const answer = await call(this.world.ports[0], 'POST', path, { key: ADMIN_KEY, body });
    if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body!.data;
  }

  /** A fault phase: load on both APIs, `fault` in the middle, health watched throughout. */
  /**
   * `batches: false`: no profile batches (their jobs live in Redis, which a phase may empty). `flowEveryMs`: steady
   * traffic, each of the 12 loops starting a user flow at most that often, instead of one right after the other.
   * `adsEveryMs`: besides, one ad request that often, sent whatever the flows wait for.
   */
  async underLoad(options: { before: number; after: number; fault: () => Promise<void>; batches?: boolean; flowEveryMs?: number; adsEveryMs?: number }) {
    const tally = new WindowedTally();
    const windows: Record<string, Tally> = { before: tally.window };
    let stop = false;
    const health = watchHealth(this.world.ports);
    const load = runLoad(this.world, this.ledger, tally, {
      durationMs: 10 * 60_000,
      concurrency: 12,
      tag: 'f',
      batchEveryMs: options.batches === false ? undefined : 300,
      flowEveryMs: options.flowEveryMs,
      adsEveryMs: options.adsEveryMs,
      batchSize: 300,
      stop: () => stop,
    });
    await sleep(options.before);
    tally.window = windows.during = new Tally();
    const faultStarted = Date.now();
    await options.fault();
    // requests are judged "after" from one second past recovery: answers to requests sent during the outage land here
    await sleep(1000);
    tally.window = windows.after = new Tally();
    await sleep(options.after);
    stop = true;
    await load;
    await health.stop();
    return { tally, windows, health: health.seen, faultStarted };
  }

  healthLine(seen: { at: number; port: number; status: number; data: Json | undefined }[], from: number): string {
    const compact: string[] = [];
    for (const port of this.world.ports) {
      let previous = '';
      for (const entry of seen.filter((s) => s.port === port)) {
        const state = `${entry.status} ${entry.data?.ready === undefined ? '-' : entry.data.ready ? 'ready' : 'not ready'} (db ${entry.data?.database ?? '-'}, redis ${entry.data?.redis ?? '-'})`;
        if (state !== previous) compact.push(`:${port} ${entry.at - from >= 0 ? '+' : ''}${entry.at - from} ms ${state}`);
        previous = state;
      }
    }
    return compact.join('; ');
  }

  /**
   * What the shared budget counters (Redis) and the database say each campaign spent, and what the campaigns' leases
   * hashes hold aside (unused leases, clicks billed and not yet committed): per holder, and per campaign.
   */
  async budgetCounters(redis: Redis | RedisCluster) {
    const campaigns = await this.cluster.sql<{ id: string; spentMicros: string | number }>('SELECT id, spentMicros FROM campaigns');
    const spent = new Map<string, number>();
    const outstanding = new Map<string, number>();
    const heldFor = new Map<string, number>();
    const fields: string[] = [];
    for (const campaign of campaigns) {
      spent.set(campaign.id, Number((await redis.get(stateKeys.spent(campaign.id))) ?? 0));
      for (const [field, micros] of Object.entries(await redis.hgetall(stateKeys.campaignLeases(campaign.id)))) {
        const holderId = field.split('|')[0];
        outstanding.set(holderId, (outstanding.get(holderId) ?? 0) + Number(micros));
        heldFor.set(campaign.id, (heldFor.get(campaign.id) ?? 0) + Number(micros));
        fields.push(`${campaign.id}: ${field} = ${micros}`);
      }
    }
    for (const [holderId, held] of outstanding) if (held === 0) outstanding.delete(holderId);
    return { spent, dbSpent: new Map(campaigns.map((campaign) => [campaign.id, Number(campaign.spentMicros)])), outstanding, heldFor, fields };
  }

  async setUp() {
    await this.cluster.init(2);
    const [, redisMs] = await Promise.all([Promise.resolve(this.cluster.installMariaDb()), this.cluster.startRedis()]);
    const mariaMs = await this.cluster.startMariaDb();
    const connection = await (await import('mysql2/promise')).createConnection({ host: '127.0.0.1', port: this.cluster.mysqlPort, user: 'root' });
    await connection.query('CREATE DATABASE adnet CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci');
    await connection.end();
    const api0Ms = await this.cluster.startApi(0);
    const [api1Ms, workerMs] = await Promise.all([this.cluster.startApi(1, { DB_MIGRATE: 'false' }), this.cluster.startWorker({ PROFILE_CHUNK_SIZE: '100' })]);
    this.world.ports = [...this.cluster.apiPorts];

    for (let i = 0; i < 2; i++) {
      const publisher = await this.adminPost('/api/v2/admin/accounts', { name: `Reliability publisher ${i}`, roles: ['publisher'] });
      const block = await call(this.world.ports[i], 'POST', '/api/v2/openapi/ad/block/create', { key: publisher.apiKey, body: { name: `Block ${i}` } });
      this.world.publishers.push({ key: publisher.apiKey, adBlockId: block.body!.data.adBlockId });
      const advertiser = await this.adminPost('/api/v2/admin/accounts', { name: `Reliability advertiser ${i}`, roles: ['advertiser'] });
      this.world.advertisers.push({ key: advertiser.apiKey, accountId: advertiser.accountId });
    }
    // Prices whose 70 % publisher share float multiplication gets wrong (700 × 0.7 = 489.99…, 90000 × 0.7 = 62999.99…):
    // earnings are checked to the micro-USDT.
    await this.createCampaign(0, 'Big CPM', { amount: 1000, total: 1000 }, { billingType: 'CPM', costPer: 0.7 });
    this.small.cpm = await this.createCampaign(0, 'Small CPM', { amount: 0.1, total: 0.1 }, { billingType: 'CPM', costPer: 3.7 });
    await this.createCampaign(1, 'Big CPC', { amount: 1000, total: 1000 }, { billingType: 'CPC', costPer: 0.09 });
    this.small.cpc = await this.createCampaign(1, 'Small CPC', { amount: 0.1, total: 0.1 }, { billingType: 'CPC', costPer: 0.03 });
    // Both APIs serve all four campaigns (change notices through Redis) before the load starts.
    for (const port of this.world.ports) {
      await waitUntil(
        `API :${port} serving the campaigns`,
        async () => {
          const user = newUser('warm');
          const publisher = this.world.publishers[0];
          const answer = await call(port, 'GET', `${FETCH}?adBlockId=${publisher.adBlockId}&openId=${user}&type=messenger&limit=4`, { key: publisher.key });
          for (const ad of (answer.body?.data?.ads ?? []) as Json[]) this.ledger.serve(ad.campaignId, ad.adBlockId);
          return answer.body?.data?.ads?.length === 4;
        },
        10_000,
        100,
      );
    }
    print('set-up', [
      `private MariaDB :${this.cluster.mysqlPort} up in ${mariaMs} ms, ${this.cluster.redisClusterNodes ? `private Redis Cluster ${this.cluster.redisClusterNodes}` : `private Redis :${this.cluster.redisPort} (AOF, fsync always)`} up in ${redisMs} ms`,
      `api0 :${this.world.ports[0]} (migrations) ${api0Ms} ms, api1 :${this.world.ports[1]} ${api1Ms} ms, worker ${workerMs} ms; APIs QUEUE_WORKERS=false`,
    ]);
  }
}
