import type { DataSource, EntityManager, Repository } from 'typeorm';
import type { AppConfig } from '../app-config';
import type { Queryable } from '../database/queryable';
import type { ClickStore } from '../clicks/click-store';
import type { Click } from '../clicks/entities/click.entity';
import { MetricsService } from '../metrics/metrics.service';
import type { StatsHourly } from './entities/stats-hourly.entity';
import { StatsWriterService } from './stats-writer.service';
import { StatsRepository } from './stats.repository';
import { WriteOutcomeUnknownError } from '../common/errors';
import type { WriteLedger } from './write-ledger';

/** The click rows go into the writer's transaction as one statement whose parameters are the clicks' statuses. */
const clickRows = {
  insertMany: (into: Queryable, clicks: Click[]) =>
    into.query(
      `INSERT INTO clicks (status) VALUES ${clicks.map(() => '(?)').join(', ')}`,
      clicks.map((click) => click.status ?? 'counted'),
    ),
} as ClickStore;

function writerOn(dataSource: DataSource): StatsWriterService {
  const config = { database: { type: dataSource.options.type === 'mysql' ? 'mysql' : 'sqlite', location: '' }, statsFlushMs: 60_000 } as AppConfig;
  return new StatsWriterService(
    dataSource,
    config,
    new StatsRepository(config, undefined as unknown as Repository<StatsHourly>),
    clickRows,
    new MetricsService(),
  );
}

const clickOf = (fields: Partial<Click>) => fields as Click;

/**
 * A data source whose transactions record their statements, failing while `down` is set; with `loseCommitAnswer`
 * a transaction commits and then fails, as when the connection drops during COMMIT.
 */
function fakeDataSource(type: 'mysql' | 'better-sqlite3' = 'mysql') {
  const committed: { sql: string; params: unknown[] }[][] = [];
  const state = { down: false, loseCommitAnswer: false, connectionLostBeforeCommit: false, downWithLostConnection: false };
  const markers = () => committed.flatMap((statements) => statements.filter((s) => s.sql.startsWith('INSERT INTO stats_writes')).map((s) => s.params[0]));
  // a multi-statement query (StatementBatch on MySQL) is recorded statement by statement
  const split = (sql: string, params: unknown[] = []) => {
    const statements: { sql: string; params: unknown[] }[] = [];
    let offset = 0;
    for (const one of sql.split(';\n')) {
      const count = (one.match(/\?/g) ?? []).length;
      statements.push({ sql: one, params: params.slice(offset, offset + count) });
      offset += count;
    }
    return statements;
  };
  // the SQLite path of StatsWritesRepository: the whole transaction in one synchronous call on the ORM's connection
  let sqliteOpen: { sql: string; params: unknown[] }[] | null = null;
  /** The `synchronous` setting each SQLite transaction committed under. */
  const syncModes: string[] = [];
  let synchronous = 'FULL';
  const databaseConnection = {
    inTransaction: false,
    pragma: (source: string) => void (synchronous = source.replace('synchronous = ', '')),
    prepare: (sql: string) => ({ reader: false, run: (...params: unknown[]) => void sqliteOpen!.push({ sql, params }), all: () => [] }),
    transaction: (work: () => void) => () => {
      sqliteOpen = [];
      work();
      committed.push(sqliteOpen);
      syncModes.push(synchronous);
      sqliteOpen = null;
    },
  };
  const dataSource = {
    options: { type },
    driver: { databaseConnection },
    transaction: async (work: (manager: EntityManager) => Promise<void>) => {
      if (state.down) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      if (state.connectionLostBeforeCommit) throw Object.assign(new Error('Connection lost'), { code: 'PROTOCOL_CONNECTION_LOST' });
      const statements: { sql: string; params: unknown[] }[] = [];
      await work({ query: async (sql: string, params: unknown[]) => void statements.push(...split(sql, params)) } as unknown as EntityManager);
      committed.push(statements);
      if (state.loseCommitAnswer) throw Object.assign(new Error('Connection lost: The server closed the connection.'), { code: 'PROTOCOL_CONNECTION_LOST' });
    },
    // the MySQL path of WriteLedger.writeBatch: START TRANSACTION, the statements and COMMIT in one query
    createQueryRunner: () => {
      let open: { sql: string; params: unknown[] }[] | null = null;
      const commit = () => {
        // the database stays away after the connection dropped: the write's outcome cannot be asked
        if (state.downWithLostConnection && (state.connectionLostBeforeCommit || state.loseCommitAnswer)) state.down = true;
        if (state.connectionLostBeforeCommit) throw Object.assign(new Error('Connection lost'), { code: 'PROTOCOL_CONNECTION_LOST' });
        committed.push(open ?? []);
        open = null;
        if (state.loseCommitAnswer) throw Object.assign(new Error('Connection lost: The server closed the connection.'), { code: 'PROTOCOL_CONNECTION_LOST' });
      };
      return {
        connect: async () => {
          if (state.down) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
        },
        release: async () => undefined,
        query: async (sql: string, params: unknown[] = []) => {
          for (const statement of split(sql, params)) {
            if (statement.sql === 'ROLLBACK') open = null;
            else if (statement.sql === 'START TRANSACTION') open = [];
            else if (statement.sql === 'COMMIT') commit();
            else open?.push(statement);
          }
        },
      };
    },
    query: async (sql: string, params: unknown[]) => {
      if (state.down) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      if (sql.startsWith('SELECT id FROM stats_writes')) return params.filter((id) => markers().includes(id)).map((id) => ({ id }));
      return [];
    },
  } as unknown as DataSource;
  return { dataSource, committed, state, syncModes };
}

