'use strict';
/**
 * The matcher alone, without HTTP: the service's own campaign index (`CampaignIndexService` of the build, loaded
 * from an in-memory list of campaign rows instead of the database) at 1,000 / 10,000 / 100,000 campaigns with the
 * targeting mix of bench/serving.js, and the request contexts of its ad fetches (countries from the geo database,
 * the profiles' flag mix, the three platforms, ten languages). Prints, per campaign count, the ns per match of each
 * kind of call the ad fetch makes, and what a full index refresh costs. Run by bench/scale.js, or alone:
 * `node bench/lib/matcher-scale.js` (needs `npm run build`; BENCH_MATCHER_CAMPAIGNS, default 1000,10000,100000).
 *
 * Kinds of call, as ServingService makes them (src/serving/reserve-in-rounds.ts): round 1 asks for limit + 3 = 8
 * candidates, a second round 16 with the 8 offered skipped, a fourth round 64 with the 56 offered before skipped.
 * "first" is the first request of a context after a refresh (the match cache starts afresh with every new list).
 * "controls": round 1 on an ad block with the bench blocks' controls (floors, refused categories and a refused domain,
 * bench/lib/seed.js BLOCK_CONTROLS), against round 1 on a block without any; "first with controls" includes the one
 * pass over the list that finds what those controls let through. "held back": round 1 with the best 5 % or 20 % of the
 * ranked campaigns skipped for being ahead of their pacing line (in the index's skip set, unchanged meanwhile).
 * "churn": pacing as it goes, see pacingChurn.
 */
const path = require('node:path');
const { ROOT } = require('./index');
const { campaignRow, addressesByCountry, random, pick, chance, LANGUAGES, BLOCK_CONTROLS } = require('./seed');

const COUNTS = (process.env.BENCH_MATCHER_CAMPAIGNS || '1000,10000,100000').split(',').map(Number);
const CONTEXTS = 4000;
/** Shares of the best-ranked campaigns held back (ahead of their pacing line) in the "held back" kinds. */
const HELD_BACK_SHARES = [0.05, 0.2];
const PLATFORMS = ['iOS', 'Android', 'Desktop'];

const dist = (file) => require(path.join(ROOT, 'dist/src', file));

/** A row with some history, so CPC campaigns rank by different CTR estimates. */
async function rowOf(i, now) {
  const row = await campaignRow(i, now, `a${i % 20}`);
  // the same ids in every run (not the service's clock-and-random ones), in row order as the in-memory store's pages need
  row.id = `c${String(i).padStart(9, '0')}`;
  row.impressions = Math.floor(random() * 10_000);
  row.clicks = Math.floor(random() * 100);
  return row;
}

/** Request contexts drawn like the ad fetches of bench/serving.js: 90 % known users with the profiles' flags. */
function contextsOf(now) {
  const addresses = addressesByCountry();
  return Array.from({ length: CONTEXTS }, () => {
    const known = chance(0.9);
    const wallet = known && chance(0.3);
    return {
      now,
      country: pick(addresses).country,
      language: pick(LANGUAGES),
      platform: pick(PLATFORMS),
      premium: known && chance(0.2),
      highValue: known && chance(0.1),
      linkedWallet: wallet,
      linkedChainWallet: wallet && chance(1 / 3),
      walletHasBalance: wallet && chance(0.5),
    };
  });
}

/** The service's index over `rows`, loaded as at start (the store is a list in memory; no timers started). */
async function indexOf(rows, clockNow) {
  const { CampaignIndexService } = dist('serving/campaign-index.service');
  const store = {
    servable: async () => rows,
    servableCountersPage: async (_now, afterId, limit) => {
      const from = afterId === null ? 0 : rows.findIndex((row) => row.id === afterId) + 1;
      return rows.slice(from, from + limit);
    },
    findByIds: async (ids) => rows.filter((row) => ids.includes(row.id)),
    findById: async (id) => rows.find((row) => row.id === id) ?? null,
  };
  const changes = { on: () => undefined };
  const index = new CampaignIndexService(store, { indexRefreshMs: 10_000 }, { now: clockNow }, changes);
  await index.refresh();
  return index;
}

// a full collection before each heap reading, so the index's heap is what it holds (also without --expose-gc)
require('node:v8').setFlagsFromString('--expose-gc');
const gc = require('node:vm').runInNewContext('gc');

