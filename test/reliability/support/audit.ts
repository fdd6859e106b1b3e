import type { Cluster } from './cluster';
import type { Ledger } from './load';

/** PUBLISHER_SHARE of the processes under test, as a fraction: 7/10. Earnings are floor(cost × 7 / 10), exactly. */
const SHARE_NUMERATOR = 7;
const SHARE_DENOMINATOR = 10;
export const earningsOf = (costMicros: number) => Math.floor((costMicros * SHARE_NUMERATOR) / SHARE_DENOMINATOR);

export interface Audit {
  impressionsAnswered: number;
  impressionsStored: number;
  /** ads answered to bot or empty agents, and stored as invalid impressions */
  invalidImpressionsAnswered: number;
  invalidImpressionsStored: number;
  /** clicks answered "recorded, not billed" / "recorded as invalid traffic", and their rows */
  unbilledClicksAnswered: number;
  unbilledClickRows: number;
  invalidClicksAnswered: number;
  invalidClickRows: number;
  clicksCounted: number;
  clickRows: number;
  duplicateClicksAnswered: number;
  /** clicks answered "click counted" whose row is missing */
  clicksLost: number;
  /** clicks answered "click counted" more than once, or stored more than once */
  clicksDoubled: number;
  /** stored clicks whose every answer was an error (the client cannot know; allowed, reported) */
  clicksStoredUnacknowledged: number;
  /** of those, the ones stored unbilled / invalid */
  unbilledStoredUnacknowledged: number;
  invalidStoredUnacknowledged: number;
  /** stored clicks nobody reported, or reported and refused (a bug) */
  clicksStoredUnexplained: number;
  conversionsAnswered: number;
  conversionRows: number;
  conversionsLost: number;
  conversionsUnexplained: number;
  attributedConversions: number;
  impressionsLost: number;
  /** answered by a process killed outright within its last flush interval, and not counted (allowed: see Ledger.mayBeLost) */
  impressionsLostInCrash: number;
  /** the same, per campaign */
  lostInCrashByCampaign: Map<string, number>;
  impressionsDoubled: number;
  /** per campaign: spend, impressions, clicks, conversions and per block earnings that differ from the events */
  moneyMismatches: string[];
  /** the largest spend beyond the total budget, any campaign, micro-USDT */
  maxOverspendMicros: number;
  overspend: { campaignId: string; totalMicros: number; spentMicros: number; unitMicros: number }[];
  batchesAccepted: number;
  /** batches stored whose upload was not answered 200 (the client cannot know; reported) */
  batchesStoredUnanswered: number;
  batchesDone: number;
  profilesExpected: number;
  profilesStored: number;
  problems: string[];
  /** campaigns whose Redis budget counter was compared with the database (Suite.settledAudit) */
  countersCompared?: number;
  /** campaigns and blocks whose API figures were compared (support/figures.ts) */
  figuresCompared?: { campaigns: number; blocks: number };
}

type Num = number | string | null;
const n = (value: Num) => Number(value ?? 0);

/**
 * Compares the database with what the clients were answered: every counted click stored once, every answered
 * impression in the counters once, spend and publisher earnings equal to the events' prices (integer micro-USDT,
 * exactly), campaign and block totals equal to the hourly series, conversions stored once and attributed once,
 * profile batches applied.
 */
