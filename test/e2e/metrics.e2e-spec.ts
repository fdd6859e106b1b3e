import { ClicksFastLane } from '../../src/clicks/clicks.fast-lane';
import { ServingFastLane } from '../../src/serving/serving.fast-lane';
import { CLICK, FETCH, refreshIndex } from '../support/serving-helpers';
import { Body, clickAd, createServable, endAllCampaigns, fetchAds, fetchRaw, flushedCampaign, newUser, setStatus } from '../support/serving-fixtures';
import { TEST_PROFILE } from '../support/profile';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createAdBlock, openCampaign, createAccount } from '../support/factories';

const CONVERSION = '/api/v2/openapi/ad/event/report/conversion';
const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

type Labels = Record<string, string>;
interface Sample {
  name: string;
  labels: Labels;
  value: number;
}

/**
 * The Prometheus text format (0.0.4), strictly: `# HELP` / `# TYPE` comments, then `name{label="value",...} number`
 * lines. Throws on any line that is neither, so a scrape that parses here parses in Prometheus.
 */
function parsePrometheus(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const comment = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (comment) {
      if (comment[1] === 'TYPE') {
        expect(['counter', 'gauge', 'histogram', 'summary', 'untyped']).toContain(comment[3]);
        types.set(comment[2], comment[3]);
      }
      continue;
    }
    // Prometheus reads values with Go's ParseFloat, which takes NaN and Inf in any case (prom-client writes `Nan`)
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?(?:\d+(?:\.\d+)?(?:e[+-]?\d+)?|nan|[+-]?inf))$/i.exec(line);
    if (!sample) throw new Error(`not a Prometheus text line: ${line}`);
    const labels: Labels = {};
    const labelText = sample[2] ?? '';
    const labelPattern = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/gy;
    let consumed = 0;
    for (let match = labelPattern.exec(labelText); match; match = labelPattern.exec(labelText)) {
      labels[match[1]] = match[2];
      consumed = labelPattern.lastIndex;
      if (consumed === labelText.length) break;
    }
    if (consumed !== labelText.length) throw new Error(`bad labels in: ${line}`);
    const value = /^nan$/i.test(sample[3]) ? NaN : /inf$/i.test(sample[3]) ? (sample[3].startsWith('-') ? -Infinity : Infinity) : Number(sample[3]);
    samples.push({ name: sample[1], labels, value });
  }
  return { samples, types };
}