const heapUsed = () => {
  gc();
  return process.memoryUsage().heapUsed;
};

/** Mean ns of `call(i)` over `n` calls. */
function timeEach(n, call) {
  const started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) call(i);
  return Number(process.hrtime.bigint() - started) / n;
}

async function measure(count, contexts, now) {
  const { selectCandidates, targetingKey } = dist('serving/campaign-matcher');
  const rows = [];
  // one at a time: each row draws from the shared random sequence in campaign order
  for (let i = 0; i < count; i++) rows.push(await rowOf(i, now));
  const before = heapUsed();
  let started = process.hrtime.bigint();
  const index = await indexOf(rows, () => now);
  const loadMs = Number(process.hrtime.bigint() - started) / 1e6;
  const indexBytes = heapUsed() - before;
  const none = new Set();
  const offered8 = (c) => new Set(index.candidates(c, 8, none).map((campaign) => campaign.id));
  const offered56 = (c) => new Set(index.candidates(c, 56, none).map((campaign) => campaign.id));
  const skips8 = contexts.map(offered8);
  const skips56 = contexts.map(offered56);
  let found = 0;
  const result = { count, loadMs, indexBytes };

  // A refresh with every counter moved: the service re-reads counters, re-ranks and rebuilds the targeting bitsets.
  for (const row of rows) row.impressions += 1 + Math.floor(random() * 100);
  started = process.hrtime.bigint();
  await index.refresh();
  result.refreshMs = Number(process.hrtime.bigint() - started) / 1e6;

  // first request of each context on the fresh list (the cache was emptied by the refresh): distinct contexts only
  const firsts = [...new Map(contexts.map((c) => [targetingKey(c), c])).values()];
  result.contexts = firsts.length;
  result.first = timeEach(firsts.length, (i) => (found += index.candidates(firsts[i], 8, none).length));
  const calls = 200_000;
  result.round1 = timeEach(calls, (i) => (found += index.candidates(contexts[i % CONTEXTS], 8, none).length));
  result.round2 = timeEach(calls, (i) => (found += index.candidates(contexts[i % CONTEXTS], 16, skips8[i % CONTEXTS]).length));
  const deepCalls = Math.max(2000, Math.floor(2e8 / count / 10));
  result.round4 = timeEach(deepCalls, (i) => (found += index.candidates(contexts[i % CONTEXTS], 64, skips56[i % CONTEXTS]).length));
  const controls = blockControls();
  result.firstControlled = timeEach(firsts.length, (i) => (found += index.candidates(firsts[i], 8, none, controls).length));
  result.round1Controlled = timeEach(calls, (i) => (found += index.candidates(contexts[i % CONTEXTS], 8, none, controls).length));
  // pacing: the best campaigns ahead of their line held back by the index, whose skip set every request then gets (the
  // last kinds measured: the clock stands still, so they stay held back)
  for (const share of HELD_BACK_SHARES) {
    index.holdBack(
      index.ranked.slice(0, Math.floor(share * count)).map((campaign) => campaign.id),
      now + 3_600_000,
    );
    result[`heldBack${share}`] = timeEach(calls, (i) => (found += index.candidates(contexts[i % CONTEXTS], 8).length));
  }
  result.churn = await pacingChurn(rows, contexts, now, count);
  result.scan = timeEach(deepCalls, (i) => (found += selectCandidates(index.ranked, contexts[i % CONTEXTS], 8, none).length));
  result.found = found;
  return result;
}

/**
 * Pacing as it goes on a busy network: the best fifth of the campaigns stay ahead of their line, so every request that
 * is offered one holds it back for a second (PACING_RECHECK_MS, as ServingService does on the serving state's answer),
 * after which it is offered again and held back again. 10,000 requests a simulated second for three seconds on a fresh
 * index; answers ns per request (candidates and hold-backs).
 */