export async function audit(cluster: Cluster, ledger: Ledger): Promise<Audit> {
  const problems: string[] = [];
  const campaigns = await cluster.sql<{
    id: string;
    billingType: string;
    costPerMicros: Num;
    totalBudgetMicros: Num;
    impressions: Num;
    clicks: Num;
    conversions: Num;
    spentMicros: Num;
    unbilledClicks: Num;
    invalidClicks: Num;
    invalidImpressions: Num;
  }>(
    `SELECT id, billingType, costPerMicros, totalBudgetMicros, impressions, clicks, conversions, spentMicros, unbilledClicks, invalidClicks,
            invalidImpressions FROM campaigns`,
  );
  const blocks = await cluster.sql<{
    id: string;
    impressions: Num;
    clicks: Num;
    earningsMicros: Num;
    unbilledClicks: Num;
    invalidClicks: Num;
    invalidImpressions: Num;
  }>('SELECT id, impressions, clicks, earningsMicros, unbilledClicks, invalidClicks, invalidImpressions FROM ad_blocks');
  const series = await cluster.sql<{ campaignId: string; adBlockId: string; i: Num; c: Num; v: Num; s: Num; e: Num; u: Num; x: Num; ii: Num }>(
    `SELECT campaignId, adBlockId, SUM(impressions) AS i, SUM(clicks) AS c, SUM(conversions) AS v, SUM(spendMicros) AS s,
            SUM(earningsMicros) AS e, SUM(unbilledClicks) AS u, SUM(invalidClicks) AS x, SUM(invalidImpressions) AS ii
     FROM stats_hourly GROUP BY campaignId, adBlockId`,
  );
  const clickRows = await cluster.sql<{ id: string; u: string; b: string; a: string; c: string; cost: Num; earn: Num; status: string }>(
    'SELECT id, messengerUserId AS u, adBlockId AS b, adId AS a, campaignId AS c, costMicros AS cost, earningsMicros AS earn, status FROM clicks',
  );
  const conversionRows = await cluster.sql<{ adv: string; u: string; clickId: string | null; campaignId: string | null }>(
    'SELECT advertiserId AS adv, messengerUserId AS u, clickId, campaignId FROM conversions',
  );

  // ---- clicks ----
  const rowsByKey = new Map<string, typeof clickRows>();
  for (const row of clickRows) {
    const key = `${row.u}|${row.b}|${row.a}`;
    rowsByKey.set(key, [...(rowsByKey.get(key) ?? []), row]);
    if (n(row.earn) !== earningsOf(n(row.cost))) problems.push(`click ${row.id}: earnings ${row.earn} for cost ${row.cost}, want ${earningsOf(n(row.cost))}`);
    if (row.status !== 'counted' && n(row.cost) !== 0) problems.push(`click ${row.id}: ${row.status} yet billed ${row.cost}`);
  }
  let clicksCounted = 0;
  let duplicateClicksAnswered = 0;
  let clicksLost = 0;
  let clicksDoubled = 0;
  let clicksStoredUnacknowledged = 0;
  let clicksStoredUnexplained = 0;
  let unbilledClicksAnswered = 0;
  let invalidClicksAnswered = 0;
  let unbilledStoredUnacknowledged = 0;
  let invalidStoredUnacknowledged = 0;
  for (const [key, record] of ledger.clicks) {
    const rows = rowsByKey.get(key) ?? [];
    const stored = rows.length;
    const recorded = record.counted + record.unbilled + record.invalid;
    clicksCounted += record.counted;
    unbilledClicksAnswered += record.unbilled;
    invalidClicksAnswered += record.invalid;
    duplicateClicksAnswered += record.duplicates;
    if (recorded > 1 || stored > 1) clicksDoubled += 1;
    if (recorded >= 1 && stored === 0) clicksLost += 1;
    if (recorded === 0 && stored === 1) {
      if (record.failed > 0) {
        clicksStoredUnacknowledged += 1;
        if (rows[0].status === 'unbilled') unbilledStoredUnacknowledged += 1;
        if (rows[0].status === 'invalid') invalidStoredUnacknowledged += 1;
      } else clicksStoredUnexplained += 1;
    }
    const answered = record.counted ? 'counted' : record.unbilled ? 'unbilled' : record.invalid ? 'invalid' : null;
    if (answered && stored === 1 && rows[0].status !== answered) problems.push(`click ${key}: answered ${answered}, stored ${rows[0].status}`);
  }
  for (const key of rowsByKey.keys()) if (!ledger.clicks.has(key)) clicksStoredUnexplained += 1;

  // ---- conversions ----
  const conversionsByKey = new Map<string, typeof conversionRows>();
  for (const row of conversionRows) {
    const key = `${row.adv}|${row.u}`;
    conversionsByKey.set(key, [...(conversionsByKey.get(key) ?? []), row]);
  }
  let conversionsAnswered = 0;
  let conversionsLost = 0;
  let conversionsUnexplained = 0;
  const clickById = new Map(clickRows.map((row) => [row.id, row]));
  for (const [key, record] of ledger.conversions) {
    const rows = conversionsByKey.get(key) ?? [];
    conversionsAnswered += record.ok;
    if (rows.length < record.ok) conversionsLost += record.ok - rows.length;
    if (rows.length > record.ok + record.failed) conversionsUnexplained += rows.length - record.ok - record.failed;
    const attributed = rows.filter((row) => row.clickId !== null);
    if (attributed.length > 1) problems.push(`conversions of ${key}: ${attributed.length} attributed, at most one expected (one click each)`);
    if (record.afterCountedClick && record.ok > 0 && attributed.length !== 1) {
      problems.push(`conversions of ${key}: the user's counted click was not credited (${attributed.length} attributed)`);
    }
    if (!record.afterCountedClick && attributed.length > 0) problems.push(`conversions of ${key}: attributed without a counted click`);
  }
  for (const key of conversionsByKey.keys()) if (!ledger.conversions.has(key)) conversionsUnexplained += conversionsByKey.get(key)!.length;
  const creditedClicks = conversionRows.filter((row) => row.clickId !== null);
  if (new Set(creditedClicks.map((row) => row.clickId)).size !== creditedClicks.length) problems.push('a click was credited with two conversions');
  for (const row of creditedClicks) {
    const click = clickById.get(row.clickId!);
    if (!click || click.c !== row.campaignId) problems.push(`conversion credited to click ${row.clickId} which is not a click of campaign ${row.campaignId}`);
  }

  // ---- counters and money, per campaign and block ----
  const moneyMismatches: string[] = [];
  const price = new Map(campaigns.map((c) => [c.id, { cpm: c.billingType === 'CPM', costPer: n(c.costPerMicros) }]));
  const impressionPrice = (campaignId: string) => {
    const p = price.get(campaignId);
    return p && p.cpm ? p.costPer / 1000 : 0;
  };
  type Figures = { i: number; c: number; s: number; e: number; u: number; x: number; ii: number };
  const none = (): Figures => ({ i: 0, c: 0, s: 0, e: 0, u: 0, x: 0, ii: 0 });
  const expected = new Map<string, Figures>();
  const slot = (key: string) => {
    let value = expected.get(key);
    if (!value) expected.set(key, (value = none()));
    return value;
  };
  for (const [key, count] of ledger.served) {
    const [campaignId] = key.split('|');
    const unit = impressionPrice(campaignId);
    const value = slot(key);
    value.i += count;
    value.s += count * unit;
    value.e += count * earningsOf(unit);
  }
  for (const [key, count] of ledger.invalidServed) slot(key).ii += count;
  for (const row of clickRows) {
    const value = slot(`${row.c}|${row.b}`);
    if (row.status === 'unbilled') value.u += 1;
    else if (row.status === 'invalid') value.x += 1;
    else value.c += 1;
    value.s += n(row.cost);
    value.e += n(row.earn);
  }
  let impressionsStored = 0;
  let impressionsLost = 0;
  let impressionsLostInCrash = 0;
  const lostInCrashByCampaign = new Map<string, number>();
  let impressionsDoubled = 0;
  let invalidImpressionsStored = 0;
  const seriesByKey = new Map(series.filter((row) => row.adBlockId !== '').map((row) => [`${row.campaignId}|${row.adBlockId}`, row]));
  for (const key of new Set([...expected.keys(), ...seriesByKey.keys()])) {
    const want = expected.get(key) ?? none();
    const got = seriesByKey.get(key);
    const have: Figures = {
      i: n(got?.i ?? 0),
      c: n(got?.c ?? 0),
      s: n(got?.s ?? 0),
      e: n(got?.e ?? 0),
      u: n(got?.u ?? 0),
      x: n(got?.x ?? 0),
      ii: n(got?.ii ?? 0),
    };
    const invalidMissing = want.ii - have.ii;
    if (invalidMissing > 0 && invalidMissing <= (ledger.invalidMayBeLost.get(key) ?? 0)) want.ii -= invalidMissing;
    invalidImpressionsStored += have.ii;
    const missing = want.i - have.i;
    if (missing > 0 && missing <= (ledger.mayBeLost.get(key) ?? 0)) {
      // lost with a killed process: the stored counters must then be exact for the impressions that were kept
      const [campaignId] = key.split('|');
      const unit = impressionPrice(campaignId);
      want.i -= missing;
      want.s -= missing * unit;
      want.e -= missing * earningsOf(unit);
      impressionsLostInCrash += missing;
      lostInCrashByCampaign.set(campaignId, (lostInCrashByCampaign.get(campaignId) ?? 0) + missing);
    }
    impressionsStored += have.i;
    if (have.i < want.i) impressionsLost += want.i - have.i;
    if (have.i > want.i) impressionsDoubled += have.i - want.i;
    for (const field of ['i', 'c', 's', 'e', 'u', 'x', 'ii'] as const) {
      if (have[field] !== want[field]) moneyMismatches.push(`series ${key} ${field}: stored ${have[field]}, events say ${want[field]}`);
    }
  }
  const conversionsByCampaign = new Map<string, number>();
  for (const row of creditedClicks) conversionsByCampaign.set(row.campaignId!, (conversionsByCampaign.get(row.campaignId!) ?? 0) + 1);
  let maxOverspendMicros = 0;
  const overspend: Audit['overspend'] = [];
  for (const campaign of campaigns) {
    const rows = series.filter((row) => row.campaignId === campaign.id);
    const sum = (field: 'i' | 'c' | 'v' | 's' | 'u' | 'x' | 'ii') => rows.reduce((total, row) => total + n(row[field]), 0);
    const rowsOf = (status: string) => clickRows.filter((row) => row.c === campaign.id && row.status === status).length;
    const checks: [string, number, number][] = [
      ['impressions', n(campaign.impressions), sum('i')],
      ['clicks', n(campaign.clicks), sum('c')],
      ['clicks (rows)', n(campaign.clicks), rowsOf('counted')],
      ['unbilledClicks', n(campaign.unbilledClicks), sum('u')],
      ['unbilledClicks (rows)', n(campaign.unbilledClicks), rowsOf('unbilled')],
      ['invalidClicks', n(campaign.invalidClicks), sum('x')],
      ['invalidClicks (rows)', n(campaign.invalidClicks), rowsOf('invalid')],
      ['invalidImpressions', n(campaign.invalidImpressions), sum('ii')],
      ['spentMicros', n(campaign.spentMicros), sum('s')],
      ['conversions', n(campaign.conversions), sum('v')],
      ['conversions (rows)', n(campaign.conversions), conversionsByCampaign.get(campaign.id) ?? 0],
    ];
    for (const [field, stored, fromEvents] of checks) {
      if (stored !== fromEvents) moneyMismatches.push(`campaign ${campaign.id} ${field}: ${stored}, events say ${fromEvents}`);
    }
    const unit = campaign.billingType === 'CPM' ? n(campaign.costPerMicros) / 1000 : n(campaign.costPerMicros);
    const over = n(campaign.spentMicros) - n(campaign.totalBudgetMicros);
    maxOverspendMicros = Math.max(maxOverspendMicros, over);
    overspend.push({ campaignId: campaign.id, totalMicros: n(campaign.totalBudgetMicros), spentMicros: n(campaign.spentMicros), unitMicros: unit });
    if (over > unit) problems.push(`campaign ${campaign.id} spent ${campaign.spentMicros} of ${campaign.totalBudgetMicros}: more than one unit (${unit}) over`);
  }
  for (const block of blocks) {
    const rows = series.filter((row) => row.adBlockId === block.id);
    const sum = (field: 'i' | 'c' | 'e' | 'u' | 'x' | 'ii') => rows.reduce((total, row) => total + n(row[field]), 0);
    for (const [field, stored, fromSeries] of [
      ['impressions', n(block.impressions), sum('i')],
      ['clicks', n(block.clicks), sum('c')],
      ['earningsMicros', n(block.earningsMicros), sum('e')],
      ['unbilledClicks', n(block.unbilledClicks), sum('u')],
      ['invalidClicks', n(block.invalidClicks), sum('x')],
      ['invalidImpressions', n(block.invalidImpressions), sum('ii')],
    ] as [string, number, number][]) {
      if (stored !== fromSeries) moneyMismatches.push(`block ${block.id} ${field}: ${stored}, series say ${fromSeries}`);
    }
  }

  // ---- profile batches ----
  let batchesDone = 0;
  const [storedBatches] = await cluster.sql<{ n: Num }>("SELECT COUNT(*) AS n FROM profile_batches WHERE status <> 'staged'");
  const batchesStoredUnanswered = n(storedBatches.n) - ledger.batches.length;
  let profilesExpected = 0;
  let profilesStored = 0;
  if (ledger.batches.length > 0) {
    const statuses = await cluster.sql<{ id: string; status: string; total: Num; processed: Num }>(
      `SELECT id, status, total, processed FROM profile_batches WHERE id IN (${ledger.batches.map(() => '?').join(', ')})`,
      ledger.batches.map((batch) => batch.batchId),
    );
    const byId = new Map(statuses.map((row) => [row.id, row]));
    const stored = await cluster.sql<{ tag: string; total: Num; premium: Num; wallets: Num; english: Num }>(
      `SELECT SUBSTRING_INDEX(messengerUserId, '.', 1) AS tag, COUNT(*) AS total, SUM(isPremium) AS premium,
              SUM(walletAddress IS NOT NULL AND walletClassify = 'evm') AS wallets, SUM(language = 'en') AS english
       FROM profiles WHERE messengerUserId LIKE 'rp%' GROUP BY tag`,
    );
    const profiles = new Map(stored.map((row) => [row.tag, row]));
    for (const batch of ledger.batches) {
      const status = byId.get(batch.batchId);
      if (status?.status === 'done' && n(status.processed) === batch.size && n(status.total) === batch.size) batchesDone += 1;
      else problems.push(`batch ${batch.batchId}: ${JSON.stringify(status ?? 'missing')}`);
      profilesExpected += batch.size;
      const row = profiles.get(batch.tag);
      profilesStored += n(row?.total ?? 0);
      if (!row || n(row.total) !== batch.size || n(row.premium) !== batch.premium || n(row.wallets) !== batch.wallets || n(row.english) !== batch.size) {
        problems.push(
          `profiles of batch ${batch.batchId}: ${JSON.stringify(row ?? null)}, want ${batch.size} (${batch.premium} premium, ${batch.wallets} wallets)`,
        );
      }
    }
  }

  if (clicksLost) problems.push(`${clicksLost} counted clicks lost`);
  if (clicksDoubled) problems.push(`${clicksDoubled} clicks counted twice`);
  if (clicksStoredUnexplained) problems.push(`${clicksStoredUnexplained} stored clicks nobody was told were counted, without an error answer`);
  if (conversionsLost) problems.push(`${conversionsLost} conversions lost`);
  if (conversionsUnexplained) problems.push(`${conversionsUnexplained} stored conversions without a report`);
  if (impressionsLost) problems.push(`${impressionsLost} impressions answered but not counted`);
  if (impressionsDoubled) problems.push(`${impressionsDoubled} impressions counted twice or never answered`);
  problems.push(...moneyMismatches.slice(0, 20));

  return {
    impressionsAnswered: ledger.impressionsAnswered,
    impressionsStored,
    invalidImpressionsAnswered: ledger.invalidImpressionsAnswered,
    invalidImpressionsStored,
    unbilledClicksAnswered,
    unbilledClickRows: clickRows.filter((row) => row.status === 'unbilled').length,
    invalidClicksAnswered,
    invalidClickRows: clickRows.filter((row) => row.status === 'invalid').length,
    clicksCounted,
    clickRows: clickRows.length,
    duplicateClicksAnswered,
    clicksLost,
    clicksDoubled,
    clicksStoredUnacknowledged,
    unbilledStoredUnacknowledged,
    invalidStoredUnacknowledged,
    clicksStoredUnexplained,
    conversionsAnswered,
    conversionRows: conversionRows.length,
    conversionsLost,
    conversionsUnexplained,
    attributedConversions: creditedClicks.length,
    impressionsLost,
    impressionsLostInCrash,
    lostInCrashByCampaign,
    impressionsDoubled,
    moneyMismatches,
    maxOverspendMicros,
    overspend,
    batchesAccepted: ledger.batches.length,
    batchesStoredUnanswered,
    batchesDone,
    profilesExpected,
    profilesStored,
    problems,
  };
}