/** The value of the one sample with this name and these labels (at least); 0 when the series does not exist yet. */
function valueOf(samples: Sample[], name: string, labels: Labels = {}): number {
  const found = samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${found.length} series`);
  return found[0]?.value ?? 0;
}

async function scrape(t: TestApp): Promise<Sample[]> {
  const response = await t.http().get('/metrics').set('x-api-key', ADMIN_KEY).expect(200);
  expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parsePrometheus(response.text).samples;
}

describe(`GET /metrics [${TEST_PROFILE}]`, () => {
  let t: TestApp;
  let publisher: { accountId: string; apiKey: string };
  let advertiser: { accountId: string; apiKey: string };
  let block: string;
  let campaignId: string;
  const lanesTaken = { fetch: 0, click: 0 };

  beforeAll(async () => {
    t = await startTestApp({ METRICS_TOKEN });
    await endAllCampaigns(t);
    publisher = await createAccount(t, ['publisher'], 'Metrics publisher');
    advertiser = await createAccount(t, ['advertiser'], 'Metrics advertiser');
    block = await createAdBlock(t, publisher.apiKey, 'Metrics block');
    campaignId = await createServable(t, advertiser.apiKey, openCampaign({ bidding: { billingType: 'CPM', costPer: 2 } }));
    // Counts the requests the fast lanes answered, without changing what they do.
    for (const [lane, kind] of [
      [t.app.get(ServingFastLane), 'fetch'],
      [t.app.get(ClicksFastLane), 'click'],
    ] as const) {
      const tryHandle = lane.tryHandle.bind(lane);
      jest.spyOn(lane, 'tryHandle').mockImplementation((request, reply) => {
        const took = tryHandle(request, reply);
        if (took) lanesTaken[kind] += 1;
        return took;
      });
    }
  });
  afterAll(() => t.close());

  it('should refuse a scrape without an admin key or the metrics token, in the error envelope', async () => {
    const none = await t.http().get('/metrics').expect(401);
    expect(none.body).toEqual({ code: 401, message: 'an admin key in x-api-key, or Authorization: Bearer <METRICS_TOKEN>, is required', data: {} });
    const unknownKey = await t.http().get('/metrics').set('x-api-key', 'adn_not_a_key_of_anyone_here').expect(401);
    expect(unknownKey.body).toEqual({ code: 401, message: 'x-api-key is not a valid key (unknown or revoked)', data: {} });
    const wrongToken = await t.http().get('/metrics').set('authorization', `Bearer ${METRICS_TOKEN}x`).expect(401);
    expect(wrongToken.body.code).toBe(401);
    for (const key of [publisher.apiKey, advertiser.apiKey]) {
      const otherRole = await t.http().get('/metrics').set('x-api-key', key).expect(403);
      expect(otherRole.body).toEqual({ code: 403, message: "this key's account lacks the admin role", data: {} });
    }
    // a publisher's publishable key is public (it is in every end user's browser): it must not read the figures
    const serveKey = await t.http().post('/api/v2/openapi/account/keys').set('x-api-key', publisher.apiKey).send({ scope: 'serve', label: 'web' }).expect(200);
    const refused = await t.http().get('/metrics').set('x-api-key', serveKey.body.data.apiKey).expect(403);
    expect(refused.body.code).toBe(403);
    expect(refused.body.message).toContain('publishable (serve) key');
  });

  it('should answer the Prometheus text format to an admin key and to the metrics token', async () => {
    const byKey = await scrape(t);
    const byToken = await t.http().get('/metrics').set('authorization', `Bearer ${METRICS_TOKEN}`).expect(200);
    const parsed = parsePrometheus(byToken.text);
    expect(byToken.headers['cache-control']).toBe('no-store');
    for (const [name, type] of [
      ['adnet_http_request_duration_seconds', 'histogram'],
      ['adnet_ads_served_total', 'counter'],
      ['adnet_impressions_invalid_total', 'counter'],
      ['adnet_impression_spend_waived_micros_total', 'counter'],
      ['adnet_clicks_total', 'counter'],
      ['adnet_counter_write_seconds', 'histogram'],
      ['adnet_counter_write_clicks', 'histogram'],
      ['adnet_conversions_total', 'counter'],
      ['adnet_queue_jobs', 'gauge'],
      ['adnet_queue_job_failures_total', 'counter'],
      ['adnet_campaign_index_campaigns', 'gauge'],
      ['adnet_key_cache_keys', 'gauge'],
      ['adnet_key_cache_unknown_keys', 'gauge'],
      ['adnet_budget_leases_held', 'gauge'],
      ['adnet_budget_leases_remaining_usdt', 'gauge'],
      ['process_cpu_user_seconds_total', 'counter'],
      ['nodejs_eventloop_lag_seconds', 'gauge'],
      ['nodejs_heap_size_used_bytes', 'gauge'],
    ]) {
      expect([name, parsed.types.get(name)]).toEqual([name, type]);
    }
    expect(byKey.some((sample) => sample.name === 'process_resident_memory_bytes' && sample.value > 0)).toBe(true);
    for (const queue of ['profile-batch', 'verification']) {
      for (const state of ['waiting', 'delayed', 'active', 'completed', 'failed']) {
        expect(
          parsed.samples.filter((sample) => sample.name === 'adnet_queue_jobs' && sample.labels.queue === queue && sample.labels.state === state),
        ).toHaveLength(1);
      }
    }
  });

  it('should move ads served, clicks (counted, unbilled, invalid), invalid impressions and conversions by exactly what happened', async () => {
    const before = await scrape(t);
    const lanesBefore = { ...lanesTaken };
    const served: { ad: Body; user: string }[] = [];
    const N = 5;
    for (let i = 0; i < N; i++) {
      const user = newUser('metrics');
      const ads = await fetchAds(t, publisher.apiKey, block, user, { limit: 1 });
      expect(ads).toHaveLength(1);
      served.push({ ad: ads[0], user });
    }
    // M counted clicks
    const M = 3;
    for (const { ad, user } of served.slice(0, M)) {
      expect((await clickAd(t, publisher.apiKey, ad, user).expect(200)).body.data).toEqual({ status: 'success', msg: 'click counted' });
    }
    // a click on an impression of a campaign paused since: stored unbilled
    await setStatus(t, advertiser.apiKey, campaignId, 'paused');
    await clickAd(t, publisher.apiKey, served[M].ad, served[M].user).expect(200);
    await setStatus(t, advertiser.apiKey, campaignId, 'start');
    await refreshIndex(t);
    // an impression served to an HTTP library's agent (invalid traffic), then clicked: an invalid impression and click
    const botUser = newUser('metrics-bot');
    const botAds = (await fetchRaw(t, publisher.apiKey, block, botUser, { limit: 1, ua: 'curl/8.5.0' }).expect(200)).body.data.ads as Body[];
    expect(botAds).toHaveLength(1);
    await clickAd(t, publisher.apiKey, botAds[0], botUser).expect(200);
    // conversions: one credited to a counted click, one of a user who never clicked
    const conversion = (messengerUserId: string) =>
      t.http().post(CONVERSION).set('x-api-key', advertiser.apiKey).send({ eventType: 'conversion', eventData: { messengerUserId } }).expect(200);
    await conversion(served[0].user);
    await conversion(newUser('never-clicked'));

    const after = await scrape(t);
    const moved = (name: string, labels: Labels = {}) => valueOf(after, name, labels) - valueOf(before, name, labels);
    expect({
      adsServed: moved('adnet_ads_served_total'),
      invalidImpressions: moved('adnet_impressions_invalid_total'),
      counted: moved('adnet_clicks_total', { status: 'counted' }),
      unbilled: moved('adnet_clicks_total', { status: 'unbilled' }),
      invalidClicks: moved('adnet_clicks_total', { status: 'invalid' }),
      attributed: moved('adnet_conversions_total', { attributed: 'true' }),
      unattributed: moved('adnet_conversions_total', { attributed: 'false' }),
    }).toEqual({ adsServed: N, invalidImpressions: 1, counted: M, unbilled: 1, invalidClicks: 1, attributed: 1, unattributed: 1 });

    // every committed click went through one counter transaction of the ads writer, each one observed once
    const transactions = moved('adnet_counter_write_seconds_count', { writer: 'ads' });
    expect({
      clicksInTransactions: moved('adnet_counter_write_clicks_sum', { writer: 'ads' }),
      observedTogether: moved('adnet_counter_write_clicks_count', { writer: 'ads' }) === transactions,
      exchange: moved('adnet_counter_write_clicks_sum', { writer: 'exchange' }),
    }).toEqual({ clicksInTransactions: M + 2, observedTogether: true, exchange: 0 });
    expect(transactions).toBeGreaterThanOrEqual(1);
    expect(moved('adnet_counter_write_seconds_sum', { writer: 'ads' })).toBeGreaterThan(0);

    // the same figures the campaign's own statistics show, from the same writer
    const detail = await flushedCampaign(t, campaignId);
    expect({ impressions: detail.impressions, clicks: detail.clicks, conversions: detail.conversions }).toEqual({ impressions: N, clicks: M, conversions: 1 });

    // the hot routes, per route pattern, answered through the fast lanes as well
    const requests = (route: string, method: string, statusClass: string, samples = after) =>
      valueOf(samples, 'adnet_http_request_duration_seconds_count', { route, method, status_class: statusClass });
    expect(requests(FETCH, 'GET', '2xx') - requests(FETCH, 'GET', '2xx', before)).toBe(N + 1);
    expect(requests(CLICK, 'POST', '2xx') - requests(CLICK, 'POST', '2xx', before)).toBe(M + 2);
    expect(lanesTaken.fetch - lanesBefore.fetch).toBeGreaterThan(0);
    expect(lanesTaken.click - lanesBefore.click).toBeGreaterThan(0);
    const buckets = after.filter(
      (sample) => sample.name === 'adnet_http_request_duration_seconds_bucket' && sample.labels.route === FETCH && sample.labels.status_class === '2xx',
    );
    expect(buckets.find((sample) => sample.labels.le === '+Inf')!.value).toBe(requests(FETCH, 'GET', '2xx'));
  });

  it('should count errors under their route and status class, and requests matching no route apart', async () => {
    const before = await scrape(t);
    await t.http().get(FETCH).query({ openId: 'u', type: 'messenger' }).set('x-api-key', publisher.apiKey).expect(400);
    await t.http().get(FETCH).query({ adBlockId: block, openId: 'u', type: 'messenger' }).expect(401);
    await t.http().get('/no/such/route').expect(404);
    await t.http().get('/').expect(302);
    const after = await scrape(t);
    const moved = (route: string, method: string, statusClass: string) =>
      valueOf(after, 'adnet_http_request_duration_seconds_count', { route, method, status_class: statusClass }) -
      valueOf(before, 'adnet_http_request_duration_seconds_count', { route, method, status_class: statusClass });
    expect({
      fetch4xx: moved(FETCH, 'GET', '4xx'),
      unmatched: moved('(unmatched)', 'GET', '4xx'),
      root: moved('/', 'GET', '3xx'),
      // the previous scrape itself
      metrics: moved('/metrics', 'GET', '2xx'),
    }).toEqual({ fetch4xx: 2, unmatched: 1, root: 1, metrics: 1 });
  });

  it('should show the state of the campaign index, the key caches and the budget leases', async () => {
    const samples = await scrape(t);
    expect(valueOf(samples, 'adnet_campaign_index_campaigns')).toBe(1);
    // the admin's, the publisher's, the advertiser's and the publisher's serve key were checked; one unknown key
    expect(valueOf(samples, 'adnet_key_cache_keys')).toBe(4);
    expect(valueOf(samples, 'adnet_key_cache_unknown_keys')).toBe(1);
    if (TEST_PROFILE === 'embedded') {
      expect(valueOf(samples, 'adnet_budget_leases_held')).toBe(0);
      expect(valueOf(samples, 'adnet_budget_leases_remaining_usdt')).toBe(0);
    } else {
      // the one CPM campaign served here is billed from a lease of this process
      expect(valueOf(samples, 'adnet_budget_leases_held')).toBe(1);
      expect(valueOf(samples, 'adnet_budget_leases_remaining_usdt')).toBeGreaterThan(0);
    }
  });
});

describe(`The site root [${TEST_PROFILE}]`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('should send GET / to the admin panel and serve a favicon', async () => {
    const root = await t.http().get('/').expect(302);
    expect(root.headers.location).toBe('/admin/');
    const icon = await t.http().get('/favicon.ico').expect(200);
    expect(icon.headers['content-type']).toBe('image/svg+xml');
    expect(String(icon.body)).toContain('<svg');
  });

  it('should take no bearer token for /metrics when METRICS_TOKEN is not set', async () => {
    const response = await t.http().get('/metrics').set('authorization', `Bearer ${METRICS_TOKEN}`).expect(401);
    expect(response.body).toEqual({ code: 401, message: 'x-api-key header with an admin key is required', data: {} });
  });
});
