import { randomBytes } from 'node:crypto';
import { ManualClock } from '../../../src/common/clock';
import { TEST_PROFILE } from '../../support/profile';
import { flushStats, refreshIndex } from '../../support/serving-helpers';
import { blockDetail, Body, createServable, fetchAds, flushedCampaign, HOUR, newUser } from '../../support/serving-fixtures';
import { startTestApp, TestApp } from '../../support/test-app';
import { createAdBlock, openCampaign, createAccount } from '../../support/factories';

/**
 * A publisher's key is public: anyone can replay ad requests for one user as fast as they like. The network-wide
 * cap (USER_IMPRESSIONS_PER_HOUR) bounds what one (block, user) pair can bill in an hour, and a campaign's
 * frequencyCap bounds how often one user sees it; capped ads are simply not served (docs/TRUST_AND_SAFETY.md).
 */

/** 1 USDT CPM: every impression bills exactly 1000 micro-USDT. */
const CPM_1 = { billingType: 'CPM', costPer: 1 };

const micros = (usdt: unknown) => Math.round((usdt as number) * 1e6);

/** Served ads per request of a user hammering one block, the limit cycling through 1..9. */
async function hammer(t: TestApp, apiKey: string, block: string, user: string, requests: number): Promise<number[]> {
  const served: number[] = [];
  for (let i = 0; i < requests; i++) served.push((await fetchAds(t, apiKey, block, user, { limit: (i % 9) + 1 })).length);
  return served;
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

describe('Abuse: one user hammering one block (USER_IMPRESSIONS_PER_HOUR=5)', () => {
  let t: TestApp;
  const clock = new ManualClock();
  let publisher: { apiKey: string };
  let campaigns: string[];

  beforeAll(async () => {
    t = await startTestApp({ USER_IMPRESSIONS_PER_HOUR: '5' }, { clock });
    publisher = await createAccount(t, ['publisher'], 'Hammered publisher');
    const advertiser = await createAccount(t, ['advertiser'], 'Advertiser');
    campaigns = [];
    for (let i = 0; i < 10; i++) {
      campaigns.push(await createServable(t, advertiser.apiKey, openCampaign({ name: `c${i}`, bidding: { ...CPM_1, costPer: 1 + i / 10 } }, clock.now())));
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  const totals = async () => {
    let impressions = 0;
    let cost = 0;
    for (const id of campaigns) {
      const detail = await flushedCampaign(t, id);
      impressions += detail.impressions as number;
      cost += micros(detail.cost);
    }
    return { impressions, costMicros: cost };
  };

  it('serves and bills exactly 5 impressions to the pair in the hour, leaves other users alone, and serves again an hour later', async () => {
    const block = await createAdBlock(t, publisher.apiKey, 'Hammered block');
    const before = await totals();
    const attacker = newUser('attacker');

    const served = await hammer(t, publisher.apiKey, block, attacker, 20);
    // limits 1, 2, 3, ...: 1 + 2 + 2 (the cap cut the third request short), then nothing
    expect(served).toEqual([1, 2, 2, ...new Array(17).fill(0)]);

    // another user on the same block, and the same user on another block, are served as usual
    const bystander = newUser('bystander');
    expect(await fetchAds(t, publisher.apiKey, block, bystander, { limit: 4 })).toHaveLength(4);
    const otherBlock = await createAdBlock(t, publisher.apiKey, 'Other block');
    expect(await fetchAds(t, publisher.apiKey, otherBlock, attacker, { limit: 3 })).toHaveLength(3);

    const after = await totals();
    expect(after.impressions - before.impressions).toBe(5 + 4 + 3);
    // the best ranked are served: 1900, 1800, ... micro-USDT an impression (1.9, 1.8, ... USDT CPM)
    const billed = [1900, 1900, 1800, 1900, 1800].concat([1900, 1800, 1700, 1600], [1900, 1800, 1700]);
    expect(after.costMicros - before.costMicros).toBe(sum(billed));
    const attacked = await blockDetail(t, publisher.apiKey, block);
    expect(attacked.impressions).toBe(5 + 4);

    // still within the hour of the last impression: nothing
    clock.advance(HOUR - 60_000);
    expect(await fetchAds(t, publisher.apiKey, block, attacker, { limit: 9 })).toHaveLength(0);
    // an hour after them, the pair gets its next 5
    clock.advance(60_000);
    await refreshIndex(t);
    expect(await fetchAds(t, publisher.apiKey, block, attacker, { limit: 9 })).toHaveLength(5);
    expect(await fetchAds(t, publisher.apiKey, block, attacker, { limit: 9 })).toHaveLength(0);
    await flushStats(t);
    expect((await blockDetail(t, publisher.apiKey, block)).impressions).toBe(5 + 4 + 5);
  });

  it('never counts debug (test) ads against the cap', async () => {
    const block = await createAdBlock(t, publisher.apiKey, 'Debug block');
    const user = newUser('debugger');
    for (let i = 0; i < 10; i++) expect(await fetchAds(t, publisher.apiKey, block, user, { limit: 9, debug: 'true' })).toHaveLength(9);
    expect(await fetchAds(t, publisher.apiKey, block, user, { limit: 9 })).toHaveLength(5);
  });
});

describe('Abuse: a campaign with frequencyCap {impressions: 3, hours: 24}', () => {
  let t: TestApp;
  const clock = new ManualClock();

  beforeAll(async () => {
    t = await startTestApp({}, { clock });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is served to a user 3 times, then the next campaign is; spend is exactly 3 units; other users still get it', async () => {
    const publisher = await createAccount(t, ['publisher']);
    const advertiser = await createAccount(t, ['advertiser']);
    const block = await createAdBlock(t, publisher.apiKey);
    const capped = await createServable(t, advertiser.apiKey, {
      ...openCampaign({ name: 'capped', bidding: { ...CPM_1, costPer: 5 } }, clock.now()),
      frequencyCap: { impressions: 3, hours: 24 },
    });
    const next = await createServable(t, advertiser.apiKey, openCampaign({ name: 'next', bidding: CPM_1 }, clock.now()));
    const user = newUser('viewer');

    const seen: string[] = [];
    for (let i = 0; i < 6; i++) seen.push(...(await fetchAds(t, publisher.apiKey, block, user, { limit: 1 })).map((ad: Body) => ad.campaignId as string));
    expect(seen).toEqual([capped, capped, capped, next, next, next]);
    // with room for both, the capped one is still left out for this user
    expect((await fetchAds(t, publisher.apiKey, block, user, { limit: 9 })).map((ad) => ad.campaignId)).toEqual([next]);

    const afterThree = await flushedCampaign(t, capped);
    expect({ impressions: afterThree.impressions, cost: micros(afterThree.cost) }).toEqual({ impressions: 3, cost: 3 * 5000 });
    const other = newUser('other');
    expect((await fetchAds(t, publisher.apiKey, block, other, { limit: 1 })).map((ad) => ad.campaignId)).toEqual([capped]);
    const afterFour = await flushedCampaign(t, capped);
    expect({ impressions: afterFour.impressions, cost: micros(afterFour.cost) }).toEqual({ impressions: 4, cost: 4 * 5000 });

    // the window rolls: 24 hours after the first three, the user may see it again (three more times)
    clock.advance(24 * HOUR);
    await refreshIndex(t);
    const later: string[] = [];
    for (let i = 0; i < 4; i++) later.push(...(await fetchAds(t, publisher.apiKey, block, user, { limit: 1 })).map((ad: Body) => ad.campaignId as string));
    expect(later).toEqual([capped, capped, capped, next]);
  });
});

/**
 * On the MySQL + Redis profile two application instances share one database and one Redis, as two server processes
 * would, and the requests alternate between them; on the embedded profile, whose state lives in one process, one
 * instance takes them all.
 */
describe(`Abuse: caps across instances (${TEST_PROFILE === 'mysql' ? 'two instances on MySQL + Redis' : 'one embedded instance'})`, () => {
  let instances: TestApp[];
  const clocks = [new ManualClock(), new ManualClock()];

  beforeAll(async () => {
    const shared = { REDIS_PREFIX: `adnet-e2e:caps-${randomBytes(4).toString('hex')}:`, USER_IMPRESSIONS_PER_HOUR: '5', INDEX_REFRESH_MS: '600000' };
    const first = await startTestApp(shared, { clock: clocks[0] });
    instances = TEST_PROFILE === 'mysql' ? [first, await startTestApp(shared, { clock: clocks[1], dropSchema: false })] : [first];
  });
  afterAll(async () => {
    for (const instance of instances ?? []) await instance.close();
  });

  const instance = (i: number) => instances[i % instances.length];
  const refreshAll = async () => {
    for (const app of instances) await refreshIndex(app);
  };

  it('respects the hourly cap of a (block, user) pair and a campaign frequency cap together, exactly', async () => {
    const t = instances[0];
    const publisher = await createAccount(t, ['publisher']);
    const advertiser = await createAccount(t, ['advertiser']);
    const block = await createAdBlock(t, publisher.apiKey);
    const capped = await createServable(t, advertiser.apiKey, {
      ...openCampaign({ name: 'capped', bidding: { ...CPM_1, costPer: 5 } }, clocks[0].now()),
      frequencyCap: { impressions: 3, hours: 24 },
    });
    const others: string[] = [];
    for (let i = 0; i < 3; i++)
      others.push(await createServable(t, advertiser.apiKey, openCampaign({ name: `o${i}`, bidding: { ...CPM_1, costPer: 1 + i } }, clocks[0].now())));
    await refreshAll();

    // one user, one ad per request, alternating between the instances, in pairs at the same time
    const user = newUser('roamer');
    const seen: string[] = [];
    for (let i = 0; i < 10; i += 2) {
      const pair = await Promise.all([0, 1].map((k) => fetchAds(instance(i + k), publisher.apiKey, block, user, { limit: 1 })));
      for (const ads of pair) seen.push(...ads.map((ad: Body) => ad.campaignId as string));
    }
    // 5 in all (the hourly cap), 3 of them the capped campaign, the others the next best
    expect(seen.filter((id) => id === capped)).toHaveLength(3);
    expect(seen.filter((id) => id !== capped)).toEqual([others[2], others[2]]);

    // a second user gets the capped campaign three times too, on a different block
    const secondBlock = await createAdBlock(t, publisher.apiKey, 'Second block');
    const second = newUser('second');
    const secondSeen: string[] = [];
    for (let i = 0; i < 7; i++)
      secondSeen.push(...(await fetchAds(instance(i), publisher.apiKey, secondBlock, second, { limit: 1 })).map((ad: Body) => ad.campaignId as string));
    expect(secondSeen).toEqual([capped, capped, capped, others[2], others[2]]);

    // billed exactly: 6 impressions of the capped campaign at 5000 micro-USDT, 4 of the next best at 3000
    for (const app of instances) await flushStats(app);
    const billed = async (id: string) => {
      const detail = await flushedCampaign(t, id);
      return { impressions: detail.impressions, cost: micros(detail.cost) };
    };
    expect(await billed(capped)).toEqual({ impressions: 6, cost: 6 * 5000 });
    expect(await billed(others[2])).toEqual({ impressions: 4, cost: 4 * 3000 });
    expect(await billed(others[1])).toEqual({ impressions: 0, cost: 0 });
    expect((await blockDetail(t, publisher.apiKey, block)).impressions).toBe(5);
    expect((await blockDetail(t, publisher.apiKey, secondBlock)).impressions).toBe(5);

    // an hour later the pair is served again on both instances; the campaign cap still holds for 24 hours
    for (const clock of clocks) clock.advance(HOUR);
    await refreshAll();
    const nextHour: string[] = [];
    for (let i = 0; i < 8; i++)
      nextHour.push(...(await fetchAds(instance(i), publisher.apiKey, block, user, { limit: 1 })).map((ad: Body) => ad.campaignId as string));
    expect(nextHour).toHaveLength(5);
    expect(nextHour).not.toContain(capped);
  });
});
