import http from 'node:http';
import { getPriority } from 'node:os';
import Redis from 'ioredis';
import { stateKeys } from '../../src/serving/state/serving-state';
import { Cluster, healthOf, sleep, waitUntil } from './support/cluster';
import { Answer, call, CLICK, CLICK_MESSAGES, FETCH, Json, Ledger, newUser, PROFILE_BATCH, runLoad, Tally, waitForBatches, World } from './support/load';
import { auditLines, expectClean, print, Suite } from './support/suite';

/**
 * Reliability with several processes and faults, on a private MariaDB and a private Redis (never the shared
 * servers): two API processes and one queue worker process, all started from the build as `npm start` runs them,
 * under concurrent load (serving, clicks, conversions, profile batches) spread over both APIs; then, each under load, Redis stopped and
 * restarted, MariaDB stopped and restarted, the worker killed mid-job, the worker and an API stopped with SIGTERM
 * mid-work, an API killed outright (SIGKILL) under load: its budget leases and the clicks it had billed but not
 * committed must come back to the shared counters exactly once its heartbeat lapsed. After each phase the database is compared with what the clients were answered (support/audit.ts):
 * nothing answered 200 is lost or counted twice, and money (integer micro-USDT) adds up exactly; each campaign's budget
 * counter in Redis, less what its leases hold aside, equals its spend in the database; and the API's campaign list,
 * detail and series, and block list, detail and series, equal the database and each other (support/figures.ts). Last, phase R: the worker
 * killed while a reward callback is in flight; the new worker delivers it under the same eventId, one reward logged.
 *
 * Redis runs with an append-only file fsynced at every write, as Redis behind BullMQ and the budget counters must
 * be run in production: a restart keeps its data. Phase B1e deletes it anyway (a Redis without persistence restarted
 * empty, twice in a row, without profile batches: their queued jobs go with the data) and checks the budgets and the
 * clicks on ads served before each loss. Phases B2f and B2k freeze MariaDB for 30 s and kill it for 10 s under steady
 * traffic and hold the ads to the bars of docs/OPERATIONS.md ("Faults").
 * The SIGKILLed worker's job comes back through BullMQ's stalled-job check: 35 to 75 s, a sixth of this suite's time.
 *
 * Needs mariadbd, mariadb-install-db and redis-server on the PATH; about 6 minutes on 2 cores.
 * Run: node node_modules/jest/bin/jest.js --config test/reliability/jest.config.js  (RELIABILITY_KEEP=1 keeps the logs;
 * RELIABILITY_API_PRELOAD=<file> preloads a probe into each API process, e.g. bench/probes/loop-monitor-preload.js;
 * RELIABILITY_API_NODE_ARGS="--trace-gc" adds node flags to them)
 */
const cluster = new Cluster();
const suite = new Suite(cluster);
const { ledger, world, small } = suite;
const suiteStarted = Date.now();
/** The issue's fault windows (docs/OPERATIONS.md, "Faults"): MariaDB frozen 30 s, killed for 10 s. */
const MARIADB_FREEZE_MS = 30_000;
const MARIADB_DOWN_MS = 10_000;
/** The issue's Redis freeze: 30 s. */
const REDIS_FREEZE_MS = 30_000;
/** The issue's lock of the `clicks` table: 10 s, within a click's HANDLER_TIMEOUT_MS (15 s). */
const CLICKS_LOCK_MS = 10_000;
/**
 * Steady traffic in the Redis freeze and MariaDB phases, as in the issue's trial (about 15 ad requests a second):
 * 12 loops, a user flow every 600 ms each (20 ad requests a second, about as many clicks). Back to back, the clicks
 * refused at once sped the loops up to some 200 requests a second, and the 2 cores the whole suite shares were
 * saturated.
 */
const STEADY_FLOW_EVERY_MS = 600;
/** Serving between the two losses of Redis' data in phase B1e. */
const REDIS_LOSS_GAP_MS = 3000;
/** For a phase's printout: what the APIs logged of the 5xx answers of its run, if it had any. */
const failures = (run: { tally: Tally; faultStarted: number }) =>
  run.tally.serverErrors > 0 ? [`logged of the 5xx answers: ${cluster.failedRequests(run.faultStarted - 3000).join(' | ') || 'nothing'}`] : [];
const settledAudit = (options?: Parameters<Suite['settledAudit']>[0]) => suite.settledAudit(options);
const createCampaign = (...args: Parameters<Suite['createCampaign']>) => suite.createCampaign(...args);
const underLoad = (options: Parameters<Suite['underLoad']>[0]) => suite.underLoad(options);
const healthLine = (...args: Parameters<Suite['healthLine']>) => suite.healthLine(...args);
const budgetCounters = (redis: Redis) => suite.budgetCounters(redis);

/** The longest answer per kind of a window, for the printed lines. */
function slowest(tally: Tally): string {
  return [...tally.slowest].map(([kind, ms]) => `${kind} ${ms} ms`).join(', ');
}

/** A tally that keeps every answer, with its timing. */
class RecordingTally extends Tally {
  readonly answers: { kind: string; answer: Answer }[] = [];
  override add(kind: string, answer: Answer): void {
    super.add(kind, answer);
    this.answers.push({ kind, answer });
  }
}

/** GET /health on a new connection (no keep-alive): refused once the server stopped listening. */
function callFresh(port: number): Promise<Answer> {
  const sentAt = Date.now();
  return new Promise((resolve) => {
    const request = http.get({ host: '127.0.0.1', port, path: '/health', agent: false, timeout: 5000 }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: null, error: null, sentAt, doneAt: Date.now() }));
    });
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ status: 0, body: null, error: error.code ?? error.message, sentAt, doneAt: Date.now() }));
  });
}

/**
 * A profile batch upload sent in two halves: the headers and first half now, the rest when `finish()` is called
 * (after SIGTERM), so the request is certainly in flight while the server closes.
 */
function startTrickledBatch(port: number, key: string, size: number) {
  const tag = `rpt${Date.now().toString(36)}`;
  const list = Array.from({ length: size }, (_, i) => ({ messengerUserId: `${tag}.${i}`, isPremium: i % 2 === 0, language: 'en' }));
  const body = Buffer.from(JSON.stringify({ list }));
  const half = Math.floor(body.length / 2);
  const sentAt = Date.now();
  let finish: () => void = () => undefined;
  const answer = new Promise<Answer>((resolve) => {
    const headers = { 'content-type': 'application/json', 'content-length': String(body.length), 'x-api-key': key };
    const request = http.request({ host: '127.0.0.1', port, path: PROFILE_BATCH, method: 'POST', agent: false, headers }, (response) => {
      let text = '';
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => {
        let parsed: Json | null;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = null;
        }
        resolve({ status: response.statusCode ?? 0, body: parsed, error: null, sentAt, doneAt: Date.now() });
      });
    });
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ status: 0, body: null, error: error.code ?? error.message, sentAt, doneAt: Date.now() }));
    request.write(body.subarray(0, half));
    finish = () => request.end(body.subarray(half));
  });
  return { tag, size, premium: list.filter((record) => record.isPremium).length, answer, finish: () => finish() };
}

beforeAll(() => suite.setUp(), 240_000);

afterAll(async () => {
  await cluster.destroy();
  print('done', [`suite ran ${((Date.now() - suiteStarted) / 1000).toFixed(1)} s`]);
}, 60_000);

