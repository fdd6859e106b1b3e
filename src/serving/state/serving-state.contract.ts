import { ClickRequest, CompletionRequest, ImpressionCandidate, previewReserve, ServingState, ViewRequest } from './serving-state';
import { dayKeyOf } from '../../common/time-zone';

const DAY_MS = 86_400_000;
/** The key of the UTC day holding `ms` (a budget day of an account on UTC). */
const utcDayKey = (ms: number) => dayKeyOf(ms - (ms % DAY_MS));

/**
 * The behaviour both serving-state implementations promise; run against memory in the unit specs and against
 * Redis in the e2e suite of the MySQL + Redis profile.
 */
export function describeServingStateContract(name: string, makeState: () => Promise<ServingState> | ServingState) {
  describe(`${name} serving state`, () => {
    const now = Date.UTC(2026, 0, 10, 12);
    const day = utcDayKey(now);
    let state: ServingState;
    let seq = 0;
    let campaignId: string;

    beforeEach(async () => {
      state = await makeState();
      seq += 1;
      campaignId = `c${seq}-${Math.random().toString(36).slice(2, 8)}`;
    });

    const candidate = (overrides: Partial<ImpressionCandidate> = {}): ImpressionCandidate => ({
      campaignId,
      adId: `ad_${campaignId}`,
      priceMicros: 1000,
      totalBudgetMicros: 5000,
      dailyBudgetMicros: 3000,
      knownSpentMicros: 0,
      knownDaySpentMicros: 0,
      day,
      ...overrides,
    });
    const click = (overrides: Partial<ClickRequest> = {}): ClickRequest => ({
      campaignId,
      adId: `ad_${campaignId}`,
      userId: 'u1',
      adBlockId: 'b1',
      now,
      day,
      priceMicros: 0,
      totalBudgetMicros: 5000,
      dailyBudgetMicros: 3000,
      knownSpentMicros: 0,
      knownDaySpentMicros: 0,
      exclusionMs: 600_000,
      ...overrides,
    });
    const reserve = (userId: string, candidates: ImpressionCandidate[], limit = 5, at = now, onDay = day, invalid = false) =>
      state.reserveImpressions(
        { userId, adBlockId: 'b1', now: at, limit, invalid },
        candidates.map((offered) => (onDay === day ? offered : { ...offered, day: onDay })),
      );

    it('should stop serving once the daily budget is spent, and go on the next day', async () => {
      const served: number[] = [];
      for (let i = 0; i < 5; i++) served.push((await reserve(`u${i}`, [candidate()])).served.length);
      expect(served).toEqual([1, 1, 1, 0, 0]);
      expect((await reserve('u9', [candidate()])).exhausted).toEqual([0]);
      expect((await reserve('u9', [candidate()], 5, now + 86_400_000, utcDayKey(now + DAY_MS))).served).toEqual([0]);
    });

    describe('even pacing (docs/CONTRACT.md §16)', () => {
      const HOUR_MS = 3_600_000;
      // a day from 12 h before `now` to 12 h after it: at `now` the line is 55 % of the period's budget
      const paced = (overrides: Partial<ImpressionCandidate> = {}) =>
        candidate({ totalBudgetMicros: 1_000_000, dailyBudgetMicros: 10_000, pace: { start: now - 12 * HOUR_MS, end: now + 12 * HOUR_MS }, ...overrides });
      const serveAll = async (offered: ImpressionCandidate, at: number, tries = 20) => {
        let served = 0;
        let last;
        for (let i = 0; i < tries; i++) {
          last = await reserve(`pace-${at}-${i}`, [offered], 5, at);
          served += last.served.length;
        }
        return { served, last: last! };
      };

      it('should hold a campaign back at its line, never passing it by a unit, and serve again as the line moves', async () => {
        const first = await serveAll(paced(), now);
        expect(first.served).toBe(6); // 6,000 spent: the line is 5,500, one unit may pass it
        expect(first.last.heldBack).toEqual([0]);
        expect(first.last.exhausted).toEqual([]);
        const later = await serveAll(paced(), now + 6 * HOUR_MS); // the line is 80 %: 8,000
        expect(later.served).toBe(2);
        const evening = await serveAll(paced(), now + 12 * HOUR_MS - 1); // the line passed the budget: the budget stops it
        expect(evening.served).toBe(2);
        expect(evening.last.exhausted).toEqual([0]);
      });

      it("should pace over the total's rest when it is less than the daily budget", async () => {
        const nearlySpent = paced({ totalBudgetMicros: 20_000, knownSpentMicros: 15_000 });
        expect((await serveAll(nearlySpent, now)).served).toBe(3); // 5,000 left: the line is 2,750
      });

      it('should serve an asap campaign and one outside its pacing period as fast as the budget allows', async () => {
        expect((await serveAll(paced({ pace: null }), now)).served).toBe(10);
      });

      it('should hold back free impressions (CPC) once the day is at the line', async () => {
        expect((await reserve('cpc-1', [paced({ priceMicros: 0, knownDaySpentMicros: 5_000 })])).served).toEqual([0]);
        const ahead = await reserve('cpc-2', [
          paced({ priceMicros: 0, knownDaySpentMicros: 5_500, campaignId: `${campaignId}-b`, adId: `ad_${campaignId}-b` }),
        ]);
        expect(ahead.served).toEqual([]);
        expect(ahead.heldBack).toEqual([0]);
      });
    });

    it('should stop at the total budget, seeded from what the database already knew', async () => {
      const known = candidate({ knownSpentMicros: 4500, dailyBudgetMicros: 100_000 });
      expect((await reserve('u1', [known])).served).toEqual([0]);
      expect((await reserve('u2', [known])).served).toEqual([]);
    });

    it('should serve each candidate once per request, up to the limit, in order', async () => {
      const others = [1, 2, 3].map((n) => candidate({ campaignId: `${campaignId}-${n}`, adId: `ad_${campaignId}-${n}` }));
      expect((await reserve('u1', others, 2)).served).toEqual([0, 1]);
    });

    it("should bind a click to a served impression and count it once in the impression's whole life", async () => {
      expect(await state.registerClick(click())).toEqual({ kind: 'noImpression' });
      await reserve('u1', [candidate()]);
      expect(await state.registerClick(click({ userId: 'u2' }))).toEqual({ kind: 'noImpression' });
      expect(await state.registerClick(click({ adBlockId: 'b2' }))).toEqual({ kind: 'noImpression' });
      expect(await state.registerClick(click())).toEqual({ kind: 'counted', status: 'counted', invalidReason: null, costMicros: 0, budgetSpent: false });
      expect(await state.registerClick(click({ now: now + 599_999 }))).toEqual({ kind: 'duplicate' });
      expect(await state.registerClick(click({ now: now + 11 * 60_000 }))).toEqual({ kind: 'duplicate' });
      expect(await state.registerClick(click({ now: now + 23 * 3_600_000 }))).toEqual({ kind: 'duplicate' });
      expect(await state.registerClick(click({ now: now + 86_400_000 }))).toEqual({ kind: 'noImpression' });
    });

    it('should bind a view to a served impression, one per impression, a new serve taking one of its own', async () => {
      const view = (overrides: Partial<ViewRequest> = {}): ViewRequest => ({ userId: 'u1', adBlockId: 'b1', adId: `ad_${campaignId}`, now, ...overrides });
      expect(await state.registerView(view())).toBe('noImpression');
      await reserve('u1', [candidate({ priceMicros: 0 })]);
      expect(await state.registerView(view({ userId: 'u2' }))).toBe('noImpression');
      expect(await state.registerView(view({ adBlockId: 'b2' }))).toBe('noImpression');
      expect(await state.registerView(view())).toBe('counted');
      expect(await state.registerView(view({ now: now + 2000 }))).toBe('duplicate');
      // a view leaves the impression's click alone
      expect(await state.registerClick(click({ now: now + 3000 }))).toMatchObject({ status: 'counted' });
      expect(await state.registerView(view({ now: now + 86_400_000 }))).toBe('noImpression');
      expect((await reserve('u1', [candidate({ priceMicros: 0 })], 5, now + 700_000)).served).toEqual([0]);
      expect(await state.registerView(view({ now: now + 700_001, invalidRequest: true }))).toBe('invalid');
      expect(await state.registerView(view({ now: now + 700_002 }))).toBe('duplicate');
      await reserve('bot', [candidate({ priceMicros: 0 })], 5, now, day, true);
      expect(await state.registerView(view({ userId: 'bot' }))).toBe('invalid');
    });

    it('should bind a completion to an impression at least minViewMs old, one per impression, leaving clicks and views alone', async () => {
      const done = (overrides: Partial<CompletionRequest> = {}): CompletionRequest => ({
        userId: 'u1',
        adBlockId: 'b1',
        adId: `ad_${campaignId}`,
        now: now + 10_000,
        minViewMs: 10_000,
        ...overrides,
      });
      expect(await state.registerCompletion(done())).toEqual({ kind: 'noImpression' });
      await reserve('u1', [candidate({ priceMicros: 0 })]);
      expect(await state.registerCompletion(done({ userId: 'u2' }))).toEqual({ kind: 'noImpression' });
      expect(await state.registerCompletion(done({ adBlockId: 'b2' }))).toEqual({ kind: 'noImpression' });
      // too soon is not taken: a later completion still counts
      expect(await state.registerCompletion(done({ now: now + 9_999 }))).toEqual({ kind: 'tooSoon' });
      expect(await state.registerCompletion(done())).toEqual({ kind: 'counted', servedAt: now });
      expect(await state.registerCompletion(done({ now: now + 20_000 }))).toEqual({ kind: 'duplicate' });
      expect(await state.registerView({ userId: 'u1', adBlockId: 'b1', adId: `ad_${campaignId}`, now: now + 20_000 })).toBe('counted');
      expect(await state.registerClick(click({ now: now + 20_000 }))).toMatchObject({ status: 'counted' });
      expect(await state.registerCompletion(done({ now: now + 86_400_000 }))).toEqual({ kind: 'noImpression' });
      // a new serve is a new impression; an invalid request or impression uses it up uncounted
      await reserve('u1', [candidate({ priceMicros: 0 })], 5, now + 700_000);
      expect(await state.registerCompletion(done({ now: now + 710_000, invalidRequest: true }))).toEqual({ kind: 'invalid', servedAt: now + 700_000 });
      expect(await state.registerCompletion(done({ now: now + 720_000 }))).toEqual({ kind: 'duplicate' });
      await reserve('bot', [candidate({ priceMicros: 0 })], 5, now, day, true);
      expect(await state.registerCompletion(done({ userId: 'bot' }))).toEqual({ kind: 'invalid', servedAt: now });
    });

    it('should give a new serve of the same ad a click of its own', async () => {
      const free = candidate({ priceMicros: 0 });
      await reserve('u1', [free]);
      expect(await state.registerClick(click())).toMatchObject({ status: 'counted' });
      expect((await reserve('u1', [free], 5, now + 600_000)).served).toEqual([0]);
      expect(await state.registerClick(click({ now: now + 600_001 }))).toMatchObject({ status: 'counted' });
      expect(await state.registerClick(click({ now: now + 600_002 }))).toEqual({ kind: 'duplicate' });
    });

    it('should serve invalid traffic as usual but bill nothing, and make clicks on it invalid', async () => {
      for (let i = 0; i < 10; i++) expect((await reserve(`bot${i}`, [candidate()], 5, now, day, true)).served).toEqual([0]);
      // the whole daily budget (3 units) is still there for valid traffic
      const valid: number[] = [];
      for (let i = 0; i < 4; i++) valid.push((await reserve(`u${i}`, [candidate()])).served.length);
      expect(valid).toEqual([1, 1, 1, 0]);
      expect(await state.registerClick(click({ userId: 'bot1', priceMicros: 500, dailyBudgetMicros: 100_000 }))).toMatchObject({
        status: 'invalid',
        invalidReason: 'invalidImpression',
        costMicros: 0,
      });
      // a valid serve after an invalid one is a valid impression
      expect((await reserve('bot2', [candidate({ priceMicros: 0, dailyBudgetMicros: 100_000 })], 5, now + 1)).served).toEqual([0]);
      expect(await state.registerClick(click({ userId: 'bot2', now: now + 2 }))).toMatchObject({ status: 'counted' });
    });

    it('should make invalid a click of an invalid request or one sooner than the minimum delay, billing nothing', async () => {
      const cpc = { priceMicros: 1000, dailyBudgetMicros: 100_000 };
      for (const user of ['u1', 'u2', 'u3']) await reserve(user, [candidate({ ...cpc, priceMicros: 0 })]);
      expect(await state.registerClick(click({ ...cpc, invalidRequest: true }))).toMatchObject({ status: 'invalid', invalidReason: 'request', costMicros: 0 });
      expect(await state.registerClick(click({ ...cpc, now: now + 299, userId: 'u2', minDelayMs: 300 }))).toMatchObject({
        status: 'invalid',
        invalidReason: 'tooSoon',
        costMicros: 0,
      });
      // an invalid click uses up its impression like any other
      expect(await state.registerClick(click({ ...cpc, now: now + 5000, userId: 'u2', minDelayMs: 300 }))).toEqual({ kind: 'duplicate' });
      expect(await state.registerClick(click({ ...cpc, now: now + 300, userId: 'u3', minDelayMs: 300 }))).toMatchObject({
        status: 'counted',
        costMicros: 1000,
      });
    });

    it('should record a click on a campaign that is not billable as unbilled, at no cost', async () => {
      const cpc = { priceMicros: 1000, dailyBudgetMicros: 100_000 };
      await reserve('u1', [candidate({ ...cpc, priceMicros: 0 })]);
      expect(await state.registerClick(click({ ...cpc, billable: false }))).toMatchObject({ status: 'unbilled', invalidReason: null, costMicros: 0 });
    });

    it('should hide a clicked ad from that user for the exclusion time only', async () => {
      await reserve('u1', [candidate({ priceMicros: 0 })]);
      await state.registerClick(click());
      expect((await reserve('u1', [candidate({ priceMicros: 0 })], 5, now + 599_999)).served).toEqual([]);
      expect((await reserve('u2', [candidate({ priceMicros: 0 })], 5, now + 1)).served).toEqual([0]);
      expect((await reserve('u1', [candidate({ priceMicros: 0 })], 5, now + 600_000)).served).toEqual([0]);
    });

    it('should bill CPC clicks while budget is left, then record them unbilled', async () => {
      const cpc = { priceMicros: 2000, dailyBudgetMicros: 100_000 };
      const costs: number[] = [];
      const statuses: string[] = [];
      // Impressions served before the budget ran out can still be clicked: those clicks are recorded, unbilled.
      for (let i = 0; i < 4; i++) await reserve(`u${i}`, [candidate({ ...cpc, priceMicros: 0 })]);
      for (let i = 0; i < 4; i++) {
        const outcome = await state.registerClick(click({ ...cpc, userId: `u${i}` }));
        costs.push(outcome.kind === 'counted' ? outcome.costMicros : -1);
        statuses.push(outcome.kind === 'counted' ? outcome.status : outcome.kind);
      }
      expect(costs).toEqual([2000, 2000, 2000, 0]);
      expect(statuses).toEqual(['counted', 'counted', 'counted', 'unbilled']);
    });

    it('should tell which click spent the last of the budget', async () => {
      const cpc = { priceMicros: 2000, totalBudgetMicros: 5000, dailyBudgetMicros: 100_000 };
      for (let i = 0; i < 4; i++) await reserve(`u${i}`, [candidate({ ...cpc, priceMicros: 0 })]);
      const spent: boolean[] = [];
      for (let i = 0; i < 4; i++) {
        const outcome = await state.registerClick(click({ ...cpc, userId: `u${i}` }));
        spent.push(outcome.kind === 'counted' && outcome.budgetSpent);
      }
      expect(spent).toEqual([false, false, true, true]);
      // a free impression of a spent campaign is not served any more
      expect((await reserve('u9', [candidate({ ...cpc, priceMicros: 0 })])).exhausted).toEqual([0]);
    });

    it('should take back a click whose ledger write failed (its impression may be clicked again)', async () => {
      await reserve('u1', [candidate({ priceMicros: 0 })]);
      const request = click({ priceMicros: 4000, dailyBudgetMicros: 100_000 });
      expect(await state.registerClick(request)).toMatchObject({ kind: 'counted', costMicros: 4000 });
      await state.undoClick(request, 4000);
      expect(await state.registerClick(request)).toMatchObject({ kind: 'counted', costMicros: 4000 });
    });

    it('should keep a click whose write may have committed bound: sent again, it is a duplicate, never counted twice', async () => {
      await reserve('u1', [candidate({ priceMicros: 0 })]);
      const request = click({ priceMicros: 4000, dailyBudgetMicros: 100_000 });
      expect(await state.registerClick(request)).toMatchObject({ kind: 'counted', costMicros: 4000 });
      state.clickOutcomeUnknown(request);
      expect(await state.registerClick({ ...request, clickId: 'another-row' })).toMatchObject({ kind: 'duplicate' });
    });

    it('should answer each of many requests of the same moment on its own (one user excluded, the others not)', async () => {
      const free = candidate({ priceMicros: 0 });
      await reserve('clicker', [free]);
      await state.registerClick(click({ userId: 'clicker' }));
      const users = ['clicker', 'other-1', 'clicker', 'other-2'];
      const results = await Promise.all(users.map((user) => reserve(user, [free])));
      expect(results.map((result) => result.served)).toEqual([[], [0], [], [0]]);
      // and each served request left its own mark: its user's click counts
      expect(await state.registerClick(click({ userId: 'other-2' }))).toMatchObject({ kind: 'counted' });
      expect(await state.registerClick(click({ userId: 'other-3' }))).toEqual({ kind: 'noImpression' });
    });

    it('should never let concurrent reservations pass the budget by a unit price', async () => {
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => reserve(`p${i}`, [candidate({ dailyBudgetMicros: 100_000 })])));
      expect(results.reduce((sum, result) => sum + result.served.length, 0)).toBe(5);
    });

    describe('preview (read only)', () => {
      const preview = (userId: string | null, candidates: ImpressionCandidate[], at = now, adBlockId: string | null = 'b1') =>
        state.preview({ userId, adBlockId, now: at }, candidates);

      it('should read the budget counters, seeded from what the database knew, and change nothing', async () => {
        const known = candidate({ knownSpentMicros: 1500, knownDaySpentMicros: 700 });
        expect((await preview('u1', [known])).candidates[0]).toMatchObject({
          spentMicros: 1500,
          daySpentMicros: 700,
          excludedUntil: null,
          cappedImpressions: 0,
        });
        // nothing was seeded by the preview: the counters still take the known spend the reservation brings
        const later = candidate({ knownSpentMicros: 4500 });
        expect((await preview('u1', [later])).candidates[0].spentMicros).toBe(4500);
        expect((await reserve('u1', [later])).served).toEqual([0]);
        expect((await preview('u2', [later])).candidates[0]).toMatchObject({ spentMicros: 5500, daySpentMicros: 1000 });
        expect((await reserve('u2', [later])).exhausted).toEqual([0]);
      });

      it('should read exclusions, frequency caps and the hourly cap of a user without counting an impression', async () => {
        const free = candidate({ priceMicros: 0, frequencyCap: { impressions: 2, windowMs: 3_600_000 } });
        await reserve('u1', [free]);
        await state.registerClick(click());
        const read = await preview('u1', [free], now + 1);
        expect(read.candidates[0]).toMatchObject({ excludedUntil: now + 600_000, cappedImpressions: 1 });
        expect((await preview('u1', [free], now + 3_600_000)).candidates[0].cappedImpressions).toBe(0);
        expect((await preview('u2', [free])).candidates[0]).toMatchObject({ excludedUntil: null, cappedImpressions: 0 });
        expect((await preview(null, [free])).candidates[0]).toMatchObject({ excludedUntil: null, cappedImpressions: 0 });
        // previews leave the cap where it was: one more impression fits after the exclusion
        for (let i = 0; i < 3; i++) await preview('u1', [free], now + 600_000);
        expect((await reserve('u1', [free], 5, now + 600_000)).served).toEqual([0]);
        expect((await preview('u1', [free], now + 600_001)).candidates[0].cappedImpressions).toBe(2);
      });

      it('should predict what the next reservation serves (previewReserve)', async () => {
        const HOUR = 3_600_000;
        const big = { totalBudgetMicros: 1_000_000, dailyBudgetMicros: 1_000_000 };
        const ads = [
          candidate({ ...big, priceMicros: 0, frequencyCap: { impressions: 1, windowMs: HOUR } }),
          candidate({ campaignId: `${campaignId}-b`, adId: `ad_${campaignId}-b`, priceMicros: 1000, totalBudgetMicros: 2000, dailyBudgetMicros: 2000 }),
          candidate({ ...big, campaignId: `${campaignId}-c`, adId: `ad_${campaignId}-c`, priceMicros: 0 }),
        ];
        const request = (userId: string, at: number) => ({ userId, adBlockId: 'b1', now: at, day, limit: 2, userImpressionsPerHour: 4 });
        const steps = ['u1', 'u1', 'u2', 'u1', 'u3', 'u1'];
        for (let i = 0; i < steps.length; i++) {
          const at = now + i;
          const predicted = previewReserve(request(steps[i], at), ads, await preview(steps[i], ads, at));
          const actual = await state.reserveImpressions(request(steps[i], at), ads);
          expect({ step: i, served: predicted.served, userCapped: predicted.userCapped }).toEqual({
            step: i,
            served: actual.served,
            userCapped: actual.userCapped,
          });
        }
      });
    });

    describe('frequency caps', () => {
      const HOUR = 3_600_000;
      const capped = (impressions: number, windowMs: number, overrides: Partial<ImpressionCandidate> = {}) =>
        candidate({ frequencyCap: { impressions, windowMs }, dailyBudgetMicros: 1_000_000, totalBudgetMicros: 1_000_000, ...overrides });
      const other = (n: number) =>
        candidate({ campaignId: `${campaignId}-o${n}`, adId: `ad_${campaignId}-o${n}`, dailyBudgetMicros: 1_000_000, totalBudgetMicros: 1_000_000 });
      const user = (tag: string) => `${campaignId}-${tag}`;

      it('should serve a capped campaign to a user at most `impressions` times within any window (rolling)', async () => {
        const ad = capped(2, HOUR);
        const at = async (tag: string, ms: number) => (await reserve(user(tag), [ad], 5, now + ms)).served.length;
        expect([await at('a', 0), await at('a', 30 * 60_000), await at('a', 59 * 60_000)]).toEqual([1, 1, 0]);
        expect(await at('b', 59 * 60_000)).toBe(1);
        // the first impression leaves the window at exactly one hour; the second is still in it a minute later
        expect([await at('a', HOUR), await at('a', HOUR + 60_000), await at('a', 90 * 60_000)]).toEqual([1, 0, 1]);
      });

      it('should serve the next candidate in place of a capped one', async () => {
        const ad = capped(1, 24 * HOUR);
        expect((await reserve(user('a'), [ad, other(1)], 1)).served).toEqual([0]);
        expect((await reserve(user('a'), [ad, other(1)], 1, now + 1)).served).toEqual([1]);
        expect((await reserve(user('b'), [ad, other(1)], 1, now + 2)).served).toEqual([0]);
      });

      it('should not bill what a cap refused: the budget serves exactly its units to other users', async () => {
        const ad = capped(1, 24 * HOUR, { priceMicros: 1000, totalBudgetMicros: 3000, dailyBudgetMicros: 3000 });
        const served: number[] = [];
        served.push((await reserve(user('a'), [ad])).served.length);
        for (let i = 1; i <= 5; i++) served.push((await reserve(user('a'), [ad], 5, now + i)).served.length);
        for (const tag of ['b', 'c', 'd']) served.push((await reserve(user(tag), [ad], 5, now + 10)).served.length);
        expect(served).toEqual([1, 0, 0, 0, 0, 0, 1, 1, 0]);
      });

      it('should bound the impressions of one (block, user) pair within any hour across campaigns', async () => {
        const three = [other(1), other(2), other(3)];
        const reserveCapped = (userId: string, adBlockId: string, at: number) =>
          state.reserveImpressions({ userId, adBlockId, now: at, limit: 3, userImpressionsPerHour: 5 }, three);
        const first = await reserveCapped(user('a'), 'b1', now);
        const second = await reserveCapped(user('a'), 'b1', now + 1);
        const third = await reserveCapped(user('a'), 'b1', now + 2);
        expect([first.served, second.served, third.served]).toEqual([[0, 1, 2], [0, 1], []]);
        expect([first.userCapped, second.userCapped, third.userCapped]).toEqual([false, true, true]);
        expect((await reserveCapped(user('a'), 'b2', now + 3)).served).toEqual([0, 1, 2]);
        expect((await reserveCapped(user('b'), 'b1', now + 4)).served).toEqual([0, 1, 2]);
        // the first request's three leave the window an hour later; the second's two are still in it
        expect((await reserveCapped(user('a'), 'b1', now + HOUR - 1)).served).toEqual([]);
        expect((await reserveCapped(user('a'), 'b1', now + HOUR)).served).toEqual([0, 1, 2]);
        expect((await reserveCapped(user('a'), 'b1', now + HOUR)).served).toEqual([]);
      });

      it('should count nothing against the hourly cap when it is off', async () => {
        const results = [];
        for (let i = 0; i < 4; i++) {
          results.push(
            (await state.reserveImpressions({ userId: user('a'), adBlockId: 'b1', now: now + i, limit: 3 }, [other(1), other(2), other(3)])).served.length,
          );
        }
        expect(results).toEqual([3, 3, 3, 3]);
      });
    });
  });
}