async function pacingChurn(rows, contexts, now, count) {
  const index = await indexOf(rows, () => now);
  const ahead = new Set(index.ranked.slice(0, Math.floor(0.2 * count)).map((campaign) => campaign.id));
  const requests = contexts.map((context) => ({ ...context }));
  const { PACING_RECHECK_MS } = dist('campaigns/pacing');
  // the first request on a fresh index builds its targeting bitsets (a refresh builds them ahead, in slices): not churn
  index.candidates(contexts[0], 8);
  let found = 0;
  const ns = timeEach(30_000, (i) => {
    const at = now + i / 10;
    const context = requests[i % CONTEXTS];
    context.now = at;
    const picked = index.candidates(context, 8, index.skippedOn(at, 'bench-block'));
    const heldBack = picked.filter((campaign) => ahead.has(campaign.id)).map((campaign) => campaign.id);
    if (heldBack.length > 0) index.holdBack(heldBack, at + PACING_RECHECK_MS);
    found += picked.length;
  });
  // what was found keeps the calls from being optimized away
  if (found < 0) throw new Error('unreachable');
  return ns;
}

/** BLOCK_CONTROLS as the serving index gets them from an ad block's row. */
function blockControls() {
  const { controlsOf } = dist('ad-blocks/ad-blocks.service');
  const micros = (usdt) => Math.round(usdt * 1_000_000);
  return controlsOf({
    floorCpmMicros: micros(BLOCK_CONTROLS.floorCpm),
    floorCpcMicros: micros(BLOCK_CONTROLS.floorCpc),
    blockedCategories: BLOCK_CONTROLS.blockedCategories,
    blockedDomains: BLOCK_CONTROLS.blockedDomains,
  });
}

async function main() {
  const now = Date.now();
  const contexts = contextsOf(now);
  const results = [];
  const say = (line) => process.stdout.write(`${line}\n`);
  say(`matcher micro-bench: the service's campaign index in-process, ${CONTEXTS} request contexts (node ${process.version})`);
  for (const count of COUNTS) {
    const r = await measure(count, contexts, now);
    results.push(r);
    say(
      `  ${count} campaigns: round 1 ${r.round1.toFixed(0)} ns, round 2 ${r.round2.toFixed(0)} ns, round 4 ${r.round4.toFixed(0)} ns, ` +
        `first of a context ${(r.first / 1000).toFixed(1)} µs (${r.contexts} contexts); on a block with controls round 1 ` +
        `${r.round1Controlled.toFixed(0)} ns, first ${(r.firstControlled / 1000).toFixed(1)} µs; with the best 5 % held back ` +
        `${r['heldBack0.05'].toFixed(0)} ns, 20 % ${r['heldBack0.2'].toFixed(0)} ns, held back and offered again (pacing churn) ` +
        `${(r.churn / 1000).toFixed(1)} µs; plain scan ${(r.scan / 1000).toFixed(1)} µs; ` +
        `load ${r.loadMs.toFixed(0)} ms, refresh ${r.refreshMs.toFixed(0)} ms, index heap ${(r.indexBytes / 1048576).toFixed(1)} MB`,
    );
  }
  return results;
}

/** The results as a Markdown-like table (bench/scale.js prints it with the HTTP table). */
function matcherTable(results) {
  const header = [
    'campaigns',
    'round 1 ns',
    'controls ns',
    'held 5% ns',
    'held 20% ns',
    'churn µs',
    'round 2 ns',
    'round 4 ns',
    'first µs',
    'plain scan µs',
    'refresh ms',
    'index MB',
  ];
  const lines = results.map((r) => [
    String(r.count),
    r.round1.toFixed(0),
    r.round1Controlled.toFixed(0),
    r['heldBack0.05'].toFixed(0),
    r['heldBack0.2'].toFixed(0),
    (r.churn / 1000).toFixed(1),
    r.round2.toFixed(0),
    r.round4.toFixed(0),
    (r.first / 1000).toFixed(1),
    (r.scan / 1000).toFixed(1),
    r.refreshMs.toFixed(0),
    (r.indexBytes / 1048576).toFixed(1),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((line) => line[i].length)));
  return [header, ...lines].map((cells) => cells.map((cell, i) => cell.padStart(widths[i])).join('  ')).join('\n');
}

module.exports = { main, matcherTable };

if (require.main === module) {
  main().then(
    (results) => {
      process.stdout.write(`\n${matcherTable(results)}\n`);
      process.exit(0);
    },
    (error) => {
      process.stderr.write(`matcher bench failed: ${error.stack}\n`);
      process.exit(1);
    },
  );
}
