import Redis, { Cluster as RedisCluster } from 'ioredis';
import { clickIdOf } from '../../../src/serving/state/lease-fields';
import { stateKeys } from '../../../src/serving/state/serving-state';
import { type Cluster, healthOf } from './cluster';
import { call, type Json, type World } from './load';

/**
 * The two cross-checks of a phase's audit besides the events (support/audit.ts): the shared budget counters in Redis
 * against the database, and what the API shows (campaign list, detail and series; block list and series) against the
 * database and against each other.
 */

type Num = number | string | null;
const n = (value: Num) => Number(value ?? 0);
const micros = (usdt: number) => Math.round(usdt * 1_000_000);

/** The counts every campaign and block figure carries. */
const COUNTS = ['impressions', 'clicks', 'unbilledClicks', 'invalidClicks', 'invalidImpressions'] as const;
type Figures = Record<(typeof COUNTS)[number], number> & { micros: number };

/** A client of the suite's own Redis (the single server, or the cluster through its seed list), with the processes' key prefix. */
export function redisOf(cluster: Cluster): Redis | RedisCluster {
  const nodes = cluster.redisClusterNodes;
  if (nodes === null) return new Redis(cluster.redisUrl, { keyPrefix: cluster.redisPrefix, maxRetriesPerRequest: 2 });
  return new RedisCluster(
    nodes.split(',').map((node) => ({ host: node.split(':')[0], port: Number(node.split(':')[1]) })),
    { keyPrefix: cluster.redisPrefix, redisOptions: { maxRetriesPerRequest: 2 } },
  );
}

/**
 * Per campaign with a spend counter in Redis: the counter less what its leases hash holds aside, minus the spend the
 * database holds. Held aside are unused leases and billed clicks whose row is not committed; a billed click whose row
 * is committed and whose field is still there (the process could not take it off, Redis being away at that moment)
 * is spent: the holder's orphan sweep takes such fields off after a minute, asking the database as this does
 * (src/serving/state/lease-fields.ts, RedisLeaseHolder.giveBackOrphanClicks). The counter and the hash are read in
 * one MULTI (one slot: the campaign's hash tag), since a lease given back between two reads would show as a
 * difference. A campaign without a counter (never leased, or not seeded again since Redis lost its data) is left
 * out: the next lease seeds it from the database.
 */
export async function counterOffsets(cluster: Cluster, redis: Redis | RedisCluster): Promise<Map<string, number>> {
  const campaigns = await cluster.sql<{ id: string; spentMicros: Num }>('SELECT id, spentMicros FROM campaigns');
  const read = new Map<string, { spent: number; fields: [string, number][] }>();
  for (const campaign of campaigns) {
    const answers = await redis.multi().get(stateKeys.spent(campaign.id)).hgetall(stateKeys.campaignLeases(campaign.id)).exec();
    if (answers === null) throw new Error(`MULTI on the counters of ${campaign.id} was discarded`);
    const [[spentError, spent], [leasesError, leases]] = answers as [[Error | null, string | null], [Error | null, Record<string, string>]];
    if (spentError || leasesError) throw spentError ?? leasesError;
    if (spent !== null) read.set(campaign.id, { spent: Number(spent), fields: Object.entries(leases).map(([field, micros]) => [field, Number(micros)]) });
  }
  const clickIds = [...read.values()].flatMap(({ fields }) => fields.map(([field]) => clickIdOf(field)).filter((id): id is string => id !== null));
  const committed = new Set(
    clickIds.length === 0
      ? []
      : (await cluster.sql<{ id: string }>(`SELECT id FROM clicks WHERE id IN (${clickIds.map(() => '?').join(', ')})`, clickIds)).map((row) => row.id),
  );
  const offsets = new Map<string, number>();
  for (const campaign of campaigns) {
    const counters = read.get(campaign.id);
    if (counters === undefined) continue;
    const heldAside = counters.fields.reduce((sum, [field, micros]) => {
      const clickId = clickIdOf(field);
      return clickId !== null && committed.has(clickId) ? sum : sum + micros;
    }, 0);
    offsets.set(campaign.id, counters.spent - heldAside - n(campaign.spentMicros));
  }
  return offsets;
}

/** The offsets that differ from what is allowed (`allowed`: 0 unless a phase set it), as lines. */
export function counterMismatches(offsets: Map<string, number>, allowed: Map<string, number>): string[] {
  const lines: string[] = [];
  for (const [campaignId, offset] of offsets) {
    const want = allowed.get(campaignId) ?? 0;
    if (offset !== want)
      lines.push(`counters of ${campaignId}: Redis less leases held aside is ${offset > 0 ? '+' : ''}${offset} micro-USDT off the database (allowed ${want})`);
  }
  return lines;
}

/** A port of a live API (the suite replaces processes; any live one reads the same database). */
async function livePort(world: World, cluster: Cluster): Promise<number> {
  for (const port of [...cluster.apiPorts, ...world.ports]) if ((await healthOf(port)).status === 200) return port;
  throw new Error('no API answers /health');
}

