import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { RedisClient } from '../../src/redis/redis.module';
import { MemoryServingState } from '../../src/serving/state/memory-serving-state';
import { loadScript } from '../../src/serving/state/scripts/load-script';
import { RedisServingState } from '../../src/serving/state/redis-serving-state';
import { describeServingStateContract } from '../../src/serving/state/serving-state.contract';
import { DAY_COUNTER_TTL_S } from '../../src/serving/state/redis-lease-holder';
import { BILL_EVERY_MS } from '../../src/serving/state/redis-serve-state';
import { ClickRequest, IMPRESSION_WINDOW_MS, ImpressionCandidate, stateKeys } from '../../src/serving/state/serving-state';
import { closeTestRedis, deleteTestRedisKeys, TEST_PROFILE, TEST_REDIS_CLUSTER_NODES, testRedis, testRedisKeys } from '../support/profile';

// The state of the profile under test: Redis (Lua scripts) on the MySQL + Redis profile, memory on the embedded one.
if (TEST_PROFILE === 'mysql') {
  let redis: RedisClient;
  beforeAll(() => {
    redis = testRedis({ keyPrefix: `adnet-state-test:${process.pid}:`, maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    const prefix = `adnet-state-test:${process.pid}:`;
    await deleteTestRedisKeys(redis, prefix, await testRedisKeys(redis, prefix));
    await closeTestRedis(redis);
  });
  /**
   * Every state a test of this file makes (the contract's included) is shut down after it: a state left running keeps
   * a sweeper that reclaims lapsed holders every few seconds, without the database check a test may have given its
   * own reclaimer, so it could give back what a later test's "killed" holder billed before that test's reclaimer looked.
   */
  const made = new Set<RedisServingState>();
  class TestState extends RedisServingState {
    constructor(...args: ConstructorParameters<typeof RedisServingState>) {
      super(...args);
      made.add(this);
    }
  }
  afterEach(async () => {
    await Promise.all([...made].map((state) => state.beforeApplicationShutdown().catch(() => undefined)));
    made.clear();
  });
  /** A process killed outright: its timers stop (no sweep, no heartbeat, no reclaim), nothing is given back. */
  const kill = (state: RedisServingState) => {
    const holder = Reflect.get(state, 'holder') as { sweeper?: NodeJS.Timeout; closing: boolean };
    clearInterval(holder.sweeper);
    holder.closing = true;
    made.delete(state);
  };

  describeServingStateContract('redis', () => new TestState(redis));

  let seq = 0;
  /** A CPM candidate of a campaign of its own: 1000 micro-USDT an impression, budgets of 1 USDT. */
  const newCandidate = (label: string, overrides: Partial<ImpressionCandidate> = {}): ImpressionCandidate => {
    seq += 1;
    const campaignId = `${label}-${seq}-${Math.random().toString(36).slice(2, 8)}`;
    return {
      campaignId,
      adId: `ad_${campaignId}`,
      priceMicros: 1000,
      totalBudgetMicros: 1_000_000,
      dailyBudgetMicros: 1_000_000,
      knownSpentMicros: 0,
      knownDaySpentMicros: 0,
      day: '2026-01-10',
      ...overrides,
    };
  };

  describe('redis serving state: budget leases', () => {
    const now = Date.UTC(2026, 0, 10, 12);
    const campaign = (overrides: Partial<ImpressionCandidate> = {}) => newCandidate('lease', overrides);
    const reserve = (state: RedisServingState, userId: string, candidate: ImpressionCandidate, day = '2026-01-10', at = now) =>
      state.reserveImpressions({ userId, adBlockId: 'b1', now: at, limit: 1 }, [{ ...candidate, day }]);
    const counter = async (key: string) => Number((await redis.get(key)) ?? 0);
    /** A click costing 50,000 micro-USDT on the candidate served to u1 on block b1, a second after `now`. */
    const pricedClick = (candidate: ImpressionCandidate, clickId: string): ClickRequest & { clickId: string } => ({
      ...candidate,
      userId: 'u1',
      adBlockId: 'b1',
      now: now + 1000,
      day: '2026-01-10',
      priceMicros: 50_000,
      exclusionMs: 0,
      clickId,
    });

    it("should bill a lease field down to nothing and charge the counters exactly what the field no longer held (bill.lua's step)", async () => {
      new TestState(redis); // defines the scripts on the client
      const bill = (redis as unknown as { adnetBill(...args: (string | number)[]): Promise<number[]> }).adnetBill.bind(redis);
      const id = newCandidate('bill').campaignId;
      const [leases, spent, daySpent] = [stateKeys.campaignLeases(id), stateKeys.spent(id), stateKeys.daySpent(id, '2026-01-10')];
      const field = 'holder-x|2026-01-10';
      let bills = 0;
      const tokenOf = (n: number) => stateKeys.billToken(id, `t${n}`);
      // a unit of 500 micro-USDT, budgets far from spent unless a test says otherwise
      const budgets = { total: 1_000_000, daily: 1_000_000 };
      const send = (token: string, micros: number) => bill(4, token, leases, spent, daySpent, 60_000, field, micros, 500, budgets.total, budgets.daily);
      const call = (micros: number) => send(tokenOf(++bills), micros);
      await redis.hset(leases, field, 5000, 'other|2026-01-10', 7000);
      await redis.set(spent, 50_000);
      await redis.set(daySpent, 20_000);

      // answers per lease: [shortfall, waived]
      expect(await call(0)).toEqual([0, 0]); // nothing to bill: nothing written
      expect(await redis.hget(leases, field)).toBe('5000');
      expect(await call(2000)).toEqual([0, 0]); // held 5000: 3000 left
      expect(await redis.hget(leases, field)).toBe('3000');
      // the same bill sent again (its answer lost) takes nothing more
      expect(await send(tokenOf(bills), 2000)).toEqual([0, 0]);
      expect(await redis.hget(leases, field)).toBe('3000');
      expect(await call(3000)).toEqual([0, 0]); // held exactly what is billed: the field goes, nothing short
      expect(await redis.hexists(leases, field)).toBe(0);
      expect([await counter(spent), await counter(daySpent)]).toEqual([50_000, 20_000]);

      await redis.hset(leases, field, 500);
      expect(await call(2000)).toEqual([1500, 0]); // held 500 of 2000: the rest is charged to the counters
      expect(await redis.hexists(leases, field)).toBe(0);
      expect([await counter(spent), await counter(daySpent)]).toEqual([51_500, 21_500]);
      // sent again: the first run's answer, and the counters are not charged a second time
      expect(await send(tokenOf(bills), 2000)).toEqual([1500, 0]);
      expect([await counter(spent), await counter(daySpent)]).toEqual([51_500, 21_500]);
      expect(await redis.pttl(tokenOf(bills))).toBeGreaterThan(50_000);

      expect(await call(1000)).toEqual([1000, 0]); // no field at all (reclaimed): all of it is charged
      expect(await redis.hexists(leases, field)).toBe(0);
      expect([await counter(spent), await counter(daySpent)]).toEqual([52_500, 22_500]);
      expect(await redis.hget(leases, 'other|2026-01-10')).toBe('7000'); // another holder's field is untouched

      // a shortfall the budgets no longer take in full: charged in whole units up to the tighter budget, never past
      // it, the rest waived; with both budgets spent, all of it is waived
      budgets.daily = 23_700; // 1,200 left today: 2 units of 500
      expect(await call(2000)).toEqual([2000, 1000]);
      expect([await counter(spent), await counter(daySpent)]).toEqual([53_500, 23_500]);
      budgets.total = 53_900; // 400 left in all: less than a unit
      budgets.daily = 1_000_000;
      expect(await call(1000)).toEqual([1000, 1000]);
      budgets.total = 50_000; // spent past it already (a grant may pass it by less than a unit): nothing charged
      expect(await call(500)).toEqual([500, 500]);
      expect([await counter(spent), await counter(daySpent)]).toEqual([53_500, 23_500]);
      budgets.total = 1_000_000;

      // counters that do not exist (not seeded yet) are not created by a shortfall, which is charged in full (the
      // database bills it); an emptied hash goes
      await redis.del(spent, daySpent);
      await redis.hdel(leases, 'other|2026-01-10');
      expect(await call(1000)).toEqual([1000, 0]);
      expect(await redis.exists(spent, daySpent, leases)).toBe(0);
      await redis.del(...Array.from({ length: bills }, (_, i) => tokenOf(i + 1)));
    });

    it('should let two processes share one budget exactly, then hand back nothing when all of it was served', async () => {
      const [first, second] = [new TestState(redis), new TestState(redis)];
      const candidate = campaign({ totalBudgetMicros: 10_000 });
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => reserve(i % 2 === 0 ? first : second, `user-${i}`, candidate)));
      const served = results.reduce((sum, result) => sum + result.served.length, 0);
      expect(served).toBe(10);
      expect(results.filter((result) => result.exhausted.length > 0)).toHaveLength(30);
      await Promise.all([first.beforeApplicationShutdown(), second.beforeApplicationShutdown()]);
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(10_000);
    });

    it('should hold a lease of several impressions and give back what was not served at shutdown', async () => {
      const state = new TestState(redis);
      const candidate = campaign();
      expect((await reserve(state, 'u1', candidate)).served).toEqual([0]);
      // LEASE_MIN_UNITS impressions were carved from both counters at once
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(4000);
      expect(await counter(stateKeys.daySpent(candidate.campaignId, '2026-01-10'))).toBe(4000);
      expect((await reserve(state, 'u2', candidate)).served).toEqual([0]);
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(4000);
      await state.beforeApplicationShutdown();
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(2000);
      expect(await counter(stateKeys.daySpent(candidate.campaignId, '2026-01-10'))).toBe(2000);
    });

    it('should keep an ample lease as long as LEASE_IDLE_MS says (30 s here) without a bill, then give back what it holds', async () => {
      const state = new TestState(redis, { leaseIdleMs: 30_000 });
      const candidate = campaign(); // 1 USDT left, 4 units asked and granted
      expect((await reserve(state, 'u1', candidate)).served).toEqual([0]);
      const grantedAt = Date.now();
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(4000);

      await state.returnIdleLeases(grantedAt + 29_000);
      expect([state.heldLeases().remainingMicros, await counter(stateKeys.spent(candidate.campaignId))]).toEqual([3000, 4000]);
      // served after the lull from the lease it kept: no new lease, nothing more taken off the counters
      expect((await reserve(state, 'u2', candidate)).served).toEqual([0]);
      expect([state.heldLeases().remainingMicros, await counter(stateKeys.spent(candidate.campaignId))]).toEqual([2000, 4000]);

      await state.returnIdleLeases(Date.now() + 30_000);
      expect([state.heldLeases().leases, await counter(stateKeys.spent(candidate.campaignId))]).toEqual([0, 2000]);
      expect(await counter(stateKeys.daySpent(candidate.campaignId, '2026-01-10'))).toBe(2000);
      await state.beforeApplicationShutdown();
    });

    it.each([
      // 1 USDT left: the 4 units asked for are granted
      ['an ample lease with the default LEASE_IDLE_MS', undefined, 1_000_000, 4000],
      // 12,000 left: a grant is at most a quarter of it, 3 units of the 4 asked for
      ['a scarce lease (granted fewer units than asked) also with a longer LEASE_IDLE_MS', 30_000, 12_000, 3000],
    ])('should give back %s after 5 s without a bill', async (_, leaseIdleMs, totalBudgetMicros, granted) => {
      const state = new TestState(redis, { leaseIdleMs });
      const candidate = campaign({ totalBudgetMicros });
      expect((await reserve(state, 'u1', candidate)).served).toEqual([0]);
      const grantedAt = Date.now();
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(granted);

      await state.returnIdleLeases(grantedAt + 4000);
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(granted);
      await state.returnIdleLeases(Date.now() + 5000);
      expect([state.heldLeases().leases, await counter(stateKeys.spent(candidate.campaignId))]).toEqual([0, 1000]);
      await state.beforeApplicationShutdown();
    });

    it('should keep an unused lease only as long as configured (LEASE_IDLE_MS below 5 s), a scarce one no longer either', async () => {
      const state = new TestState(redis, { leaseIdleMs: 2000 });
      const [ample, scarce] = [campaign(), campaign({ totalBudgetMicros: 12_000 })];
      expect((await reserve(state, 'u1', ample)).served).toEqual([0]);
      expect((await reserve(state, 'u1', scarce)).served).toEqual([0]);
      const grantedAt = Date.now();

      await state.returnIdleLeases(grantedAt + 1000);
      expect(state.heldLeases().leases).toBe(2);
      await state.returnIdleLeases(Date.now() + 2000);
      expect(state.heldLeases().leases).toBe(0);
      expect([await counter(stateKeys.spent(ample.campaignId)), await counter(stateKeys.spent(scarce.campaignId))]).toEqual([1000, 1000]);
      await state.beforeApplicationShutdown();
    });

    it('should answer a click command re-sent after a lost reply (same click id) as the first time, and bill it once', async () => {
      const state = new TestState(redis); // also defines the scripts on the client
      const scripts = redis as unknown as Record<'adnetClickBind' | 'adnetClickBill', (...args: (string | number)[]) => Promise<unknown>>;
      const candidate = campaign({ priceMicros: 0 }); // a CPC campaign: the impression is free, the click costs
      expect((await reserve(state, 'u1', candidate)).served).toEqual([0]);
      const click = pricedClick(candidate, `click-${candidate.campaignId}`);
      expect(await state.registerClick(click)).toEqual(expect.objectContaining({ kind: 'counted', status: 'counted', costMicros: 50_000 }));
      const spent = stateKeys.spent(candidate.campaignId);
      const daySpent = stateKeys.daySpent(candidate.campaignId, '2026-01-10');
      expect([await counter(spent), await counter(daySpent)]).toEqual([50_000, 50_000]);

      // ioredis re-sends the commands a reconnect left unanswered: the same bind, then the same bill
      const bind = (clickId: string) =>
        scripts.adnetClickBind(
          4,
          stateKeys.servedAds('u1', 'b1'),
          stateKeys.clicked('u1', 'b1', candidate.adId),
          stateKeys.excludedAds('u1'),
          stateKeys.clickedBy('u1', 'b1', candidate.adId),
          click.now,
          IMPRESSION_WINDOW_MS,
          0,
          0,
          candidate.adId,
          '1',
          '0',
          clickId,
        );
      const [status, servedMark] = (await bind(click.clickId)) as [number, string];
      expect(status).toBe(0);
      expect(await bind('another-click')).toBe(-2);
      expect(await bind('')).toBe(-2);
      const [field] = (await redis.hkeys(stateKeys.campaignLeases(candidate.campaignId))).filter((name) => name.includes(click.clickId));
      const bill = () =>
        scripts.adnetClickBill(
          3,
          spent,
          daySpent,
          stateKeys.campaignLeases(candidate.campaignId),
          50_000,
          1_000_000,
          1_000_000,
          0,
          0,
          DAY_COUNTER_TTL_S,
          field,
        );
      expect(await bill()).toEqual([50_000, 0]);
      expect([await counter(spent), await counter(daySpent)]).toEqual([50_000, 50_000]);
      expect(await redis.hget(stateKeys.campaignLeases(candidate.campaignId), field)).toBe('50000');

      // its row committed, a later click on the same impression is a repeat; the binding keeps its served mark
      await state.clickCommitted(click);
      expect(await state.registerClick({ ...click, clickId: 'a-second-click', now: click.now + 1000 })).toEqual({ kind: 'duplicate' });
      // the clicked key holds the served mark alone, as the script before this one wrote and read it (rolling deploys)
      expect(await redis.get(stateKeys.clicked('u1', 'b1', candidate.adId))).toBe(servedMark);
      expect(await redis.get(stateKeys.clickedBy('u1', 'b1', candidate.adId))).toBe(`${servedMark}:${click.clickId}:0`);
      expect(await counter(spent)).toBe(50_000);
      await state.beforeApplicationShutdown();
    });

    // One Redis server only: on a cluster the user's keys and the campaign's lie in different slots, and a click is
    // bound and billed in two calls (the test above re-sends those).
    if (TEST_REDIS_CLUSTER_NODES === null) {
      it('should bind and bill a click in one script call, and answer the call re-sent as the first time', async () => {
        const state = new TestState(redis);
        const candidate = campaign({ priceMicros: 0 });
        expect((await reserve(state, 'u1', candidate)).served).toEqual([0]);
        const calls: unknown[][] = [];
        const scripts = redis as unknown as Record<string, (...args: (string | number)[]) => Promise<unknown>>;
        const bindBill = scripts.adnetClickBindBill;
        scripts.adnetClickBindBill = (...args) => {
          calls.push(args);
          return bindBill.apply(redis, args);
        };
        const sent = { adnetClickBind: 0, adnetClickBill: 0 };
        const originals = { adnetClickBind: scripts.adnetClickBind, adnetClickBill: scripts.adnetClickBill };
        for (const name of ['adnetClickBind', 'adnetClickBill'] as const) {
          scripts[name] = (...args) => {
            sent[name] += 1;
            return originals[name].apply(redis, args);
          };
        }
        try {
          const click = pricedClick(candidate, `one-call-${candidate.campaignId}`);
          expect(await state.registerClick(click)).toEqual(expect.objectContaining({ kind: 'counted', status: 'counted', costMicros: 50_000 }));
          expect({ calls: calls.length, ...sent }).toEqual({ calls: 1, adnetClickBind: 0, adnetClickBill: 0 });
          const spent = stateKeys.spent(candidate.campaignId);
          const daySpent = stateKeys.daySpent(candidate.campaignId, '2026-01-10');
          // the same command re-sent (a reconnect lost its answer): the same answer, nothing billed twice
          expect(await bindBill.apply(redis, calls[0] as (string | number)[])).toEqual([0, expect.stringMatching(/^\d+$/), 50_000, 0]);
          expect([await counter(spent), await counter(daySpent)]).toEqual([50_000, 50_000]);
          expect(await state.registerClick({ ...click, clickId: 'a-second-click', now: click.now + 1000 })).toEqual({ kind: 'duplicate' });
        } finally {
          Object.assign(scripts, originals, { adnetClickBindBill: bindBill });
        }
        await state.beforeApplicationShutdown();
      });

      it('should take back the binding of a one-call click whose answer was lost, so the impression takes its click when sent again', async () => {
        const state = new TestState(redis);
        const candidate = campaign({ priceMicros: 0 });
        expect((await reserve(state, 'u1', candidate)).served).toEqual([0]);
        const scripts = redis as unknown as Record<string, (...args: (string | number)[]) => Promise<unknown>>;
        // the script runs, its answer never arrives
        const billing = 'adnetClickBindBill';
        const original = scripts[billing];
        scripts[billing] = async (...args) => {
          await original.apply(redis, args);
          throw new Error('Connection is closed.');
        };
        const click = pricedClick(candidate, `lost-${candidate.campaignId}`);
        try {
          await expect(state.registerClick(click)).rejects.toThrow('Connection is closed.');
        } finally {
          scripts[billing] = original;
        }
        expect(await redis.get(stateKeys.clicked('u1', 'b1', candidate.adId))).toBeNull();
        expect(await redis.get(stateKeys.clickedBy('u1', 'b1', candidate.adId))).toBeNull();
        // its price stays under its field until the orphan sweep gives it back (no row of it will be written)
        const leases = stateKeys.campaignLeases(candidate.campaignId);
        expect((await redis.hkeys(leases)).filter((field) => field.includes(click.clickId))).toHaveLength(1);
        const again = { ...click, clickId: `again-${candidate.campaignId}`, now: click.now + 500 };
        expect(await state.registerClick(again)).toEqual(expect.objectContaining({ kind: 'counted', status: 'counted', costMicros: 50_000 }));
        expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(100_000);
        await state.beforeApplicationShutdown();
      });
    }

    it("should leave another click's binding when taking back a lost one by its click id", async () => {
      new TestState(redis);
      const unbind = (redis as unknown as { adnetClickUnbind(...args: (string | number)[]): Promise<number> }).adnetClickUnbind.bind(redis);
      const keys = [stateKeys.clicked('u9', 'b1', 'ad9'), stateKeys.excludedAds('u9'), stateKeys.clickedBy('u9', 'b1', 'ad9')];
      await redis.set(keys[0], '1700000000000');
      await redis.set(keys[2], '1700000000000:click-a:0');
      expect(await unbind(3, ...keys, '', 'ad9', 'click-b')).toBe(0);
      expect(await unbind(3, ...keys, '', 'ad9', '')).toBe(0);
      expect(await redis.get(keys[0])).toBe('1700000000000');
      expect(await unbind(3, ...keys, '', 'ad9', 'click-a')).toBe(1);
      expect(await redis.exists(keys[0], keys[2])).toBe(0);
    });

    it("should give back yesterday's lease when the day changes", async () => {
      const state = new TestState(redis);
      const candidate = campaign();
      await reserve(state, 'u1', candidate);
      expect((await reserve(state, 'u2', candidate, '2026-01-11', now + 86_400_000)).served).toEqual([0]);
      // 1000 spent yesterday, the new day's lease of 4000
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(5000);
      expect(await counter(stateKeys.daySpent(candidate.campaignId, '2026-01-11'))).toBe(4000);
      await state.beforeApplicationShutdown();
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(2000);
    });

    it('should put a unit billed tentatively back on the counters when its lease went back meanwhile (shutdown)', async () => {
      const state = new TestState(redis);
      const candidate = campaign();
      expect((await reserve(state, 'u1', candidate)).served).toEqual([0]);
      await state.registerClick({
        ...candidate,
        userId: 'u1',
        adBlockId: 'b1',
        now,
        day: '2026-01-10',
        priceMicros: 0,
        exclusionMs: 600_000,
      });
      // u1 clicked the ad: the next reservation takes a unit, the script refuses the ad, the unit goes back, while
      // the shutdown returns the lease in between
      const pending = reserve(state, 'u1', candidate, '2026-01-10', now + 1);
      await state.beforeApplicationShutdown();
      expect((await pending).served).toEqual([]);
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(1000);
      expect(await counter(stateKeys.daySpent(candidate.campaignId, '2026-01-10'))).toBe(1000);
      // serving on during the shutdown bills single units and leaves nothing in a lease
      expect((await reserve(state, 'u2', candidate)).served).toEqual([0]);
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(2000);
    });

    it('should not create a counter Redis lost when it gives a lease back', async () => {
      const state = new TestState(redis);
      const candidate = campaign();
      await reserve(state, 'u1', candidate);
      await redis.del(stateKeys.spent(candidate.campaignId));
      await state.beforeApplicationShutdown();
      // absent, so the next lease seeds it from the database's spend (not -3000, which would reopen the budget)
      expect(await redis.exists(stateKeys.spent(candidate.campaignId))).toBe(0);
      expect(await counter(stateKeys.daySpent(candidate.campaignId, '2026-01-10'))).toBe(1000);
    });

    it('should take a new lease when the price or the budget of the campaign changes', async () => {
      const state = new TestState(redis);
      const candidate = campaign();
      await reserve(state, 'u1', candidate);
      const repriced = { ...candidate, priceMicros: 3000 };
      expect((await reserve(state, 'u2', repriced)).served).toEqual([0]);
      // the first lease's 3000 unused went back; the new one holds 4 units of 3000
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(1000 + 12_000);
      await state.beforeApplicationShutdown();
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(1000 + 3000);
    });
  });

  describe('redis serving state: lease holders', () => {
    const prefix = `adnet-state-test:${process.pid}:`;
    const campaign = () => newCandidate('holder');
    const reserve = (state: RedisServingState, userId: string, candidate: ImpressionCandidate) =>
      state.reserveImpressions({ userId, adBlockId: 'b1', now: Date.now(), limit: 1 }, [candidate]);
    const counter = async (key: string) => Number((await redis.get(key)) ?? 0);
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    /** A click on block b1 of a campaign whose impressions are free, on 2026-01-10. */
    const cpcClick = (cpc: ImpressionCandidate, userId: string, now: number, priceMicros: number): ClickRequest => ({
      campaignId: cpc.campaignId,
      totalBudgetMicros: cpc.totalBudgetMicros,
      dailyBudgetMicros: cpc.dailyBudgetMicros,
      knownSpentMicros: 0,
      knownDaySpentMicros: 0,
      userId,
      adBlockId: 'b1',
      adId: cpc.adId,
      now,
      day: '2026-01-10',
      priceMicros,
      exclusionMs: 0,
    });
    /** Ends the heartbeat of the holders of this campaign's leases now, as if cut off for longer than its life. */
    const lapseHeartbeatsOf = async (candidate: ImpressionCandidate) => {
      for (const holder of await redis.smembers(stateKeys.leaseHolders())) {
        if (await redis.hexists(stateKeys.campaignLeases(candidate.campaignId), `${holder}|2026-01-10`)) await redis.del(stateKeys.leaseHolder(holder));
      }
    };

    it('should give back the unused leases of a process killed outright once its heartbeat lapsed, and only then', async () => {
      const candidate = campaign();
      const child = spawn(
        process.execPath,
        ['-r', 'ts-node/register/transpile-only', join(__dirname, '../support/lease-holder-child.ts'), prefix, '1500', JSON.stringify(candidate)],
        { cwd: join(__dirname, '../..'), stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const exited = new Promise((resolve) => child.once('exit', resolve));
      const ready = await new Promise<string>((resolve, reject) => {
        let output = '';
        child.stdout!.on('data', (chunk) => {
          output += chunk;
          if (output.includes('\n')) resolve(output.trim());
        });
        child.once('exit', (code) => reject(new Error(`child exited with ${code}: ${output}`)));
      });
      expect(ready).toBe('ready [0]');
      // one impression served from a lease of 4 units
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(4000);
      child.kill('SIGKILL');
      await exited;

      const survivor = new TestState(redis);
      // its heartbeat still lives: nothing is taken from a process that may still be serving
      expect(await survivor.reclaimLapsedHolders()).toBe(0);
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(4000);
      await sleep(1700);
      // the sweep of another state of this file (each reclaims every 5 s) may have been first: the counters tell
      expect([0, 3000]).toContain(await survivor.reclaimLapsedHolders());
      expect(await redis.hgetall(stateKeys.campaignLeases(candidate.campaignId))).toEqual({});
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(1000);
      expect(await counter(stateKeys.daySpent(candidate.campaignId, '2026-01-10'))).toBe(1000);
      // reclaimed once only, and the holder is forgotten
      expect(await survivor.reclaimLapsedHolders()).toBe(0);
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(1000);
    }, 60_000);

    it('should never bill from a lease reclaimed while its process was cut off, and keep spend exact', async () => {
      const state = new TestState(redis);
      const other = new TestState(redis);
      const candidate = campaign();
      expect((await reserve(state, 'u1', candidate)).served).toEqual([0]);
      await state.flushBills();
      await lapseHeartbeatsOf(candidate);
      // the impression served was taken off the holder's lease when it was billed: only the 3 unused units come back
      expect(await other.reclaimLapsedHolders()).toBe(3000);
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(1000);
      // the next impression from the reclaimed lease finds it gone when billed: it is charged to the counters (counted
      // once), and the process gives up the holder and its leases
      expect((await reserve(state, 'u2', candidate)).served).toEqual([0]);
      await state.flushBills();
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(2000);
      expect(state.heldLeases()).toEqual({ leases: 0, remainingMicros: 0 });
      // the next one is served from a new lease of a new holder
      expect((await reserve(state, 'u3', candidate)).served).toEqual([0]);
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(2000 + 4000);
      await state.beforeApplicationShutdown();
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(3000);
      expect(await counter(stateKeys.daySpent(candidate.campaignId, '2026-01-10'))).toBe(3000);
      expect(await other.reclaimLapsedHolders()).toBe(0);
    });

    it('should bill the impressions served from each lease in one sum when it bills, and charge the counters once a lease was reclaimed', async () => {
      const state = new TestState(redis);
      const [a, b] = [campaign(), campaign()];
      const leaseOf = async (candidate: ImpressionCandidate) => {
        const fields = await redis.hgetall(stateKeys.campaignLeases(candidate.campaignId));
        return Object.values(fields).map(Number);
      };
      // a lease of 4 units each, one served from it: billed off the lease in Redis when the process bills
      expect((await reserve(state, 'u0', a)).served).toEqual([0]);
      expect((await reserve(state, 'u0', b)).served).toEqual([0]);
      expect(await leaseOf(a)).toEqual([4000]);
      await state.flushBills();
      expect(await leaseOf(a)).toEqual([3000]);
      // three requests of one turn, two of them on the same campaign: one serve call, then one bill per lease
      const turn = await Promise.all([reserve(state, 'u1', a), reserve(state, 'u2', a), reserve(state, 'u3', b)]);
      expect(turn.map((result) => result.served)).toEqual([[0], [0], [0]]);
      expect(await leaseOf(a)).toEqual([3000]);
      await state.flushBills();
      expect(await leaseOf(a)).toEqual([1000]);
      expect(await leaseOf(b)).toEqual([2000]);
      expect(await counter(stateKeys.spent(a.campaignId))).toBe(4000);
      expect(await counter(stateKeys.spent(b.campaignId))).toBe(4000);

      // the holder's leases are reclaimed while it still bills from them: the next turn is charged to the counters
      await lapseHeartbeatsOf(a);
      expect(await new TestState(redis).reclaimLapsedHolders()).toBe(3000);
      expect(await counter(stateKeys.spent(a.campaignId))).toBe(3000);
      expect(await counter(stateKeys.spent(b.campaignId))).toBe(2000);
      const late = await Promise.all([reserve(state, 'u4', a), reserve(state, 'u5', b)]);
      expect(late.map((result) => result.served)).toEqual([[0], [0]]);
      await state.flushBills();
      expect(await counter(stateKeys.spent(a.campaignId))).toBe(4000);
      expect(await counter(stateKeys.daySpent(a.campaignId, '2026-01-10'))).toBe(4000);
      expect(await counter(stateKeys.spent(b.campaignId))).toBe(3000);
      expect(state.heldLeases()).toEqual({ leases: 0, remainingMicros: 0 });
      await state.beforeApplicationShutdown();
      expect(await counter(stateKeys.spent(a.campaignId))).toBe(4000);
      expect(await counter(stateKeys.spent(b.campaignId))).toBe(3000);
    });

    it('should bill what it served off its leases within BILL_EVERY_MS unasked, and before its leases go back at shutdown', async () => {
      const state = new TestState(redis);
      const candidate = campaign();
      const field = async () => Object.values(await redis.hgetall(stateKeys.campaignLeases(candidate.campaignId)));
      await Promise.all([reserve(state, 'u1', candidate), reserve(state, 'u2', candidate)]);
      expect(await field()).toEqual(['4000']);
      await sleep(BILL_EVERY_MS + 100);
      expect(await field()).toEqual(['2000']);
      // served and not billed yet when the process shuts down: billed first, then the 2 unused units go back
      expect((await reserve(state, 'u3', candidate)).served).toEqual([0]);
      await state.beforeApplicationShutdown();
      expect(await field()).toEqual([]);
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(3000);
      expect(await counter(stateKeys.daySpent(candidate.campaignId, '2026-01-10'))).toBe(3000);
    });

    it('should give back with a lapsed holder also what it served and had not billed yet, and charge it once billed after all', async () => {
      const state = new TestState(redis);
      const other = new TestState(redis);
      const candidate = campaign();
      // no bill on its own timer until the test sends it (a timer already set keeps the state from setting one), so a
      // slow machine cannot bill before the cut-off the test stages
      const serves = Reflect.get(state, 'serves') as { billTimer?: NodeJS.Timeout };
      serves.billTimer = setTimeout(() => undefined, 60_000);
      serves.billTimer.unref();
      expect((await reserve(state, 'u1', candidate)).served).toEqual([0]);
      // cut off before its bill: the whole lease goes back, as for a process killed before it billed (that impression
      // is neither billed to the advertiser nor charged to the budget: it never reached the database either)
      await lapseHeartbeatsOf(candidate);
      expect(await other.reclaimLapsedHolders()).toBe(4000);
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(0);
      // the process was only cut off: its bill comes after all, finds the lease gone, charges the counters once and
      // gives up the holder
      await state.flushBills();
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(1000);
      expect(await counter(stateKeys.daySpent(candidate.campaignId, '2026-01-10'))).toBe(1000);
      expect(state.heldLeases()).toEqual({ leases: 0, remainingMicros: 0 });
      await state.flushBills();
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(1000);
      await state.beforeApplicationShutdown();
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(1000);
    });

    /** A client of its own whose bill script the test can make fail, around the real one. */
    const faultyBills = () => {
      const client = testRedis({ keyPrefix: `adnet-state-test:${process.pid}:`, maxRetriesPerRequest: 1 });
      const state = new TestState(client); // defines the scripts on the client
      type Bill = (...args: (string | number)[]) => Promise<number[]>;
      const scripted = client as unknown as { adnetBill: Bill };
      const real: Bill = scripted.adnetBill.bind(client);
      let sent = 0;
      const fail = (mode: 'ok' | 'down' | 'answer lost') => {
        scripted.adnetBill = async (...args) => {
          sent += 1;
          if (mode === 'down') throw new Error('Redis down');
          const answer = await real(...args);
          if (mode === 'answer lost') throw new Error('connection lost before the answer');
          return answer;
        };
      };
      return { client, state, fail, sent: () => sent };
    };

    it('should send a bill whose answer was lost again as it was, and take it off the lease once', async () => {
      const { client, state, fail, sent } = faultyBills();
      const candidate = campaign();
      const field = async () => Object.values(await redis.hgetall(stateKeys.campaignLeases(candidate.campaignId)));
      await Promise.all([reserve(state, 'u1', candidate), reserve(state, 'u2', candidate)]);
      fail('answer lost');
      await expect(state.flushBills()).rejects.toThrow('connection lost');
      expect(await field()).toEqual(['2000']); // it ran: 2 of the 4 units billed
      // more served; its bill cannot go out while the lost one is not confirmed, and fails with it
      fail('down');
      expect((await reserve(state, 'u3', candidate)).served).toEqual([0]);
      await expect(state.flushBills()).rejects.toThrow('Redis down');
      fail('ok');
      const before = sent();
      await state.flushBills();
      expect(sent() - before).toBeLessThanOrEqual(2); // the lost bill again, under its token, and the new one
      expect(await field()).toEqual(['1000']); // 2 units billed once, then 1
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(4000);
      await state.beforeApplicationShutdown();
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(3000);
      expect(await counter(stateKeys.daySpent(candidate.campaignId, '2026-01-10'))).toBe(3000);
      await closeTestRedis(client);
    });

    it('should never pass the budget with a bill that finds its lease reclaimed and the budget spent meanwhile, and tell what it waived', async () => {
      const { client, state, fail } = faultyBills();
      const other = new TestState(redis);
      const waived: [string, number][] = [];
      state.onWaivedSpend((campaignId, micros) => waived.push([campaignId, micros]));
      const candidate = newCandidate('holder', { totalBudgetMicros: 4000 });
      const spent = stateKeys.spent(candidate.campaignId);
      // cut off from Redis right after it served (its bills fail, kept to be sent again as they were)
      fail('down');
      expect((await reserve(state, 'u1', candidate)).served).toEqual([0]);
      await expect(state.flushBills()).rejects.toThrow('Redis down');
      // past its heartbeat's life its lease goes back with the unit it served, and another process spends the budget
      await lapseHeartbeatsOf(candidate);
      expect(await other.reclaimLapsedHolders()).toBe(1000);
      for (const userId of ['u2', 'u3', 'u4', 'u5']) expect((await reserve(other, userId, candidate)).served).toEqual([0]);
      expect((await reserve(other, 'u6', candidate)).served).toEqual([]);
      await other.flushBills();
      expect(await counter(spent)).toBe(4000);
      // back, its bill finds the lease gone and no budget left: nothing charged, the unit waived (not billed)
      fail('ok');
      await state.flushBills();
      expect(await counter(spent)).toBe(4000);
      expect(await counter(stateKeys.daySpent(candidate.campaignId, '2026-01-10'))).toBe(4000);
      expect(waived).toEqual([[candidate.campaignId, 1000]]);
      expect(state.heldLeases()).toEqual({ leases: 0, remainingMicros: 0 });
      await state.beforeApplicationShutdown();
      await other.beforeApplicationShutdown();
      expect(await counter(spent)).toBe(4000);
      expect(waived).toHaveLength(1);
      await closeTestRedis(client);
    });

    it('should fail a bill asked for while an earlier one is failing, so that nothing it served is counted unbilled', async () => {
      const { client, state, fail } = faultyBills();
      const candidate = campaign();
      expect((await reserve(state, 'u1', candidate)).served).toEqual([0]);
      fail('down');
      // the timer's bill under way, then the stats writer's: the second one must not resolve on its own
      const timers = state.flushBills();
      const writers = state.flushBills();
      await expect(timers).rejects.toThrow('Redis down');
      await expect(writers).rejects.toThrow('Redis down');
      expect(Object.values(await redis.hgetall(stateKeys.campaignLeases(candidate.campaignId)))).toEqual(['4000']);
      fail('ok');
      await state.flushBills();
      expect(Object.values(await redis.hgetall(stateKeys.campaignLeases(candidate.campaignId)))).toEqual(['3000']);
      await state.beforeApplicationShutdown();
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(1000);
      await closeTestRedis(client);
    });

    it('should stop billing from its leases when its heartbeat was not confirmed lately, and leave them to the reclaim', async () => {
      const state = new TestState(redis, { holderTtlMs: 300, holderTrustMs: 100 });
      const candidate = campaign();
      expect((await reserve(state, 'u1', candidate)).served).toEqual([0]);
      await state.flushBills();
      await sleep(400);
      // not trusted any more: a new holder takes a new lease; the first one's 3 units wait for the reclaim
      expect((await reserve(state, 'u2', candidate)).served).toEqual([0]);
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(8000);
      await new TestState(redis).reclaimLapsedHolders();
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(5000);
      await state.beforeApplicationShutdown();
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(2000);
    });

    it('should give back once however often the same give-back arrives, and never more than the holder holds', async () => {
      const state = new TestState(redis);
      const candidate = campaign();
      await reserve(state, 'u1', candidate);
      await state.flushBills();
      const leases = stateKeys.campaignLeases(candidate.campaignId);
      const [field] = await redis.hkeys(leases);
      const keys = [
        stateKeys.giveBackToken(candidate.campaignId, 'test'),
        leases,
        stateKeys.spent(candidate.campaignId),
        stateKeys.daySpent(candidate.campaignId, '2026-01-10'),
      ];
      // the client sends a command again after a reconnect when its answer was lost: the second run does nothing
      await redis.eval(loadScript('give-back'), keys.length, ...keys, 60_000, field, 1000);
      await redis.eval(loadScript('give-back'), keys.length, ...keys, 60_000, field, 1000);
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(3000);
      expect(await redis.hget(leases, field)).toBe('2000');
      // the process still counts 3 units in its lease; the hash holds 2: only those go back, the billed unit stays spent
      await state.beforeApplicationShutdown();
      expect(await counter(stateKeys.spent(candidate.campaignId))).toBe(1000);
      expect(await counter(stateKeys.daySpent(candidate.campaignId, '2026-01-10'))).toBe(1000);
    });

    it('should keep what a holder owes exact through serving, refusals and returns', async () => {
      const state = new TestState(redis);
      const candidate = campaign();
      await reserve(state, 'u1', candidate);
      await reserve(state, 'u2', candidate);
      await state.flushBills();
      // 4 units granted, 2 served: 2 outstanding, under exactly one holder's field
      expect(Object.values(await redis.hgetall(stateKeys.campaignLeases(candidate.campaignId)))).toEqual(['2000']);
      await state.beforeApplicationShutdown();
      expect(await redis.hgetall(stateKeys.campaignLeases(candidate.campaignId))).toEqual({});
    });

    it("should give a billed click's price back with its lapsed holder unless the click's row was committed", async () => {
      const state = new TestState(redis);
      const other = new TestState(redis);
      // a CPC campaign: impressions are free, a click costs 50,000
      const cpc = newCandidate('click', { priceMicros: 0 });
      const day = '2026-01-10';
      const click = (userId: string, now: number) => cpcClick(cpc, userId, now, 50_000);
      const servedAt = Date.now();
      for (const userId of ['committed', 'cut-off', 'undone']) {
        expect((await state.reserveImpressions({ userId, adBlockId: 'b1', now: servedAt, limit: 1 }, [cpc])).served).toEqual([0]);
      }
      const [committed, cutOff, undone] = [click('committed', servedAt + 1), click('cut-off', servedAt + 2), click('undone', servedAt + 3)];
      for (const request of [committed, cutOff, undone]) expect(await state.registerClick(request)).toMatchObject({ kind: 'counted', costMicros: 50_000 });
      expect(await counter(stateKeys.spent(cpc.campaignId))).toBe(150_000);
      // the first click's row is committed; the third's write failed and is undone; the process dies before the second's
      await state.clickCommitted(committed);
      await state.undoClick(undone, 50_000);
      expect(await counter(stateKeys.spent(cpc.campaignId))).toBe(100_000);
      const held = await redis.hkeys(stateKeys.campaignLeases(cpc.campaignId));
      expect(held).toEqual([expect.stringContaining('|cut-off')]);

      // alive: nothing is taken back
      expect(await other.reclaimLapsedHolders()).toBe(0);
      expect(await counter(stateKeys.spent(cpc.campaignId))).toBe(100_000);
      // the process is killed: its heartbeat lapses
      kill(state);
      await redis.del(stateKeys.leaseHolder(held[0].split('|')[0]));
      // (other tests' lapsed holders may be reclaimed in the same call: the counters of this campaign tell)
      expect(await other.reclaimLapsedHolders()).toBeGreaterThanOrEqual(50_000);
      expect(await counter(stateKeys.spent(cpc.campaignId))).toBe(50_000);
      expect(await counter(stateKeys.daySpent(cpc.campaignId, day))).toBe(50_000);
      await other.reclaimLapsedHolders();
      expect(await counter(stateKeys.spent(cpc.campaignId))).toBe(50_000);
      // a retry of the cut-off report is a duplicate (its dedup mark stays): never billed twice
      expect(await other.registerClick(click('cut-off', servedAt + 10))).toEqual({ kind: 'duplicate' });
      await Promise.all([state.beforeApplicationShutdown(), other.beforeApplicationShutdown()]);
    });

    it('should keep billed, when reclaiming a killed process, a click whose row was committed before it could say so', async () => {
      const rows = new Set(['row-committed']);
      const state = new TestState(redis);
      const other = new TestState(redis, { committedClicks: async (ids) => new Set(ids.filter((id) => rows.has(id))) });
      const cpc = newCandidate('committed', { priceMicros: 0 });
      const at = Date.now();
      for (const [userId, clickId] of [
        ['u-committed', 'row-committed'],
        ['u-uncommitted', 'row-missing'],
      ]) {
        expect((await state.reserveImpressions({ userId, adBlockId: 'b1', now: at, limit: 1 }, [cpc])).served).toEqual([0]);
        expect(await state.registerClick({ ...cpcClick(cpc, userId, at, 30_000), clickId })).toMatchObject({ kind: 'counted', costMicros: 30_000 });
      }
      // killed after the first click's commit, before taking it off its hash; the second was never committed
      kill(state);
      for (const field of await redis.hkeys(stateKeys.campaignLeases(cpc.campaignId))) await redis.del(stateKeys.leaseHolder(field.split('|')[0]));
      await other.reclaimLapsedHolders();
      expect(await counter(stateKeys.spent(cpc.campaignId))).toBe(30_000);
      expect(await counter(stateKeys.daySpent(cpc.campaignId, '2026-01-10'))).toBe(30_000);
      // the database cannot tell: nothing is reclaimed rather than a committed click given back
      const blind = new TestState(redis, {
        committedClicks: async () => {
          throw new Error('database down');
        },
      });
      const cpc2 = newCandidate('blind', { priceMicros: 0 });
      const lone = new TestState(redis);
      expect((await lone.reserveImpressions({ userId: 'u-blind', adBlockId: 'b1', now: at, limit: 1 }, [cpc2])).served).toEqual([0]);
      expect(await lone.registerClick({ ...cpcClick(cpc2, 'u-blind', at, 30_000), clickId: 'row-blind' })).toMatchObject({ kind: 'counted' });
      for (const field of await redis.hkeys(stateKeys.campaignLeases(cpc2.campaignId))) await redis.del(stateKeys.leaseHolder(field.split('|')[0]));
      await expect(blind.reclaimLapsedHolders()).rejects.toThrow('database down');
      expect(await counter(stateKeys.spent(cpc2.campaignId))).toBe(30_000);
      await other.reclaimLapsedHolders();
      expect(await counter(stateKeys.spent(cpc2.campaignId))).toBe(0);
      await Promise.all([state.beforeApplicationShutdown(), other.beforeApplicationShutdown(), lone.beforeApplicationShutdown()]);
    });

    it('should give back, after a minute, a billed click whose answer never reached the process (a lost reply)', async () => {
      const state = new TestState(redis);
      const cpc = newCandidate('orphan', { priceMicros: 0 });
      const at = Date.now();
      const click = (userId: string) => cpcClick(cpc, userId, at, 40_000);
      for (const userId of ['lost-reply', 'in-flight']) {
        expect((await state.reserveImpressions({ userId, adBlockId: 'b1', now: at, limit: 1 }, [cpc])).served).toEqual([0]);
        expect(await state.registerClick(click(userId))).toMatchObject({ kind: 'counted', costMicros: 40_000 });
      }
      // the first click's answer is lost: the process never learns of it (what ioredis does when Redis restarts
      // between running a script and answering); the second is still being written
      const pending = (state as unknown as { clicks: { pendingClicks: Map<string, { field: string }> } }).clicks.pendingClicks;
      for (const [key, value] of pending) if (value.field.endsWith('|lost-reply')) pending.delete(key);
      expect(await counter(stateKeys.spent(cpc.campaignId))).toBe(80_000);
      expect(await state.giveBackOrphanClicks(Date.now())).toBe(0);
      expect(await state.giveBackOrphanClicks(Date.now() + 61_000)).toBe(40_000);
      expect(await counter(stateKeys.spent(cpc.campaignId))).toBe(40_000);
      expect(await state.giveBackOrphanClicks(Date.now() + 61_000)).toBe(0);
      await state.clickCommitted(click('in-flight'));
      expect(await counter(stateKeys.spent(cpc.campaignId))).toBe(40_000);
      await state.beforeApplicationShutdown();
    });

    it('should settle clicks whose write outcome is unknown by the rows: billed if stored, given back if not, bound either way', async () => {
      const state = new TestState(redis, { committedClicks: async (ids) => new Set(ids.filter((id) => id === 'row-kept')) });
      const cpc = newCandidate('unknown', { priceMicros: 0 });
      const at = Date.now();
      const requests = ['row-kept', 'row-missing'].map((clickId) => ({ ...cpcClick(cpc, `u-${clickId}`, at, 20_000), clickId }));
      for (const request of requests) {
        expect((await state.reserveImpressions({ userId: request.userId, adBlockId: 'b1', now: at, limit: 1 }, [cpc])).served).toEqual([0]);
        expect(await state.registerClick(request)).toMatchObject({ kind: 'counted', costMicros: 20_000 });
        state.clickOutcomeUnknown(request);
      }
      expect(await counter(stateKeys.spent(cpc.campaignId))).toBe(40_000);
      // sent again (a retry after the 503): a duplicate, whatever the outcome
      for (const request of requests)
        expect(await state.registerClick({ ...request, clickId: `${request.clickId}-again` })).toMatchObject({ kind: 'duplicate' });
      expect(await state.giveBackOrphanClicks(Date.now())).toBe(0);
      expect(await state.giveBackOrphanClicks(Date.now() + 61_000)).toBe(20_000);
      expect(await counter(stateKeys.spent(cpc.campaignId))).toBe(20_000);
      expect(await redis.hkeys(stateKeys.campaignLeases(cpc.campaignId))).toEqual([]);
      await state.beforeApplicationShutdown();
    });

    it('should keep billed an old click it lost track of when the database has its row', async () => {
      const state = new TestState(redis, { committedClicks: async (ids) => new Set(ids.filter((id) => id === 'row-stored')) });
      const cpc = newCandidate('stored', { priceMicros: 0 });
      const at = Date.now();
      expect((await state.reserveImpressions({ userId: 'u-stored', adBlockId: 'b1', now: at, limit: 1 }, [cpc])).served).toEqual([0]);
      expect(await state.registerClick({ ...cpcClick(cpc, 'u-stored', at, 20_000), clickId: 'row-stored' })).toMatchObject({ kind: 'counted' });
      // committed, but taking it off the hash never happened (the process lost track of it)
      (state as unknown as { clicks: { pendingClicks: Map<string, unknown> } }).clicks.pendingClicks.clear();
      expect(await state.giveBackOrphanClicks(Date.now() + 61_000)).toBe(0);
      expect(await counter(stateKeys.spent(cpc.campaignId))).toBe(20_000);
      expect(await redis.hkeys(stateKeys.campaignLeases(cpc.campaignId))).toEqual([]);
      await state.beforeApplicationShutdown();
    });
  });
} else {
  describeServingStateContract('memory', () => new MemoryServingState());
}