/**
 * The campaign counter statements: one multi-row UPDATE whose rows are (id, impressions, clicks, spend, day, daySpend,
 * unbilledClicks, invalidClicks, invalidImpressions, views).
 */
const isCampaignCounters = (statement: { sql: string }) => statement.sql.startsWith('UPDATE campaigns') && statement.sql.includes('impressions =');
const impressionsWritten = (committed: { sql: string; params: unknown[] }[][]) =>
  committed
    .flatMap((statements) => statements.filter(isCampaignCounters))
    .reduce((sum, statement) => sum + statement.params.filter((_, i) => i % 10 === 1).reduce((a: number, b) => a + (b as number), 0), 0);

const HOUR = 3_600_000;

describe(StatsWriterService.name, () => {
  it('should count invalid impressions, unbilled or invalid clicks and views apart from the billed figures', async () => {
    const { dataSource, committed } = fakeDataSource('better-sqlite3');
    const writer = writerOn(dataSource);
    const now = 10 * HOUR;
    writer.recordImpressions(
      [
        { campaignId: 'c1', adBlockId: 'b1', costMicros: 700, earningsMicros: 490 },
        { campaignId: 'c1', adBlockId: 'b1', costMicros: 0, earningsMicros: 0, invalid: true },
        { campaignId: 'c1', adBlockId: 'b1', costMicros: 0, earningsMicros: 0, invalid: true },
      ],
      now,
    );
    writer.recordViews([{ campaignId: 'c1', adBlockId: 'b1' }], now);
    const click = (id: string, status: Click['status'], costMicros: number) =>
      clickOf({ id, campaignId: 'c1', adBlockId: 'b1', costMicros, earningsMicros: (costMicros * 7) / 10, createdAt: now, status });
    await Promise.all([
      writer.recordClick(click('k1', 'counted', 90_000)),
      writer.recordClick(click('k2', 'unbilled', 0)),
      writer.recordClick(click('k3', 'invalid', 0)),
    ]);
    await writer.flush();

    const statements = committed.flat();
    const hourly = statements.filter((statement) => statement.sql.startsWith('INSERT INTO stats_hourly'));
    const sums = hourly.reduce((sum, statement) => sum.map((value, i) => value + (statement.params[3 + i] as number)), [0, 0, 0, 0, 0, 0, 0, 0]);
    // impressions, clicks, spendMicros, earningsMicros, unbilledClicks, invalidClicks, invalidImpressions, views
    expect(sums).toEqual([1, 1, 90_700, 63_490, 1, 1, 2, 1]);
    const clickRows = statements.filter((statement) => statement.sql.startsWith('INSERT INTO clicks')).flatMap((statement) => statement.params);
    expect(clickRows.filter((value) => value === 'unbilled' || value === 'invalid' || value === 'counted')).toEqual(['counted', 'unbilled', 'invalid']);
  });

  it('should split the hourly counters by country and platform in the report rollup, one stats_hourly row per hour still', async () => {
    const { dataSource, committed } = fakeDataSource('better-sqlite3');
    const writer = writerOn(dataSource);
    const now = 10 * HOUR;
    writer.recordImpressions(
      [
        { campaignId: 'c1', adBlockId: 'b1', costMicros: 700, earningsMicros: 490, country: 'US', platform: 'iOS' },
        { campaignId: 'c1', adBlockId: 'b1', costMicros: 700, earningsMicros: 490, country: 'US', platform: 'iOS' },
        { campaignId: 'c1', adBlockId: 'b1', costMicros: 700, earningsMicros: 490, country: 'DE', platform: 'Android' },
        { campaignId: 'c1', adBlockId: 'b1', costMicros: 700, earningsMicros: 490, country: null, platform: null },
      ],
      now,
    );
    await writer.recordClick(
      Object.assign(clickOf({ id: 'k1', campaignId: 'c1', adBlockId: 'b1', costMicros: 90_000, earningsMicros: 63_000, createdAt: now, status: 'counted' }), {
        country: 'DE',
        platform: 'Android',
      }),
    );
    await writer.flush();

    const statements = committed.flat();
    // (campaignId, adBlockId, hour, impressions, clicks, spendMicros, earningsMicros, 4 traffic counters) per row
    const rowsOf = (table: string, keys: number) =>
      statements
        .filter((statement) => statement.sql.startsWith(`INSERT INTO ${table} `))
        .flatMap((statement) => {
          const width = keys + 8;
          return Array.from({ length: statement.params.length / width }, (_, i) => statement.params.slice(i * width, i * width + keys + 4));
        });
    expect(rowsOf('stats_hourly', 3)).toEqual([['c1', 'b1', now, 4, 1, 92_800, 64_960]]);
    expect(rowsOf('stats_report_hourly', 5).sort()).toEqual(
      [
        ['c1', 'b1', now, '', '', 1, 0, 700, 490],
        ['c1', 'b1', now, 'DE', 'Android', 1, 1, 90_700, 63_490],
        ['c1', 'b1', now, 'US', 'iOS', 2, 0, 1_400, 980],
      ].sort(),
    );
  });

  it('should sum impressions per campaign, block and hour exactly, across blocks, hours going back and forth, views and flushes', async () => {
    const { dataSource, committed } = fakeDataSource('better-sqlite3');
    const writer = writerOn(dataSource);
    const ad = (campaignId: string, adBlockId: string) => ({ campaignId, adBlockId, costMicros: 100, earningsMicros: 70 });
    writer.recordImpressions([ad('c1', 'b1'), ad('c2', 'b1')], 10 * HOUR);
    writer.recordImpressions([ad('c1', 'b2')], 10 * HOUR);
    writer.recordViews([{ campaignId: 'c1', adBlockId: 'b1' }], 10 * HOUR);
    writer.recordImpressions([ad('c1', 'b1')], 11 * HOUR); // the next hour
    writer.recordImpressions([ad('c1', 'b1'), ad('c1', 'b2')], 10 * HOUR + 5); // a request of the hour before, late
    writer.recordImpressions([ad('c1', 'b1')], 11 * HOUR + 5);
    await writer.flush();
    writer.recordImpressions([ad('c1', 'b1')], 11 * HOUR + 9); // after the flush: a new buffer
    await writer.flush();

    // (campaignId, adBlockId, hour) -> [impressions, spendMicros, views], summed over every committed write
    const rows = new Map<string, number[]>();
    for (const statement of committed.flat().filter((one) => one.sql.startsWith('INSERT INTO stats_hourly'))) {
      for (let i = 0; i < statement.params.length; i += 11) {
        const [campaignId, adBlockId, hour, impressions, , spendMicros] = statement.params.slice(i, i + 11) as [string, string, number, number, number, number];
        const key = `${campaignId} ${adBlockId} ${hour / HOUR}`;
        const sum = rows.get(key) ?? [0, 0, 0];
        rows.set(key, [sum[0] + impressions, sum[1] + spendMicros, sum[2] + (statement.params[i + 10] as number)]);
      }
    }
    expect(Object.fromEntries(rows)).toEqual({
      'c1 b1 10': [2, 200, 1],
      'c2 b1 10': [1, 100, 0],
      'c1 b2 10': [2, 200, 0],
      'c1 b1 11': [3, 300, 0],
    });
  });

  it("should count spend in the campaign's budget day it was served in, also when a day begins inside an hour", async () => {
    const { dataSource, committed } = fakeDataSource('better-sqlite3');
    const writer = writerOn(dataSource);
    // a zone half an hour off UTC: its day begins at 10:30, inside the hour of 10:00
    const before = '0000000570';
    const after = '0000000630';
    const ad = (day: string) => ({ campaignId: 'c1', adBlockId: 'b1', costMicros: 100, earningsMicros: 70, day });
    writer.recordImpressions([ad(before)], 10 * HOUR + 1);
    writer.recordImpressions([ad(after)], 10 * HOUR + 40 * 60_000);
    writer.recordImpressions([ad(after)], 10 * HOUR + 50 * 60_000);
    await writer.flush();
    const rows = committed.flat().filter(isCampaignCounters);
    expect(rows).toHaveLength(1);
    // (id, impressions, clicks, spend, day, daySpend): the newest day's spend only, the older day's in the total
    expect(rows[0].params.slice(0, 6)).toEqual(['c1', 3, 0, 300, after, 200]);
    // one stats_hourly row for the hour all the same
    const hourly = committed.flat().filter((one) => one.sql.startsWith('INSERT INTO stats_hourly'));
    expect(hourly.map((one) => one.params.slice(0, 6))).toEqual([['c1', 'b1', 10 * HOUR, 3, 0, 300]]);
  });

  it('should commit the clicks of one turn of the event loop in one transaction, also on a synchronous driver', async () => {
    // The fake's transactions, like better-sqlite3's, finish within the microtasks of the click that starts them.
    const { dataSource, committed } = fakeDataSource('better-sqlite3');
    const writer = writerOn(dataSource);
    const click = (id: string) => clickOf({ id, campaignId: 'c1', adBlockId: 'b1', costMicros: 0, earningsMicros: 0, createdAt: 10 * HOUR, status: 'counted' });
    // Requests read in one turn: each in a callback of its own, the microtasks of the one before run in between.
    const writes = await new Promise<Promise<void>[]>((resolve) => {
      const started: Promise<void>[] = [];
      for (const id of ['k1', 'k2', 'k3']) {
        setImmediate(() => {
          started.push(writer.recordClick(click(id)));
          if (started.length === 3) resolve(started);
        });
      }
    });
    await Promise.all(writes);

    expect(committed).toHaveLength(1);
    const clickRows = committed[0].filter((statement) => statement.sql.startsWith('INSERT INTO clicks')).flatMap((statement) => statement.params);
    expect(clickRows).toEqual(['counted', 'counted', 'counted']);
  });

  it('should keep only the impressions of a failed write for the next one, never the refused clicks', async () => {
    const { dataSource, committed, state } = fakeDataSource();
    const writer = writerOn(dataSource);
    const now = 10 * HOUR;
    writer.recordImpressions([{ campaignId: 'c1', adBlockId: 'b1', costMicros: 700, earningsMicros: 490 }], now);
    const click = clickOf({ id: 'k1', campaignId: 'c1', adBlockId: 'b1', costMicros: 90_000, earningsMicros: 63_000, createdAt: now });

    state.down = true;
    await expect(writer.recordClick(click)).rejects.toThrow('ECONNREFUSED');
    state.down = false;
    // asked for while the failed write is still finishing (as a shutdown's last flush can be): must write, not join it
    await writer.flush();

    expect(committed).toHaveLength(1);
    const hourly = committed[0].find((statement) => statement.sql.startsWith('INSERT INTO stats_hourly'))!;
    // (campaignId, adBlockId, hour, impressions, clicks, spendMicros, earningsMicros, unbilledClicks, invalidClicks,
    // invalidImpressions, views): the impression only; traffic names no event or verification counter
    expect(hourly.sql).toMatch(
      /^INSERT INTO stats_hourly \(campaignId, adBlockId, hour, impressions, clicks, spendMicros, earningsMicros, unbilledClicks, invalidClicks, invalidImpressions, views\) VALUES/,
    );
    expect(hourly.params).toEqual(['c1', 'b1', 10 * HOUR, 1, 0, 700, 490, 0, 0, 0, 0]);
    const campaign = committed[0].find(isCampaignCounters)!;
    expect(campaign.params).toEqual(['c1', 1, 0, 700, '', 700, 0, 0, 0, 0]);
  });

  it('should not write impressions twice when a write committed but its answer was lost', async () => {
    const { dataSource, committed, state } = fakeDataSource();
    const writer = writerOn(dataSource);
    writer.recordImpressions([{ campaignId: 'c1', adBlockId: 'b1', costMicros: 700, earningsMicros: 490 }], 10 * HOUR);

    state.loseCommitAnswer = true;
    await writer.flush();
    state.loseCommitAnswer = false;
    writer.recordImpressions([{ campaignId: 'c1', adBlockId: 'b1', costMicros: 700, earningsMicros: 490 }], 10 * HOUR);
    await writer.flush();
    await writer.flush();

    expect(impressionsWritten(committed)).toBe(2);
  });

  it('should write impressions only after the serving state billed them, and keep them while it cannot', async () => {
    const { dataSource, committed } = fakeDataSource();
    const writer = writerOn(dataSource);
    const billed: number[] = [];
    let redisUp = false;
    // the serving state's bill: it takes what was served so far, so it must run after the impressions were taken
    writer.countImpressionsAfter(async () => {
      if (!redisUp) throw new Error('Redis down');
      billed.push(committed.length);
    });
    writer.recordImpressions([{ campaignId: 'c1', adBlockId: 'b1', costMicros: 700, earningsMicros: 490 }], 10 * HOUR);
    await writer.flush();
    // not billed: nothing written, the impression kept
    expect(committed).toHaveLength(0);

    writer.recordImpressions([{ campaignId: 'c1', adBlockId: 'b1', costMicros: 700, earningsMicros: 490 }], 10 * HOUR);
    redisUp = true;
    await writer.flush();
    // billed before the write, then both impressions written once
    expect(billed).toEqual([0]);
    expect(impressionsWritten(committed)).toBe(2);
    await writer.flush();
    expect(impressionsWritten(committed)).toBe(2);
    // a write of clicks alone does not wait for a bill
    await writer.recordClick(
      clickOf({ id: 'k1', campaignId: 'c1', adBlockId: 'b1', costMicros: 0, earningsMicros: 0, createdAt: 10 * HOUR, status: 'unbilled' }),
    );
    expect(billed).toEqual([0]);
  });

  it('should commit the clicks of a write whose impressions could not be billed, and write those impressions once billed', async () => {
    const { dataSource, committed } = fakeDataSource();
    const writer = writerOn(dataSource);
    let redisUp = false;
    writer.countImpressionsAfter(async () => {
      if (!redisUp) throw new Error('Redis down');
    });
    writer.recordImpressions([{ campaignId: 'c1', adBlockId: 'b1', costMicros: 700, earningsMicros: 490 }], 10 * HOUR);
    // the click joins the write that also takes the impressions: the bill fails, the click is committed all the same
    await writer.recordClick(clickOf({ id: 'k1', campaignId: 'c1', adBlockId: 'b1', costMicros: 90_000, earningsMicros: 63_000, createdAt: 10 * HOUR }));
    expect(committed).toHaveLength(1);
    expect(impressionsWritten(committed)).toBe(0);
    const clicked = committed[0].find(isCampaignCounters)!;
    // (id, impressions, clicks, spend, day, daySpend, …): the click's price, no impression
    expect(clicked.params.slice(0, 6)).toEqual(['c1', 0, 1, 90_000, '', 90_000]);

    redisUp = true;
    await writer.flush();
    expect(committed).toHaveLength(2);
    expect(impressionsWritten(committed)).toBe(1);
    expect(committed[1].find(isCampaignCounters)!.params.slice(0, 6)).toEqual(['c1', 1, 0, 700, '', 700]);
    await writer.flush();
    expect(impressionsWritten(committed)).toBe(1);
  });

  it('should not hold a click behind a write of impressions alone whose bill is not answered, and write those impressions once it is', async () => {
    const { dataSource, committed } = fakeDataSource();
    const writer = writerOn(dataSource);
    // bills hang (a Redis Cluster slot without a master) until the test answers them
    const hanging: (() => void)[] = [];
    let billsAnswered = false;
    let bills = 0;
    const answerBills = () => {
      billsAnswered = true;
      for (const answer of hanging) answer();
    };
    writer.countImpressionsAfter(() => {
      bills++;
      return billsAnswered ? Promise.resolve() : new Promise<void>((resolve) => hanging.push(resolve));
    });
    writer.recordImpressions([{ campaignId: 'c1', adBlockId: 'b1', costMicros: 700, earningsMicros: 490 }], 10 * HOUR);
    const impressionsAlone = writer.flush();
    await new Promise((resolve) => setTimeout(resolve, 30));
    const clickedAt = Date.now();
    await writer.recordClick(clickOf({ id: 'k1', campaignId: 'c1', adBlockId: 'b1', costMicros: 90_000, earningsMicros: 63_000, createdAt: 10 * HOUR }));
    // answered after the impressions' write looked for waiting clicks and one wait for a bill of its own, not the first bill
    expect(Date.now() - clickedAt).toBeLessThan(1000);
    expect(committed).toHaveLength(1);
    expect(impressionsWritten(committed)).toBe(0);
    expect(committed[0].find(isCampaignCounters)!.params.slice(0, 6)).toEqual(['c1', 0, 1, 90_000, '', 90_000]);
    await impressionsAlone;

    // the bills answer: the impression is written once, by the next flush
    answerBills();
    await writer.flush();
    expect(impressionsWritten(committed)).toBe(1);
    await writer.flush();
    expect(impressionsWritten(committed)).toBe(1);
    expect(bills).toBeGreaterThanOrEqual(2);
  });

  it('should write again the impressions of a failed write once the database answers, and only once', async () => {
    const { dataSource, committed, state } = fakeDataSource();
    const writer = writerOn(dataSource);
    writer.recordImpressions([{ campaignId: 'c1', adBlockId: 'b1', costMicros: 700, earningsMicros: 490 }], 10 * HOUR);

    state.down = true;
    await writer.flush();
    writer.recordImpressions([{ campaignId: 'c1', adBlockId: 'b1', costMicros: 700, earningsMicros: 490 }], 10 * HOUR);
    await writer.flush();
    expect(committed).toHaveLength(0);
    state.down = false;
    await writer.flush();
    await writer.flush();

    expect(impressionsWritten(committed)).toBe(2);
  });

  it('should answer a click as counted when its write committed though the COMMIT answer was lost', async () => {
    const { dataSource, committed, state } = fakeDataSource();
    const writer = writerOn(dataSource);
    const click = clickOf({ id: 'k1', campaignId: 'c1', adBlockId: 'b1', costMicros: 90_000, earningsMicros: 63_000, createdAt: 10 * HOUR });

    state.loseCommitAnswer = true;
    await expect(writer.recordClick(click)).resolves.toBeUndefined();
    expect(committed).toHaveLength(1);
  });

  it('should refuse a click and keep its impressions once the database says a write in doubt did not commit', async () => {
    const { dataSource, committed, state } = fakeDataSource();
    const writer = writerOn(dataSource);
    writer.recordImpressions([{ campaignId: 'c1', adBlockId: 'b1', costMicros: 700, earningsMicros: 490 }], 10 * HOUR);
    const click = clickOf({ id: 'k1', campaignId: 'c1', adBlockId: 'b1', costMicros: 90_000, earningsMicros: 63_000, createdAt: 10 * HOUR });

    state.connectionLostBeforeCommit = true;
    await expect(writer.recordClick(click)).rejects.toThrow('Connection lost');
    state.connectionLostBeforeCommit = false;
    await writer.flush();

    expect(committed).toHaveLength(1);
    expect(impressionsWritten(committed)).toBe(1);
    const campaign = committed[0].find(isCampaignCounters)!;
    expect(campaign.params).toEqual(['c1', 1, 0, 700, '', 700, 0, 0, 0, 0]);
  });

  it.each([
    ['did not commit', 'connectionLostBeforeCommit' as const, 0],
    ['committed', 'loseCommitAnswer' as const, 1],
  ])(
    'should answer a click whose write lost its connection and whose outcome stays unknown as such, and settle its impressions by the outcome (%s)',
    async (_outcome, failure, clickRows) => {
      const { dataSource, committed, state } = fakeDataSource();
      const writer = writerOn(dataSource);
      (writer as unknown as { ledger: WriteLedger<unknown> }).ledger.inDoubtWaitMs = 300;
      writer.recordImpressions([{ campaignId: 'c1', adBlockId: 'b1', costMicros: 700, earningsMicros: 490 }], 10 * HOUR);
      const click = clickOf({ id: 'k1', campaignId: 'c1', adBlockId: 'b1', costMicros: 90_000, earningsMicros: 63_000, createdAt: 10 * HOUR });

      state[failure] = true;
      state.downWithLostConnection = true;
      // not a plain outage (nothing stored): the click's caller must keep it as possibly stored
      await expect(writer.recordClick(click)).rejects.toThrow(WriteOutcomeUnknownError);
      state[failure] = false;
      state.downWithLostConnection = false;
      state.down = false;
      await writer.flush();

      // the write in doubt was looked up before the next one: its impressions written exactly once either way
      expect(impressionsWritten(committed)).toBe(1);
      expect(committed.flatMap((statements) => statements.filter((statement) => statement.sql.startsWith('INSERT INTO clicks')))).toHaveLength(clickRows);
    },
  );

  describe('impression spend waived by the serving state', () => {
    /** (id, impressions, clicks, spend, day, daySpend) of each campaign counter row written, in order. */
    const campaignRows = (committed: { sql: string; params: unknown[] }[][]) =>
      committed
        .flatMap((statements) => statements.filter(isCampaignCounters))
        .flatMap((statement) => Array.from({ length: statement.params.length / 10 }, (_, row) => statement.params.slice(10 * row, 10 * row + 6)));
    const earningsOf = (committed: { sql: string; params: unknown[] }[][]) =>
      committed
        .flat()
        .filter((statement) => statement.sql.startsWith('UPDATE ad_blocks'))
        // rows of (id, impressions, clicks, earnings, four traffic counts)
        .reduce((sum, statement) => sum + statement.params.filter((_, i) => i % 8 === 3).reduce((a: number, b) => a + (b as number), 0), 0);

    it("should take the waived spend off the round's impressions while its bill is answered, keeping them counted and the earnings", async () => {
      const { dataSource, committed } = fakeDataSource();
      const writer = writerOn(dataSource);
      writer.countImpressionsAfter(async () => writer.waiveImpressionSpend('c1', 1400));
      writer.recordImpressions(
        [
          { campaignId: 'c1', adBlockId: 'b1', costMicros: 700, earningsMicros: 490 },
          { campaignId: 'c1', adBlockId: 'b2', costMicros: 700, earningsMicros: 490 },
          { campaignId: 'c1', adBlockId: 'b2', costMicros: 700, earningsMicros: 490 },
          { campaignId: 'c2', adBlockId: 'b1', costMicros: 900, earningsMicros: 630 },
        ],
        10 * HOUR,
      );
      await writer.flush();
      expect(campaignRows(committed)).toEqual([
        ['c1', 3, 0, 700, '', 700],
        ['c2', 1, 0, 900, '', 900],
      ]);
      expect(earningsOf(committed)).toBe(3 * 490 + 630);
    });

    it('should take what the round does not hold off the impressions served since, written with the next flush', async () => {
      const { dataSource, committed } = fakeDataSource();
      const writer = writerOn(dataSource);
      let bills = 0;
      writer.countImpressionsAfter(async () => {
        // served while the bill was on its way, and billed by it: two units waived, the round holding only one
        if (++bills === 1) {
          writer.recordImpressions([{ campaignId: 'c1', adBlockId: 'b1', costMicros: 700, earningsMicros: 490 }], 10 * HOUR);
          writer.waiveImpressionSpend('c1', 1400);
        }
      });
      writer.recordImpressions([{ campaignId: 'c1', adBlockId: 'b1', costMicros: 700, earningsMicros: 490 }], 10 * HOUR);
      await writer.flush();
      await writer.flush();
      expect(campaignRows(committed)).toEqual([
        ['c1', 1, 0, 0, '', 0],
        ['c1', 1, 0, 0, '', 0],
      ]);
    });

    it('should keep a waiver that comes before its impressions are recorded, and through a failed write, and take it once', async () => {
      const { dataSource, committed, state } = fakeDataSource();
      const writer = writerOn(dataSource);
      // the bill answered between the serve and the recording of its impressions (an ad request's second round)
      writer.waiveImpressionSpend('c1', 700);
      writer.recordImpressions(
        [
          { campaignId: 'c1', adBlockId: 'b1', costMicros: 700, earningsMicros: 490 },
          { campaignId: 'c1', adBlockId: 'b1', costMicros: 700, earningsMicros: 490 },
        ],
        10 * HOUR,
      );
      state.down = true;
      await writer.flush();
      expect(committed).toHaveLength(0);
      state.down = false;
      await writer.flush();
      await writer.flush();
      expect(campaignRows(committed)).toEqual([['c1', 2, 0, 700, '', 700]]);
      // nothing left over for the campaign's next impressions
      writer.recordImpressions([{ campaignId: 'c1', adBlockId: 'b1', costMicros: 700, earningsMicros: 490 }], 10 * HOUR);
      await writer.flush();
      expect(campaignRows(committed)[1]).toEqual(['c1', 1, 0, 700, '', 700]);
    });
  });

  describe('a big flush', () => {
    const records = (count: number) =>
      Array.from({ length: count }, (_, i) => ({ campaignId: `c${String(i).padStart(4, '0')}`, adBlockId: 'b1', costMicros: 700, earningsMicros: 490 }));
    const hourlyRows = (statements: { sql: string; params: unknown[] }[]) =>
      statements.filter((statement) => statement.sql.startsWith('INSERT INTO stats_hourly')).reduce((sum, statement) => sum + statement.params.length / 11, 0);

    it('should go in parts of at most 100 rows, a turn of the event loop between them, a click joining the next part', async () => {
      const { dataSource, committed, syncModes } = fakeDataSource('better-sqlite3');
      const writer = writerOn(dataSource);
      writer.recordImpressions(records(450), 10 * HOUR);
      // (transactions committed when the turn after the first part ran) and the click sent in that turn
      let seenBetweenParts = -1;
      let click: Promise<void> | undefined;
      const flushed = writer.flush();
      // the flush's turns: the first gathers the group, the second sorts the keys, the third writes the first part
      await new Promise<void>((resolve) =>
        setImmediate(() =>
          setImmediate(() =>
            setImmediate(() => {
              seenBetweenParts = committed.length;
              click = writer.recordClick(
                clickOf({ id: 'k1', campaignId: 'c0000', adBlockId: 'b1', costMicros: 0, earningsMicros: 0, createdAt: 10 * HOUR, status: 'counted' }),
              );
              resolve();
            }),
          ),
        ),
      );
      await flushed;
      await click;

      expect(seenBetweenParts).toBe(1);
      // the second part carries the click's row too (c0000 was in the first part)
      expect(committed.map(hourlyRows)).toEqual([100, 101, 100, 100, 50]);
      expect(committed.map((statements) => statements.some((statement) => statement.sql.startsWith('INSERT INTO clicks')))).toEqual([
        false,
        true,
        false,
        false,
        false,
      ]);
      expect(impressionsWritten(committed)).toBe(450);
      // only the part whose click waits for it syncs on its own (docs/OPERATIONS.md, "What a crash or a power loss can lose")
      expect(syncModes).toEqual(['NORMAL', 'FULL', 'NORMAL', 'NORMAL', 'NORMAL']);
    });

    it('should cut thousands of rows into parts in id order, each row once', async () => {
      const { dataSource, committed } = fakeDataSource('better-sqlite3');
      const writer = writerOn(dataSource);
      // recorded out of id order: 0, 7, 14, ... (mod 4,500)
      const recorded = records(4_500).map((_, i, all) => all[(i * 7) % all.length]);
      writer.recordImpressions(recorded, 10 * HOUR);
      await writer.flush();

      expect(committed.map(hourlyRows)).toEqual([...Array(45).fill(100)]);
      const order = committed.flatMap((statements) =>
        statements
          .filter((statement) => statement.sql.startsWith('INSERT INTO stats_hourly'))
          .flatMap((statement) => statement.params.filter((_, i) => i % 11 === 0)),
      );
      expect(order).toEqual(records(4_500).map((record) => record.campaignId));
      expect(impressionsWritten(committed)).toBe(4_500);
    });

    it("should count a round's parts not committed yet as unwritten spend, and those committed no more", async () => {
      const { dataSource } = fakeDataSource('better-sqlite3');
      const writer = writerOn(dataSource);
      writer.recordImpressions(records(450), 10 * HOUR);
      const campaigns = new Set(records(450).map((record) => record.campaignId));
      const flushed = writer.flush();
      // the first part committed (turns: the group, the keys' sort, the first part)
      await new Promise<void>((resolve) => setImmediate(() => setImmediate(() => setImmediate(resolve))));
      const unwritten = writer.unwrittenSpend(campaigns);
      expect(unwritten.size).toBe(350);
      expect(unwritten.has('c0099')).toBe(false);
      expect(unwritten.get('c0100')?.totalMicros).toBe(700);
      await flushed;
      expect(writer.unwrittenSpend(campaigns).size).toBe(0);
    });

    it('should ask the serving state for one bill per write round, not one per part', async () => {
      const { dataSource, committed } = fakeDataSource();
      const writer = writerOn(dataSource);
      let bills = 0;
      let redisUp = false;
      writer.countImpressionsAfter(async () => {
        bills += 1;
        if (!redisUp) throw new Error('Redis down');
      });
      const clicks = (count: number) =>
        Array.from({ length: count }, (_, i) =>
          writer.recordClick(
            clickOf({ id: `k${i}`, campaignId: 'c0000', adBlockId: 'b1', costMicros: 0, earningsMicros: 0, createdAt: 10 * HOUR, status: 'unbilled' }),
          ),
        );
      // three parts of impressions, each also taking 500 of the waiting clicks: the round's one bill fails and the
      // clicks are committed without the impressions
      writer.recordImpressions(records(250), 10 * HOUR);
      await Promise.all(clicks(1_200));
      expect(bills).toBe(1);
      expect(committed).toHaveLength(3);
      expect(impressionsWritten(committed)).toBe(0);

      // the next round (the clicks asked for one) bills once for its three parts
      redisUp = true;
      await writer.flush();
      expect(bills).toBe(2);
      expect(committed).toHaveLength(6);
      expect(impressionsWritten(committed)).toBe(250);
    });

    it('should put back the part that failed and the parts not tried, and write them once on the next flush', async () => {
      const { dataSource, committed, state } = fakeDataSource();
      const writer = writerOn(dataSource);
      writer.recordImpressions(records(450), 10 * HOUR);
      const flushed = writer.flush();
      // down from the second part on (the flush's turns: the group, the keys' sort, the first part)
      await new Promise<void>((resolve) => setImmediate(() => setImmediate(() => setImmediate(resolve))));
      state.down = true;
      await flushed;
      expect(committed).toHaveLength(1);
      state.down = false;
      await writer.flush();

      expect(impressionsWritten(committed)).toBe(450);
      expect(committed.map(hourlyRows)).toEqual([100, 100, 100, 100, 50]);
    });
  });
});