async function get(port: number, key: string, path: string): Promise<Json> {
  const answer = await call(port, 'GET', path, { key });
  if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 200)}`);
  return answer.body!.data;
}

function figuresOf(item: Json, money: 'cost' | 'earnings'): Figures {
  const figures = { micros: micros(Number(item[money] ?? 0)) } as Figures;
  for (const count of COUNTS) figures[count] = Number(item[count] ?? 0);
  return figures;
}

function sumOf(points: Json[], money: 'cost' | 'earnings'): Figures {
  const sum = { micros: 0 } as Figures;
  for (const count of COUNTS) sum[count] = 0;
  for (const point of points) {
    const figures = figuresOf(point, money);
    for (const field of [...COUNTS, 'micros'] as const) sum[field] += figures[field];
  }
  return sum;
}

function differences(what: string, views: [string, Figures][]): string[] {
  const [[firstName, first], ...rest] = views;
  const lines: string[] = [];
  for (const [name, figures] of rest) {
    for (const field of [...COUNTS, 'micros'] as const) {
      if (figures[field] !== first[field]) lines.push(`${what} ${field}: ${firstName} ${first[field]}, ${name} ${figures[field]}`);
    }
  }
  return lines;
}

export interface ApiFigures {
  campaigns: number;
  blocks: number;
  mismatches: string[];
}

/** How one kind of entity is listed, shown and charted, and where the database keeps it. */
interface Views {
  what: 'campaign' | 'block';
  table: 'campaigns' | 'ad_blocks';
  moneyColumn: 'spentMicros' | 'earningsMicros';
  money: 'cost' | 'earnings';
  list: string;
  listed: (data: Json) => Json[];
  idOf: (item: Json) => string;
  detail: (id: string) => string;
  series: (id: string) => string;
}

const CAMPAIGN_VIEWS: Views = {
  what: 'campaign',
  table: 'campaigns',
  moneyColumn: 'spentMicros',
  money: 'cost',
  list: '/api/v2/openapi/ad/campaign/list?pageSize=100',
  listed: (data) => data.campaigns,
  idOf: (item) => item.id,
  detail: (id) => `/api/v2/openapi/ad/campaign/detail?campaignId=${id}`,
  series: (id) => `/api/v2/openapi/ad/campaign/stats?campaignId=${id}`,
};

const BLOCK_VIEWS: Views = {
  what: 'block',
  table: 'ad_blocks',
  moneyColumn: 'earningsMicros',
  money: 'earnings',
  list: '/api/v2/openapi/ad/block/list?pageSize=100',
  listed: (data) => data.adBlocks,
  idOf: (item) => item.adBlockId,
  detail: (id) => `/api/v2/openapi/ad/block/detail?adBlockId=${id}`,
  series: (id) => `/api/v2/openapi/ad/block/stats?adBlockId=${id}`,
};

/**
 * Per entity the owners' keys see: database = list = detail = series (summed per day over the whole run, `from` a
 * day before `since`). Answers the mismatches, how many were compared and the listed counts added up.
 */
async function compareViews(cluster: Cluster, port: number, keys: string[], views: Views, since: number) {
  const range = `from=${since - 24 * 3600_000}&to=${Date.now() + 3600_000}&granularity=day`;
  const rows = await cluster.sql<Record<string, Num> & { id: string }>(`SELECT id, ${COUNTS.join(', ')}, ${views.moneyColumn} FROM ${views.table}`);
  const byId = new Map(rows.map((row) => [row.id, row]));
  const totals = sumOf([], views.money);
  const mismatches: string[] = [];
  let compared = 0;
  for (const key of keys) {
    const list = await get(port, key, views.list);
    if (list.total > views.listed(list).length) mismatches.push(`${views.what}s of one key: ${list.total}, more than one page`);
    for (const item of views.listed(list)) {
      compared++;
      const id = views.idOf(item);
      const row = byId.get(id);
      if (!row) {
        mismatches.push(`${views.what} ${id}: listed, not in the database`);
        continue;
      }
      const stored = { micros: n(row[views.moneyColumn]) } as Figures;
      for (const count of COUNTS) stored[count] = n(row[count]);
      const listed = figuresOf(item, views.money);
      const series = await get(port, key, `${views.series(id)}&${range}`);
      mismatches.push(
        ...differences(`${views.what} ${id}`, [
          ['database', stored],
          ['list', listed],
          ['detail', figuresOf(await get(port, key, views.detail(id)), views.money)],
          ['series', sumOf(series.series as Json[], views.money)],
        ]),
      );
      for (const count of COUNTS) totals[count] += listed[count];
    }
  }
  return { mismatches, compared, totals };
}

/**
 * Series = list = detail = database, per campaign (each advertiser's own view) and per block (each publisher's), and
 * block = campaigns: the blocks' counts add up to the campaigns' (every campaign of the suite serves only on its
 * blocks; money differs by the publisher's share, checked per event in audit.ts).
 */
export async function apiFigureMismatches(cluster: Cluster, world: World, since: number): Promise<ApiFigures> {
  const port = await livePort(world, cluster);
  const campaigns = await compareViews(
    cluster,
    port,
    world.advertisers.map((advertiser) => advertiser.key),
    CAMPAIGN_VIEWS,
    since,
  );
  const blocks = await compareViews(
    cluster,
    port,
    world.publishers.map((publisher) => publisher.key),
    BLOCK_VIEWS,
    since,
  );
  const mismatches = [...campaigns.mismatches, ...blocks.mismatches];
  for (const count of COUNTS) {
    if (blocks.totals[count] !== campaigns.totals[count]) {
      mismatches.push(`${count}: the blocks add up to ${blocks.totals[count]}, the campaigns to ${campaigns.totals[count]}`);
    }
  }
  return { campaigns: campaigns.compared, blocks: blocks.compared, mismatches };
}