describe('Several processes and faults on MariaDB + Redis (2 APIs, 1 worker)', () => {
  it('A. keeps every event exactly once and budgets exact under concurrent load over two APIs', async () => {
    const tally = new Tally();
    const started = Date.now();
    await runLoad(world, ledger, tally, { durationMs: 15_000, concurrency: 16, tag: 'a', batchEveryMs: 300, batchSize: 400 });
    const loadMs = Date.now() - started;
    const statuses = await waitForBatches(world, ledger, 60_000);
    const result = await settledAudit();
    const smallCampaigns = result.overspend.filter((c) => c.campaignId === small.cpm || c.campaignId === small.cpc);
    print('A. two APIs + one worker, concurrent load', [
      `${tally.summary()} in ${loadMs} ms`,
      `requests tried ${tally.tried}, 5xx ${tally.serverErrors}, network errors ${tally.networkErrors}`,
      ...auditLines(result),
      `small budgets: ${smallCampaigns.map((c) => `${c.spentMicros} spent of ${c.totalMicros} (overspend ${c.spentMicros - c.totalMicros}, unit ${c.unitMicros})`).join('; ')}`,
    ]);
    expect({ serverErrors: tally.serverErrors, networkErrors: tally.networkErrors, samples: tally.samples }).toEqual({
      serverErrors: 0,
      networkErrors: 0,
      samples: [],
    });
    expect([...statuses.values()].every((status) => status.status === 'done')).toBe(true);
    expectClean(result);
    expect(result.clicksStoredUnacknowledged).toBe(0);
    // the load really exercised what it claims: cross-process duplicate clicks, attributions, exhausted budgets
    expect(result.clicksCounted).toBeGreaterThan(100);
    expect(result.duplicateClicksAnswered).toBeGreaterThan(5);
    expect(result.attributedConversions).toBeGreaterThan(20);
    expect(result.batchesAccepted).toBeGreaterThan(10);
    // bots were served and clicked, and clicks on the spent small CPC campaign were recorded unbilled
    expect(result.invalidImpressionsAnswered).toBeGreaterThan(20);
    expect(result.invalidClicksAnswered).toBeGreaterThan(5);
    expect(result.unbilledClicksAnswered).toBeGreaterThan(0);
    for (const campaign of smallCampaigns) {
      expect(campaign.spentMicros).toBeGreaterThanOrEqual(campaign.totalMicros);
      expect(campaign.spentMicros).toBeLessThanOrEqual(campaign.totalMicros + campaign.unitMicros);
    }
  }, 120_000);

  it('A2. records clicks on ads of a campaign paused meanwhile as unbilled, on both APIs, reconciled exactly', async () => {
    // A CPC bid far above the others: served first to every user while it runs.
    const campaignId = await createCampaign(0, 'Paused CPC', { amount: 100, total: 100 }, { billingType: 'CPC', costPer: 50 });
    const publisher = world.publishers[0];
    const fetchFor = (port: number, user: string) =>
      call(port, 'GET', `${FETCH}?adBlockId=${publisher.adBlockId}&openId=${user}&type=messenger&limit=4`, { key: publisher.key });
    const servedTo: { user: string; ad: Json }[] = [];
    for (const port of world.ports) {
      await waitUntil(
        `API :${port} serving the new campaign`,
        async () => {
          const user = newUser('paused');
          const answer = await fetchFor(port, user);
          const ads = (answer.body?.data?.ads ?? []) as Json[];
          for (const ad of ads) ledger.serve(ad.campaignId, ad.adBlockId);
          const ad = ads.find((candidate) => candidate.campaignId === campaignId);
          if (ad) servedTo.push({ user, ad });
          return ad !== undefined;
        },
        10_000,
        100,
      );
    }
    while (servedTo.length < 10) {
      const user = newUser('paused');
      const answer = await fetchFor(world.ports[servedTo.length % 2], user);
      const ads = (answer.body?.data?.ads ?? []) as Json[];
      for (const ad of ads) ledger.serve(ad.campaignId, ad.adBlockId);
      const ad = ads.find((candidate) => candidate.campaignId === campaignId);
      if (ad) servedTo.push({ user, ad });
    }
    const paused = await call(world.ports[1], 'POST', '/api/v2/openapi/ad/campaign/status', {
      key: world.advertisers[0].key,
      body: { campaignId, status: 'paused' },
    });
    expect(paused.status).toBe(200);
    const unbilledBefore = (await settledAudit()).unbilledClicksAnswered;
    const answers = await Promise.all(
      servedTo.map(({ user, ad }, i) =>
        call(world.ports[i % 2], 'POST', '/api/v2/openapi/ad/event/report', {
          key: publisher.key,
          body: { eventType: 'click', eventData: { adBlockId: ad.adBlockId, messengerUserId: user, adId: ad.adId, campaignId: ad.campaignId } },
        }),
      ),
    );
    servedTo.forEach(({ user, ad }, i) => ledger.click(user, ad, answers[i]));
    expect(answers.map((answer) => answer.body?.data?.msg)).toEqual(servedTo.map(() => 'click recorded, not billed: the campaign is not billable now'));
    const result = await settledAudit();
    print('A2. clicks on a campaign paused meanwhile', [...auditLines(result)]);
    expectClean(result);
    expect(result.unbilledClicksAnswered - unbilledBefore).toBe(10);
    const [row] = await cluster.sql<{ clicks: number | string; unbilledClicks: number | string; spentMicros: number | string }>(
      'SELECT clicks, unbilledClicks, spentMicros FROM campaigns WHERE id = ?',
      [campaignId],
    );
    expect([Number(row.clicks), Number(row.unbilledClicks), Number(row.spentMicros)]).toEqual([0, 10, 0]);
  }, 60_000);

  it('B1. Redis stopped and restarted under load: every 200 kept, not ready while down, recovers unaided', async () => {
    const pids = cluster.apis.map((api) => api!.pid);
    let downMs = 0;
    let restartMs = 0;
    let healthyMs = 0;
    let stopInfo = '';
    const run = await underLoad({
      before: 2000,
      after: 3000,
      fault: async () => {
        const stopped = await cluster.redis!.stop('SIGTERM');
        stopInfo = `redis-server stopped (SIGTERM) in ${stopped.ms} ms`;
        const downAt = Date.now();
        await sleep(3000);
        downMs = Date.now() - downAt;
        restartMs = await cluster.startRedis();
        healthyMs = await waitUntil(
          'both APIs healthy again',
          async () => (await Promise.all(world.ports.map(healthOf))).every((h) => h.status === 200),
          30_000,
          100,
        );
      },
    });
    const statuses = await waitForBatches(world, ledger, 60_000);
    const result = await settledAudit();
    const unhealthy = run.health.filter((h) => h.status === 503 && h.data?.redis === 'down');
    print('B1. Redis stopped and restarted under load', [
      ...failures(run),
      `${stopInfo}; down ${downMs} ms; restarted in ${restartMs} ms; both APIs healthy again ${healthyMs} ms after Redis answered (no API restarted)`,
      `health: ${healthLine(run.health, run.faultStarted)}`,
      `requests tried ${run.tally.tried}: before ${run.windows.before.summary()}`,
      `during the outage: ${run.windows.during.summary()}; 5xx ${run.windows.during.serverErrors} (besides ${run.windows.during.refused} refused 503 + Retry-After), network errors ${run.windows.during.networkErrors}; slowest ${slowest(run.windows.during)}`,
      `after recovery: ${run.windows.after.summary()}; 5xx ${run.windows.after.serverErrors} (besides ${run.windows.after.refused} refused 503 + Retry-After)`,
      ...auditLines(result),
    ]);
    expect(unhealthy.filter((h) => h.port === world.ports[0]).length).toBeGreaterThan(0);
    expect(unhealthy.filter((h) => h.port === world.ports[1]).length).toBeGreaterThan(0);
    expect(cluster.apis.map((api) => api!.running && api!.pid)).toEqual(pids);
    expect({
      afterServerErrors: run.windows.after.serverErrors,
      afterNetworkErrors: run.windows.after.networkErrors,
      samples: run.windows.after.samples,
    }).toEqual({
      afterServerErrors: 0,
      afterNetworkErrors: 0,
      samples: [],
    });
    // every request answered within a second while Redis is down (refused at once once the breaker is open)
    expect(['ad', 'click', 'conversion', 'batch'].map((kind) => [kind, (run.windows.during.slowest.get(kind) ?? 0) < 1000])).toEqual([
      ['ad', true],
      ['click', true],
      ['conversion', true],
      ['batch', true],
    ]);
    expect(run.windows.after.ok).toBeGreaterThan(50);
    expect([...statuses.values()].every((status) => status.status === 'done')).toBe(true);
    expectClean(result);
  }, 150_000);

  it(`B1f. Redis frozen (SIGSTOP) ${REDIS_FREEZE_MS / 1000} s under load: ads, clicks and events answered within a second, refused ones never stored`, async () => {
    const pids = cluster.apis.map((api) => api!.pid);
    let frozenMs = 0;
    let readyMs = 0;
    // Clicks on ads served just before the freeze, sent while Redis is frozen and again once it answers: the load's
    // own clicks stop with the freeze (ads are answered without any then), so these are the clicks it must refuse.
    const probes: { user: string; ad: Json; port: number; key: string }[] = [];
    const probeClick = (probe: (typeof probes)[number]) =>
      call(probe.port, 'POST', CLICK, {
        key: probe.key,
        body: {
          eventType: 'click',
          eventData: { adBlockId: probe.ad.adBlockId, messengerUserId: probe.user, adId: probe.ad.adId, campaignId: probe.ad.campaignId },
        },
      });
    let frozenAnswers: Answer[] = [];
    const run = await underLoad({
      before: 2000,
      after: 3000,
      // steady traffic, as in the MariaDB phases: ads are answered with none at once while Redis is frozen
      flowEveryMs: STEADY_FLOW_EVERY_MS,
      fault: async () => {
        for (let i = 0; probes.length < 6 && i < 60; i++) {
          const publisher = world.publishers[i % world.publishers.length];
          const port = world.ports[i % world.ports.length];
          const user = newUser('b1fprobe');
          const fetched = await call(port, 'GET', `${FETCH}?adBlockId=${publisher.adBlockId}&openId=${user}&type=messenger&limit=1`, { key: publisher.key });
          const [ad] = (fetched.body?.data?.ads ?? []) as Json[];
          if (!ad) continue;
          ledger.serve(ad.campaignId, ad.adBlockId);
          probes.push({ user, ad, port: world.ports[(i + 1) % world.ports.length], key: publisher.key });
        }
        const frozenAt = Date.now();
        process.kill(cluster.redis!.pid, 'SIGSTOP');
        await sleep(1000);
        frozenAnswers = await Promise.all(probes.map(probeClick));
        for (const [i, answer] of frozenAnswers.entries()) ledger.click(probes[i].user, probes[i].ad, answer);
        await sleep(REDIS_FREEZE_MS - 1000);
        process.kill(cluster.redis!.pid, 'SIGCONT');
        frozenMs = Date.now() - frozenAt;
        readyMs = await waitUntil(
          'both APIs ready again',
          async () => (await Promise.all(world.ports.map(healthOf))).every((h) => h.status === 200),
          30_000,
          100,
        );
      },
    });
    const againAnswers = await Promise.all(probes.map(probeClick));
    for (const [i, answer] of againAnswers.entries()) ledger.click(probes[i].user, probes[i].ad, answer);
    const statuses = await waitForBatches(world, ledger, 60_000);
    const result = await settledAudit();
    const during = run.windows.during;
    const probeLine = (answers: Answer[]) =>
      answers
        .map((answer) => `${answer.status} ${answer.body?.data?.msg ?? answer.body?.message ?? answer.error ?? ''} (${answer.doneAt - answer.sentAt} ms)`)
        .join('; ');
    print('B1f. Redis frozen (SIGSTOP) under load', [
      ...failures(run),
      `${probes.length} clicks on ads served just before the freeze, sent 1 s into it: ${probeLine(frozenAnswers)}`,
      `the same clicks sent again after it: ${probeLine(againAnswers)}`,
      `redis-server frozen ${frozenMs} ms; both APIs ready again ${readyMs} ms after SIGCONT (no API restarted)`,
      `health: ${healthLine(run.health, run.faultStarted)}`,
      `during the freeze: ${during.summary()}; 5xx ${during.serverErrors} (besides ${during.refused} refused 503 + Retry-After), network errors ${during.networkErrors}; slowest ${slowest(during)}`,
      `after: ${run.windows.after.summary()}; 5xx ${run.windows.after.serverErrors} (besides ${run.windows.after.refused} refused)`,
      ...auditLines(result),
    ]);
    expect(cluster.apis.map((api) => api!.running && api!.pid)).toEqual(pids);
    // the bar: no request waits more than a second for Redis (a profile upload's job is queued within the deadline)
    expect(['ad', 'click', 'conversion', 'batch'].map((kind) => [kind, (during.slowest.get(kind) ?? 0) < 1000])).toEqual([
      ['ad', true],
      ['click', true],
      ['conversion', true],
      ['batch', true],
    ]);
    // the clicks sent into the freeze: each refused at once with 503 + Retry-After, then counted once when sent again
    expect(probes.length).toBe(6);
    expect(frozenAnswers.map((answer) => [answer.status, answer.doneAt - answer.sentAt < 1000, answer.headers?.['retry-after'] !== undefined])).toEqual(
      probes.map(() => [503, true, true]),
    );
    expect(againAnswers.map((answer) => answer.status === 200 && [CLICK_MESSAGES.counted, CLICK_MESSAGES.unbilled].includes(answer.body?.data?.msg))).toEqual(
      probes.map(() => true),
    );
    // a request answered 503 is never stored afterwards (over every phase so far)
    expect(result.clicksStoredUnacknowledged).toBe(0);
    expect({ serverErrors: during.serverErrors + run.windows.after.serverErrors, networkErrors: during.networkErrors }).toEqual({
      serverErrors: 0,
      networkErrors: 0,
    });
    expect([...statuses.values()].every((status) => status.status === 'done')).toBe(true);
    expectClean(result);
  }, 150_000);

  it('B2. MariaDB stopped and restarted under load: every 200 kept, ads served and still ready while down, recovers unaided', async () => {
    const pids = cluster.apis.map((api) => api!.pid);
    const storedUnacknowledgedBefore = (await settledAudit()).clicksStoredUnacknowledged;
    let downMs = 0;
    let restartMs = 0;
    let healthyMs = 0;
    let stopInfo = '';
    const run = await underLoad({
      before: 2000,
      after: 3000,
      fault: async () => {
        const stopped = await cluster.mariadb!.stop('SIGTERM');
        stopInfo = `mariadbd stopped (SIGTERM) in ${stopped.ms} ms`;
        const downAt = Date.now();
        await sleep(3000);
        downMs = Date.now() - downAt;
        restartMs = await cluster.startMariaDb();
        healthyMs = await waitUntil(
          'both APIs see the database again',
          async () => (await Promise.all(world.ports.map(healthOf))).every((h) => h.status === 200 && h.body?.data?.database === 'up'),
          30_000,
          100,
        );
      },
    });
    const statuses = await waitForBatches(world, ledger, 90_000);
    const result = await settledAudit();
    // ads are served without the database: readiness stays 200 and reports it down
    const databaseDown = run.health.filter((h) => h.data?.database === 'down');
    print('B2. MariaDB stopped and restarted under load', [
      ...failures(run),
      `${stopInfo}; down ${downMs} ms; restarted in ${restartMs} ms; both APIs healthy again ${healthyMs} ms after MariaDB answered (no API restarted)`,
      `health: ${healthLine(run.health, run.faultStarted)}`,
      `requests tried ${run.tally.tried}: before ${run.windows.before.summary()}`,
      `during the outage: ${run.windows.during.summary()}; 5xx ${run.windows.during.serverErrors} (besides ${run.windows.during.refused} refused 503 + Retry-After), network errors ${run.windows.during.networkErrors}; slowest ${slowest(run.windows.during)}`,
      `after recovery: ${run.windows.after.summary()}; 5xx ${run.windows.after.serverErrors} (besides ${run.windows.after.refused} refused 503 + Retry-After)`,
      ...auditLines(result),
    ]);
    expect(databaseDown.filter((h) => h.port === world.ports[0]).length).toBeGreaterThan(0);
    expect(databaseDown.filter((h) => h.port === world.ports[1]).length).toBeGreaterThan(0);
    // readiness does not depend on the database (a sample may catch Redis slow while MariaDB restarts on these cores)
    expect(databaseDown.filter((h) => h.data?.redis === 'up').every((h) => h.status === 200)).toBe(true);
    expect(cluster.apis.map((api) => api!.running && api!.pid)).toEqual(pids);
    expect({
      afterServerErrors: run.windows.after.serverErrors,
      afterNetworkErrors: run.windows.after.networkErrors,
      samples: run.windows.after.samples,
    }).toEqual({
      afterServerErrors: 0,
      afterNetworkErrors: 0,
      samples: [],
    });
    // the clicks of a group commit whose COMMIT answer was lost in the stop wait for its outcome (write-ledger.ts):
    // none answered 503 is stored
    expect(result.clicksStoredUnacknowledged).toBe(storedUnacknowledgedBefore);
    expect(run.windows.after.ok).toBeGreaterThan(50);
    expect([...statuses.values()].every((status) => status.status === 'done')).toBe(true);
    expectClean(result);
  }, 150_000);

  /**
   * A MariaDB fault phase (frozen or killed): ads answered from memory and Redis at their usual speed meanwhile, their
   * p99 at most `adP99Ms`.
   */
  async function mariaDbFault(name: string, adP99Ms: number, fault: () => Promise<string>, adsEveryMs?: number) {
    const pids = cluster.apis.map((api) => api!.pid);
    const before = await settledAudit();
    let faultInfo = '';
    let healthyMs = 0;
    const run = await underLoad({
      before: 2000,
      after: 3000,
      flowEveryMs: STEADY_FLOW_EVERY_MS,
      adsEveryMs,
      fault: async () => {
        faultInfo = await fault();
        healthyMs = await waitUntil(
          'both APIs see the database again',
          async () => (await Promise.all(world.ports.map(healthOf))).every((h) => h.status === 200 && h.body?.data?.database === 'up'),
          60_000,
          100,
        );
      },
    });
    const statuses = await waitForBatches(world, ledger, 120_000);
    const result = await settledAudit();
    const during = run.windows.during;
    const ads = during.answered2xx('ad');
    const timedOut = (kind: string) => (during.timedOut.get(kind) ?? 0) + (run.windows.after.timedOut.get(kind) ?? 0);
    const clicksStoredAfterError = result.clicksStoredUnacknowledged - before.clicksStoredUnacknowledged;
    const conversionsStoredAfterError = result.conversionRows - result.conversionsAnswered - (before.conversionRows - before.conversionsAnswered);
    print(name, [
      ...failures(run),
      `${faultInfo}; both APIs see the database again ${healthyMs} ms after it answered (no API restarted)`,
      `health: ${healthLine(run.health, run.faultStarted)}`,
      `during: ${during.summary()}; 5xx ${during.serverErrors} (besides ${during.refused} refused 503 + Retry-After), network errors ${during.networkErrors}`,
      `ads during: ${ads.ok} of ${ads.all} 2xx (${((100 * ads.ok) / Math.max(1, ads.all)).toFixed(1)} %), p50 ${during.percentile('ad', 0.5)} ms, p99 ${during.percentile('ad', 0.99)} ms, max ${during.slowest.get('ad') ?? 0} ms; slowest ${slowest(during)}`,
      `ads during, p50/max per 2 s sent: ${during.timeline('ad', run.faultStarted, 2000)}`,
      `in flight when it failed, answered 503 "request timed out" (HANDLER_TIMEOUT_MS): clicks ${timedOut('click')}, conversions ${timedOut('conversion')}; stored after an error answer: clicks ${clicksStoredAfterError}, conversions ${conversionsStoredAfterError}`,
      `after: ${run.windows.after.summary()}; 5xx ${run.windows.after.serverErrors} (besides ${run.windows.after.refused} refused)`,
      ...auditLines(result),
    ]);
    expect(cluster.apis.map((api) => api!.running && api!.pid)).toEqual(pids);
    // the bars: ads answered without the database (docs/CONTRACT.md §21), ≥ 99 % 2xx at the phase's p99
    expect(ads.ok / ads.all).toBeGreaterThanOrEqual(0.99);
    expect(during.percentile('ad', 0.99)).toBeLessThanOrEqual(adP99Ms);
    // a click or conversion is counted or refused (503 + Retry-After), never failed; nothing refused is stored after.
    // A conversion's write is rolled back past its deadline (src/common/write-deadline.ts): none is stored after its
    // 503. A click group commit held by the frozen database rolls back once its clicks were answered (its guard
    // before COMMIT, src/stats/stats-writes.repository.ts; e2e faults-database); what may still land is a COMMIT the
    // database was executing in the instant it froze (docs/OPERATIONS.md, "Faults").
    expect({ serverErrors: during.serverErrors + run.windows.after.serverErrors, samples: run.windows.after.samples }).toEqual({
      serverErrors: 0,
      samples: [],
    });
    expect(clicksStoredAfterError).toBeLessThanOrEqual(timedOut('click'));
    expect(conversionsStoredAfterError).toBe(0);
    expect(run.windows.after.ok).toBeGreaterThan(50);
    expect([...statuses.values()].every((status) => status.status === 'done')).toBe(true);
    expectClean(result);
  }

  it(`B2f. MariaDB frozen (SIGSTOP) ${MARIADB_FREEZE_MS / 1000} s under load: ads 2xx at their usual speed, clicks counted or refused at once`, async () => {
    // the bar of docs/OPERATIONS.md, "Faults": p99 ≤ 100 ms (single answers reach 150 ms as the held requests time
    // out and after SIGCONT)
    await mariaDbFault('B2f. MariaDB frozen (SIGSTOP) under load', 100, async () => {
      const frozenAt = Date.now();
      process.kill(cluster.mariadb!.pid, 'SIGSTOP');
      await sleep(MARIADB_FREEZE_MS);
      process.kill(cluster.mariadb!.pid, 'SIGCONT');
      return `mariadbd frozen ${Date.now() - frozenAt} ms`;
    });
  }, 240_000);

  it('B2k. MariaDB killed (SIGKILL), restarted 10 s later, under load: ads 2xx at their usual speed, nothing lost', async () => {
    // the bar of docs/OPERATIONS.md, "Faults": p99 ≤ 100 ms, though the restart's crash recovery and the APIs'
    // catching up share the two cores with the load
    await mariaDbFault('B2k. MariaDB killed (SIGKILL) under load', 100, async () => {
      const killed = await cluster.mariadb!.stop('SIGKILL');
      const downAt = Date.now();
      await sleep(MARIADB_DOWN_MS);
      const downMs = Date.now() - downAt;
      const restartMs = await cluster.startMariaDb();
      return `mariadbd killed (SIGKILL, gone in ${killed.ms} ms); down ${downMs} ms; restarted (crash recovery) in ${restartMs} ms`;
    });
  }, 240_000);

  it('B2l. the clicks table locked (LOCK TABLES WRITE) 10 s under load: ads 2xx at their usual speed, clicks wait and count, nothing lost', async () => {
    // The group commit's INSERT waits for the lock, and so do the clicks of that group and those after it: they are
    // answered once it is released, within their handler deadline, and counted. The flows wait for their clicks, so
    // steady ad requests besides them (15 a second, as in the issue's trial) keep measuring the ads.
    await mariaDbFault(
      'B2l. clicks table locked under load',
      100,
      async () => {
        const heldMs = await cluster.lockTable('clicks', CLICKS_LOCK_MS);
        return `clicks locked (LOCK TABLES ... WRITE) for ${heldMs} ms`;
      },
      1000 / 15,
    );
  }, 240_000);

  it('B1e. Redis killed and restarted empty, twice in a row, under load: every budget kept, no click on a served ad answered 400', async () => {
    const pids = cluster.apis.map((api) => api!.pid);
    const storedUnacknowledgedBefore = (await settledAudit()).clicksStoredUnacknowledged;
    // Three CPM campaigns bidding above the others (served to nearly every user), budgets that run out before, between
    // and after the two losses; the counters Redis loses are seeded again while both APIs hold leases of them.
    const UNIT_MICROS = 5000;
    const totals = [1, 2, 4];
    const lossCampaigns: string[] = [];
    for (const [i, total] of totals.entries()) {
      lossCampaigns.push(await createCampaign(i % 2, `Loss CPM ${total}`, { amount: total, total }, { billingType: 'CPM', costPer: UNIT_MICROS / 1000 }));
    }
    for (const port of world.ports) {
      await waitUntil(
        `API :${port} serving the loss campaigns`,
        async () => {
          const publisher = world.publishers[0];
          const answer = await call(port, 'GET', `${FETCH}?adBlockId=${publisher.adBlockId}&openId=${newUser('warm')}&type=messenger&limit=4`, {
            key: publisher.key,
          });
          const ads = (answer.body?.data?.ads ?? []) as Json[];
          for (const ad of ads) ledger.serve(ad.campaignId, ad.adBlockId);
          return lossCampaigns.every((id) => ads.some((ad) => ad.campaignId === id));
        },
        20_000,
        100,
      );
    }
    const losses: string[] = [];
    const run = await underLoad({
      before: 2000,
      after: 3000,
      batches: false,
      fault: async () => {
        for (let loss = 1; loss <= 2; loss++) {
          const killedAt = Date.now();
          await cluster.killRedisAndItsData();
          const restartMs = await cluster.startRedis();
          const readyMs = await waitUntil(
            'both APIs ready again',
            async () => (await Promise.all(world.ports.map(healthOf))).every((h) => h.status === 200),
            30_000,
            100,
          );
          losses.push(
            `loss ${loss}: redis-server SIGKILLed, its data deleted, restarted empty in ${restartMs} ms; both APIs ready ${readyMs} ms later (${Date.now() - killedAt} ms after the kill)`,
          );
          await sleep(REDIS_LOSS_GAP_MS);
        }
      },
    });
    // then ads alone on both APIs until the smallest budget is spent out (how far the phase got depends on the cores'
    // load): its last units come from counters seeded again after both losses
    const spentOf = async (id: string) => Number((await cluster.sql<{ s: string | number }>('SELECT spentMicros AS s FROM campaigns WHERE id = ?', [id]))[0].s);
    const smallest = lossCampaigns[0];
    const topUpStarted = Date.now();
    await waitUntil(
      'the smallest loss budget spent out',
      async () => {
        await Promise.all(
          world.ports.map(async (port) => {
            const publisher = world.publishers[0];
            const answer = await call(port, 'GET', `${FETCH}?adBlockId=${publisher.adBlockId}&openId=${newUser('topup')}&type=messenger&limit=4`, {
              key: publisher.key,
            });
            for (const ad of (answer.body?.data?.ads ?? []) as Json[]) ledger.serve(ad.campaignId, ad.adBlockId);
          }),
        );
        return (await spentOf(smallest)) >= totals[0] * 1_000_000;
      },
      90_000,
      0,
    );
    const topUpMs = Date.now() - topUpStarted;
    const result = await settledAudit();
    const budgets = await cluster.sql<{ id: string; spentMicros: string | number; totalBudgetMicros: string | number; impressions: string | number }>(
      `SELECT id, spentMicros, totalBudgetMicros, impressions FROM campaigns WHERE id IN (${lossCampaigns.map(() => '?').join(', ')})`,
      lossCampaigns,
    );
    const during = run.windows.during;
    const clicks400 = (['before', 'during', 'after'] as const).reduce((sum, window) => sum + (run.windows[window]?.count('click', '400') ?? 0), 0);
    print('B1e. Redis killed and restarted empty, twice in a row, under load', [
      ...failures(run),
      ...losses,
      `health: ${healthLine(run.health, run.faultStarted)}`,
      `during: ${during.summary()}; 5xx ${during.serverErrors} (besides ${during.refused} refused 503 + Retry-After and ${during.stateLost} clicks on ads served before a loss answered 503 "impression records lost"), network errors ${during.networkErrors}; slowest ${slowest(during)}`,
      `after: ${run.windows.after.summary()}; 5xx ${run.windows.after.serverErrors} (besides ${run.windows.after.refused} refused, ${run.windows.after.stateLost} "impression records lost")`,
      `clicks answered 400: ${clicks400}; ads alone after the phase until the 1 USDT budget was spent out: ${topUpMs} ms`,
      ...budgets.map(
        (b) =>
          `CPM ${Number(b.totalBudgetMicros) / 1e6} USDT budget: spent ${b.spentMicros} of ${b.totalBudgetMicros} micro-USDT (${b.impressions} impressions; over by ${Math.max(0, Number(b.spentMicros) - Number(b.totalBudgetMicros))}, unit ${UNIT_MICROS})`,
      ),
      ...auditLines(result),
    ]);
    expect(cluster.apis.map((api) => api!.running && api!.pid)).toEqual(pids);
    // every budget kept through both losses, the smallest spent out
    for (const budget of budgets) expect(Number(budget.spentMicros)).toBeLessThanOrEqual(Number(budget.totalBudgetMicros) + UNIT_MICROS);
    expect(Number(budgets.find((budget) => budget.id === smallest)!.spentMicros)).toBeGreaterThanOrEqual(totals[0] * 1_000_000);
    expect(clicks400).toBe(0);
    // every request answered within a second, none failed
    expect(['ad', 'click', 'conversion'].map((kind) => [kind, (during.slowest.get(kind) ?? 0) < 1000])).toEqual([
      ['ad', true],
      ['click', true],
      ['conversion', true],
    ]);
    expect({
      serverErrors: during.serverErrors + run.windows.after.serverErrors,
      networkErrors: during.networkErrors,
      samples: run.windows.after.samples,
    }).toEqual({
      serverErrors: 0,
      networkErrors: 0,
      samples: [],
    });
    expect(result.clicksStoredUnacknowledged).toBe(storedUnacknowledgedBefore);
    expectClean(result);
  }, 240_000);

  it('B3. the worker killed (SIGKILL) mid-job, then restarted: the job and the ones queued meanwhile finish', async () => {
    const tally = new Tally();
    let stop = false;
    const load = runLoad(world, ledger, tally, { durationMs: 10 * 60_000, concurrency: 6, tag: 'k', batchEveryMs: 250, batchSize: 1500, stop: () => stop });
    // a batch part-applied: the job is under way (1500 records, 100 per chunk)
    let victim = '';
    await waitUntil(
      'a batch part-applied',
      async () => {
        const rows = await cluster.sql<{ id: string }>(
          "SELECT id FROM profile_batches WHERE status = 'processing' AND processed > 0 AND processed < total LIMIT 1",
        );
        victim = rows[0]?.id ?? '';
        return victim !== '';
      },
      30_000,
      20,
    );
    await cluster.worker!.stop('SIGKILL');
    const killedAt = Date.now();
    const [atKill] = await cluster.sql<{ status: string; processed: number; total: number }>(
      'SELECT status, processed, total FROM profile_batches WHERE id = ?',
      [victim],
    );
    const acceptedBefore = ledger.batches.length;
    await sleep(1500);
    const restartMs = await cluster.startWorker({ PROFILE_CHUNK_SIZE: '100' });
    // background work: the worker yields the cores to the APIs beside it (WORKER_NICE, docs/OPERATIONS.md)
    const workerNice = getPriority(cluster.worker!.pid);
    const acceptedWhileDown = ledger.batches.length - acceptedBefore;
    await sleep(2000);
    stop = true;
    await load;
    await waitUntil(
      'the killed job finished by the new worker',
      async () => {
        const [row] = await cluster.sql<{ status: string }>('SELECT status FROM profile_batches WHERE id = ?', [victim]);
        return row.status === 'done';
      },
      90_000,
      200,
    );
    const victimDoneMs = Date.now() - killedAt;
    const statuses = await waitForBatches(world, ledger, 60_000);
    const allDoneMs = Date.now() - killedAt;
    const result = await settledAudit();
    print('B3. worker killed (SIGKILL) mid-job, restarted', [
      `killed while batch ${victim} was ${atKill.status} (${atKill.processed} of ${atKill.total} records applied)`,
      `worker restarted in ${restartMs} ms, at nice ${workerNice}; batches accepted while no worker ran: ${acceptedWhileDown}`,
      `the killed job finished ${(victimDoneMs / 1000).toFixed(1)} s after the kill (BullMQ hands a dead worker's job back once its ` +
        `30 s lock has expired and a stalled-job check, every 30 s, has seen it twice)`,
      `every batch done ${(allDoneMs / 1000).toFixed(1)} s after the kill; requests ${tally.summary()}; 5xx ${tally.serverErrors}`,
      ...auditLines(result),
    ]);
    expect(atKill.status).toBe('processing');
    expect(workerNice).toBe(10);
    expect({ serverErrors: tally.serverErrors, networkErrors: tally.networkErrors }).toEqual({ serverErrors: 0, networkErrors: 0 });
    expect([...statuses.values()].every((status) => status.status === 'done')).toBe(true);
    expectClean(result);
  }, 200_000);

  it('B4a. SIGTERM to the worker mid-job: the job is finished (or handed back), never lost', async () => {
    const tally = new Tally();
    let stop = false;
    const load = runLoad(world, ledger, tally, { durationMs: 10 * 60_000, concurrency: 6, tag: 't', batchEveryMs: 250, batchSize: 1500, stop: () => stop });
    let victim = '';
    await waitUntil(
      'a batch part-applied',
      async () => {
        const rows = await cluster.sql<{ id: string }>(
          "SELECT id FROM profile_batches WHERE status = 'processing' AND processed > 0 AND processed < total LIMIT 1",
        );
        victim = rows[0]?.id ?? '';
        return victim !== '';
      },
      30_000,
      20,
    );
    const stopped = await cluster.worker!.stop('SIGTERM');
    const [atExit] = await cluster.sql<{ status: string; processed: number; total: number }>(
      'SELECT status, processed, total FROM profile_batches WHERE id = ?',
      [victim],
    );
    const stuck = await cluster.sql<{ id: string }>("SELECT id FROM profile_batches WHERE status = 'processing'");
    const restartMs = await cluster.startWorker({ PROFILE_CHUNK_SIZE: '100' });
    await sleep(1000);
    stop = true;
    await load;
    const statuses = await waitForBatches(world, ledger, 60_000);
    const result = await settledAudit();
    print('B4a. SIGTERM to the worker mid-job', [
      `worker exited ${stopped.signal ?? `code ${stopped.code}`} ${stopped.ms} ms after SIGTERM; the batch under way (${victim}) was then ${atExit.status}, ` +
        `${atExit.processed} of ${atExit.total} records; batches left 'processing': ${stuck.length}`,
      `worker restarted in ${restartMs} ms; requests ${tally.summary()}; 5xx ${tally.serverErrors}`,
      ...auditLines(result),
    ]);
    expect(['done', 'queued']).toContain(atExit.status);
    expect(stuck).toEqual([]);
    expect({ serverErrors: tally.serverErrors, networkErrors: tally.networkErrors }).toEqual({ serverErrors: 0, networkErrors: 0 });
    expect([...statuses.values()].every((status) => status.status === 'done')).toBe(true);
    expectClean(result);
  }, 120_000);

  it('B4b. SIGTERM to an API with requests in flight: they complete with 200 and are kept', async () => {
    const port = world.ports[0];
    const api = cluster.apis[0]!;
    const before = await settledAudit();
    const tally = new RecordingTally();
    let stop = false;
    // steady load on api0 alone: 16 user flows (ads, clicks, conversions) and 3 uploaders of 2000-record batches
    const only0: World = { ...world, ports: [port] };
    const options = { durationMs: 60_000, tag: 's', batchSize: 2000, stop: () => stop };
    const load = Promise.all([
      runLoad(only0, ledger, tally, { ...options, concurrency: 16 }),
      ...[1, 2, 3].map(() => runLoad(only0, ledger, tally, { ...options, concurrency: 0, batchEveryMs: 1 })),
    ]);
    await sleep(1300);
    const trickled = startTrickledBatch(port, world.publishers[0].key, 500);
    await sleep(200);
    const sigtermAt = Date.now();
    api.child.kill('SIGTERM');
    // the moment the HTTP server closes: a fresh connection is refused
    let closedAt = 0;
    while (closedAt === 0 && Date.now() - sigtermAt < 20_000) {
      const probe = await callFresh(port);
      if (probe.status === 0) closedAt = probe.sentAt;
      else await sleep(2);
    }
    trickled.finish();
    const trickledAnswer = await trickled.answer;
    if (trickledAnswer.status === 200) {
      ledger.batches.push({
        batchId: trickledAnswer.body?.data?.batchId,
        key: world.publishers[0].key,
        tag: trickled.tag,
        size: trickled.size,
        premium: trickled.premium,
        wallets: 0,
      });
    }
    stop = true;
    await load;
    const exit = await api.exited;
    const exitMs = (api.exitedAt ?? Date.now()) - sigtermAt;
    const answers = tally.answers;
    const inFlightAtClose = answers.filter(({ answer }) => answer.sentAt < closedAt && answer.doneAt > closedAt && answer.status === 200);
    const afterClose = answers.filter(({ answer }) => answer.sentAt >= closedAt);
    const refusedOrReset = answers.filter(({ answer }) => answer.status === 0);
    const closing503 = answers.filter(({ answer }) => answer.status === 503 && answer.body?.message === 'Service Unavailable');
    const bad = answers.filter(({ answer }) => answer.status !== 200 && answer.status !== 0 && !closing503.some((c) => c.answer === answer));

    world.ports = [world.ports[1]];
    const statuses = await waitForBatches(world, ledger, 60_000);
    const result = await settledAudit();
    print('B4b. SIGTERM to an API with requests in flight', [
      `steady load on api0 (16 user flows: ads, clicks, conversions; 3 uploaders of 2000-record batches), SIGTERM after 1.5 s; its listener closed ${closedAt - sigtermAt} ms later`,
      `requests ${tally.summary()}`,
      `in flight when the server closed, answered 200: ${inFlightAtClose.length} (${[...new Set(inFlightAtClose.map((a) => a.kind))].join(', ')}); ` +
        `sent after it closed: ${afterClose.length}; refused/reset ${refusedOrReset.length}, 503 closing ${closing503.length}, other errors ${bad.length}`,
      `a batch upload whose second half was sent after the listener closed: ${trickledAnswer.status} ${trickledAnswer.body?.data?.batchId ?? trickledAnswer.error ?? ''}`,
      `api0 exited ${exit.signal ?? `code ${exit.code}`} ${exitMs} ms after SIGTERM`,
      `stored without a 200 answer: clicks ${result.clicksStoredUnacknowledged - before.clicksStoredUnacknowledged}, ` +
        `impressions ${result.impressionsDoubled}, conversions ${result.conversionsUnexplained}, batches ${result.batchesStoredUnanswered - before.batchesStoredUnanswered}`,
      ...auditLines(result),
      `error log lines of the processes: ${cluster.errorLines().length}`,
    ]);
    expect(bad.map(({ kind, answer }) => `${kind} ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 120)}`)).toEqual([]);
    expect(closedAt).toBeGreaterThan(0);
    // a request under way at SIGTERM is finished and answered: the upload completed after the listener had closed
    expect(trickledAnswer.status).toBe(200);
    expect(trickledAnswer.body?.data?.batchId).toEqual(expect.any(String));
    // idle keep-alive connections do not hold the process open
    expect(exitMs).toBeLessThan(10_000);
    expect(exit.signal === 'SIGTERM' || exit.code === 0).toBe(true);
    // nothing was done without its answer reaching the client (a request cut off mid-way)
    expect(result.clicksStoredUnacknowledged).toBe(before.clicksStoredUnacknowledged);
    expect(result.batchesStoredUnanswered).toBe(before.batchesStoredUnanswered);
    expect([...statuses.values()].every((status) => status.status === 'done')).toBe(true);
    expect((await healthOf(world.ports[0])).status).toBe(200);
    expectClean(result);
  }, 120_000);

  it('B5. an API SIGKILLed under load: the other serves on, its leases come back to the counters exactly', async () => {
    const survivorPort = world.ports[0];
    // the victim's heartbeat lives 3 s instead of 30 s, so its leases are reclaimed within this test
    await cluster.startApi(0, { DB_MIGRATE: 'false', LEASE_HOLDER_TTL_MS: '3000' });
    const victimPort = cluster.apiPorts[0];
    const victim = cluster.apis[0]!;
    const redis = new Redis(cluster.redisUrl, { keyPrefix: cluster.redisPrefix, maxRetriesPerRequest: 2 });
    try {
      await waitUntil(
        `API :${victimPort} serving`,
        async () => {
          const publisher = world.publishers[0];
          const answer = await call(victimPort, 'GET', `${FETCH}?adBlockId=${publisher.adBlockId}&openId=${newUser('warm')}&type=messenger&limit=4`, {
            key: publisher.key,
          });
          for (const ad of (answer.body?.data?.ads ?? []) as Json[]) ledger.serve(ad.campaignId, ad.adBlockId);
          return (answer.body?.data?.ads?.length ?? 0) > 0;
        },
        20_000,
        100,
      );
      await settledAudit();
      // No lease outstanding anywhere (idle leases go back after LEASE_IDLE_MS, 5 s): the counters minus the database's spend is then
      // what earlier crashes' lost impressions cost, nothing in flight.
      let before = await budgetCounters(redis);
      await waitUntil(
        'no lease outstanding before the phase',
        async () => {
          before = await budgetCounters(redis);
          return before.outstanding.size === 0;
        },
        20_000,
        200,
      ).catch((error: Error) => {
        throw new Error(`${error.message}; held: ${before.fields.join('; ')}`);
      });

      const victimLedger = new Ledger();
      const victimTally = new Tally();
      const survivorTally = new Tally();
      let stopVictim = false;
      let stopSurvivor = false;
      const victimLoad = runLoad({ ...world, ports: [victimPort] }, victimLedger, victimTally, {
        durationMs: 60_000,
        concurrency: 8,
        tag: 'k',
        stop: () => stopVictim,
      });
      const survivorLoad = runLoad({ ...world, ports: [survivorPort] }, ledger, survivorTally, {
        durationMs: 60_000,
        concurrency: 8,
        tag: 'q',
        stop: () => stopSurvivor,
      });
      await sleep(1500);
      // answered before this point were flushed before the kill (STATS_FLUSH_MS is 250 ms here)
      const servedBeforeFlushMargin = new Map(victimLedger.served);
      const invalidServedBeforeFlushMargin = new Map(victimLedger.invalidServed);
      await sleep(1000);
      const atKill = await budgetCounters(redis);
      const killedAt = Date.now();
      victim.child.kill('SIGKILL');
      stopVictim = true;
      await victimLoad;
      const exit = await victim.exited;
      // the holder whose heartbeat lapsed is the victim's: what its hash held at the kill was stranded
      await sleep(3500);
      const lapsed: string[] = [];
      for (const holderId of atKill.outstanding.keys()) if ((await redis.exists(stateKeys.leaseHolder(holderId))) === 0) lapsed.push(holderId);
      const strandedMicros = lapsed.reduce((sum, holderId) => sum + (atKill.outstanding.get(holderId) ?? 0), 0);
      // the survivor serves on while the victim's leases lapse (3 s) and are reclaimed (its sweep runs every 5 s)
      await sleep(8000);
      stopSurvivor = true;
      await survivorLoad;

      for (const [key, count] of victimLedger.served) {
        const recent = count - (servedBeforeFlushMargin.get(key) ?? 0);
        if (recent > 0) victimLedger.mayBeLost.set(key, recent);
      }
      for (const [key, count] of victimLedger.invalidServed) {
        const recent = count - (invalidServedBeforeFlushMargin.get(key) ?? 0);
        if (recent > 0) victimLedger.invalidMayBeLost.set(key, recent);
      }
      ledger.absorb(victimLedger);
      // the counters are compared below, once every lease is back: the lost impressions leave them off the database
      const result = await settledAudit({ counters: false });
      // every lease back: the victim's reclaimed, the survivor's returned when idle
      let after = await budgetCounters(redis);
      await waitUntil(
        'every lease back on the counters',
        async () => {
          after = await budgetCounters(redis);
          return after.outstanding.size === 0;
        },
        30_000,
        200,
      );
      const prices = new Map(
        (await cluster.sql<{ id: string; billingType: string; costPerMicros: string | number }>('SELECT id, billingType, costPerMicros FROM campaigns')).map(
          (row) => [row.id, { cpm: row.billingType === 'CPM', costPer: Number(row.costPerMicros) }],
        ),
      );
      // Per campaign, the counters moved by what the database shows plus the lost impressions' price: no unit of the
      // killed process's leases is missing or returned twice.
      const drift = [...after.spent.keys()].map((campaignId) => {
        const price = prices.get(campaignId)!;
        const moved = after.spent.get(campaignId)! - (before.spent.get(campaignId) ?? 0);
        const stored = after.dbSpent.get(campaignId)! - (before.dbSpent.get(campaignId) ?? 0);
        const lost = (result.lostInCrashByCampaign.get(campaignId) ?? 0) * (price.cpm ? price.costPer / 1000 : 0);
        return { campaignId, cpm: price.cpm, clickPrice: price.cpm ? 0 : price.costPer, moved, stored, lost, off: moved - stored - lost };
      });
      const cutOff = (kind: string) =>
        [...(victimTally.byKind.get(kind) ?? new Map<string, number>())]
          .filter(([status]) => status.startsWith('net:'))
          .reduce((sum, [, count]) => sum + count, 0);
      const clicksCutOff = cutOff('click');
      const adsCutOff = cutOff('ad');
      const mayBeLost = [...victimLedger.mayBeLost.values()].reduce((sum, count) => sum + count, 0);
      print('B5. an API SIGKILLed under load', [
        `api0 (LEASE_HOLDER_TTL_MS=3000) and api1 under load, 8 user flows each; api0 SIGKILLed after 2.5 s (exit ${exit.signal ?? exit.code}), api1 on for 11.5 s more`,
        `api0 requests ${victimTally.summary()}`,
        `api1 requests ${survivorTally.summary()}`,
        `leases of api0 stranded at the kill: ${strandedMicros} micro-USDT (holders lapsed ${lapsed.length}); every lease back on the counters ${Date.now() - killedAt} ms after the kill`,
        `impressions api0 answered in its last second: ${mayBeLost}, of which not counted: ${result.impressionsLostInCrash}`,
        ...drift.map(
          (d) =>
            `${d.cpm ? 'CPM' : 'CPC'} campaign ${d.campaignId}: counters +${d.moved}, database +${d.stored}, lost impressions ${d.lost} => off by ${d.off}`,
        ),
        `requests to api0 cut off by the kill: ad ${adsCutOff}, click ${clicksCutOff}`,
        ...auditLines(result),
      ]);
      expect(exit.signal).toBe('SIGKILL');
      expect(survivorTally.serverErrors).toBe(0);
      expect(survivorTally.networkErrors).toBe(0);
      expect(strandedMicros).toBeGreaterThan(0);
      expect(lapsed).toHaveLength(1);
      expect(result.impressionsLostInCrash).toBeLessThanOrEqual(mayBeLost);
      // CPM: every impression the database counted (billed to the advertiser) was charged to the counters: they moved
      // by at least what the database shows. The impressions lost in the crash were charged only if the victim had
      // billed its leases in Redis before the kill (every 100 ms, and always before it wrote impressions); those it
      // had not went back to the budget with its leases: served free. Beyond the lost ones, at most one impression per
      // campaign and ad request cut off by the kill (billed for an answer that never reached its client). CPC: a click
      // billed by its script and cut off before its row was committed went back with the reclaimed holder, and one
      // committed just before the kill stayed billed (the reclaim asks the database which of them have their row):
      // exact.
      for (const d of drift.filter((entry) => entry.cpm)) {
        const unit = prices.get(d.campaignId)!.costPer / 1000;
        expect(Math.abs(d.off % unit)).toBe(0);
        expect(d.moved).toBeGreaterThanOrEqual(d.stored);
        expect(d.off / unit).toBeLessThanOrEqual(adsCutOff);
      }
      expect(drift.filter((d) => !d.cpm && d.off !== 0)).toEqual([]);
      expect(drift.some((d) => d.stored > 0)).toBe(true);
      expectClean(result);
      // what the lost impressions left on the counters, checked above, is what later phases' audits allow
      await suite.allowCounterOffsets();
    } finally {
      redis.disconnect();
    }
  }, 150_000);

  it('R. the worker killed (SIGKILL) while a reward callback is in flight: the reward is delivered, under one eventId', async () => {
    // the publisher's reward endpoint: it holds the first call unanswered (the worker dies waiting), answers the rest
    const received: { eventId: string; at: number }[] = [];
    const server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ eventId: String((JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json).eventId), at: Date.now() });
        if (received.length > 1) response.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const rewardUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/reward`;
    try {
      // loopback targets allowed for this phase's workers; a long timeout keeps the first call in flight
      await cluster.worker!.stop('SIGTERM');
      await cluster.startWorker({ VERIFICATION_ALLOW_PRIVATE: 'true', REWARD_TIMEOUT_MS: '60000' });
      // the API the earlier phases left serving (B5 SIGKILLs api0 and leaves api1)
      const port = cluster.apiPorts[1];
      await waitUntil(`API :${port} ready`, async () => (await call(port, 'GET', '/health/ready')).status === 200, 20_000, 100);
      const publisher = world.publishers[0];
      const created = await call(port, 'POST', '/api/v2/openapi/ad/block/create', {
        key: publisher.key,
        body: { name: 'Rewarded', format: 'rewarded', minViewMs: 5000, rewardUrl: 'https://rewards.example.com/hook' },
      });
      if (created.status !== 200) throw new Error(`block create answered ${created.status} ${created.error ?? JSON.stringify(created.body)}`);
      const adBlockId = String(created.body!.data.adBlockId);
      // the APIs refuse a loopback URL; the worker's guard is what this phase relies on
      await cluster.sql('UPDATE ad_blocks SET rewardUrl = ? WHERE id = ?', [rewardUrl, adBlockId]);
      const user = newUser('reward');
      const fetched = await call(port, 'GET', `${FETCH}?adBlockId=${adBlockId}&openId=${user}&type=messenger&limit=1`, { key: publisher.key });
      const ad = (fetched.body!.data.ads as Json[])[0];
      await sleep(5200);
      const completed = await call(port, 'POST', '/api/v2/openapi/ad/event/report', {
        key: publisher.key,
        body: { eventType: 'complete', eventData: { adBlockId, messengerUserId: user, adId: ad.adId, campaignId: ad.campaignId } },
      });
      expect(completed.body?.data.msg).toBe('completion counted');
      await waitUntil('the first callback in flight', async () => received.length === 1, 30_000, 20);
      await cluster.worker!.stop('SIGKILL');
      const killedAt = Date.now();
      await cluster.startWorker({ VERIFICATION_ALLOW_PRIVATE: 'true' });
      const rows = async () =>
        cluster.sql<{ eventId: string; status: string; attempts: number }>('SELECT eventId, status, attempts FROM reward_deliveries WHERE adBlockId = ?', [
          adBlockId,
        ]);
      await waitUntil('the reward delivered by the new worker', async () => (await rows())[0]?.status === 'delivered', 150_000, 200);
      const [reward] = await rows();
      print('R. worker killed (SIGKILL) while a reward callback was in flight', [
        `calls received: ${received.length}, all for eventId ${reward.eventId}: ${received.every((call) => call.eventId === reward.eventId)}`,
        `delivered ${((received[received.length - 1].at - killedAt) / 1000).toFixed(1)} s after the kill (BullMQ hands the dead worker's job back)`,
      ]);
      expect(await rows()).toHaveLength(1);
      expect(received.map((call) => call.eventId)).toEqual(received.map(() => reward.eventId));
      // the killed try was never recorded: the delivered one is the only try the log knows
      expect({ status: reward.status, attempts: Number(reward.attempts) }).toEqual({ status: 'delivered', attempts: 1 });
      expect(received.length).toBe(2);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }, 240_000);
});
