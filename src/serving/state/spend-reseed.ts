import { Logger } from '@nestjs/common';

/** A campaign's spend as the database holds it, plus what this process served and has not written yet. */
export interface FreshSpend {
  spentMicros: number;
  daySpentMicros: number;
  /** The budget day (its key) `daySpentMicros` is of. */
  spentDay: string;
}

/** Where fresh spend comes from (wired in ServingModule: the stats writer and the campaigns' repository). */
export interface SpendSource {
  /**
   * Writes this process's buffered impressions, then reads the campaigns' spend from the database and adds what this
   * process still holds unwritten (a write that failed). Fails while the database is unreachable.
   */
  read(campaignIds: string[]): Promise<Map<string, FreshSpend>>;
  /** Writes this process's buffered impressions now (a Redis loss was seen: other processes are about to read). */
  flush(): Promise<void>;
  /**
   * How long after a loss of Redis' data every live process has seen it and written what it served before: the
   * epoch check's period, a stats flush, and a margin.
   */
  settleMs: number;
  /**
   * How long after a loss a missing counter may still be a lost one this process never knew: the loss settling, and
   * the index's cache catching up with the database (INDEX_REFRESH_MS, STATS_FLUSH_MS). Past it a counter nobody made
   * again since is seeded from the cache, which holds the whole spend by then.
   */
  recentLossMs: number;
}

/** When the serving state began in Redis, as RedisStateEpoch knows it after a check. */
export interface EpochView {
  at: number;
}

/**
 * Seeds for the budget counters after Redis lost them (docs/OPERATIONS.md, "Faults"). The spend the campaign index
 * caches lags the database by up to INDEX_REFRESH_MS + STATS_FLUSH_MS, and every process holds impressions it has
 * not written yet; counters seeded from that view let spend run past the budget by that lag, once per loss. So a
 * counter this process knew and finds missing (lease.lua answers -2) is seeded only from a fresh read: once the loss
 * is `settleMs` old (every live process has dropped its old leases and written what it served from them), this
 * process writes its own impressions, reads the spend from the database and adds what it could not write. Reads are
 * gathered per turn of the event loop, one query for the campaigns missing at once; a request that finds its
 * campaign missing meanwhile is answered without it (it never awaits the database).
 */
export class SpendReseed {
  private readonly logger = new Logger('ServingState');
  private seeds = new Map<string, FreshSpend>();
  private wanted = new Set<string>();
  private reading = false;
  /** Bumped at each new epoch: a read begun before it is dropped. */
  private generation = 0;

  constructor(
    private readonly source: SpendSource,
    /** Checks the epoch in Redis now (a new one resets this through `newEpoch`) and answers it, or null. */
    private readonly checkEpoch: () => Promise<EpochView | null>,
  ) {}

  /**
   * Redis began a new epoch (lost its data): the seeds read before are of the old one (the campaigns wanted are read
   * again, once this loss settled), and this process's impressions go to the database now.
   */
  newEpoch(): void {
    this.generation++;
    for (const id of this.seeds.keys()) this.wanted.add(id);
    this.seeds = new Map();
    this.source.flush().catch(() => undefined);
  }

  /** Whether Redis lost its data less than `recentLossMs` ago (`lossAt`: when, 0 never). */
  lossIsRecent(lossAt: number, now: number): boolean {
    return lossAt > 0 && now - lossAt < this.source.recentLossMs;
  }

  /** The fresh spend of the campaign read in this epoch, if any. */
  seedOf(campaignId: string): FreshSpend | undefined {
    return this.seeds.get(campaignId);
  }

  used(campaignId: string): void {
    this.seeds.delete(campaignId);
  }

  /** The campaign's counters are missing and this process must not seed them from its cache: a fresh read is started. */
  want(campaignId: string): void {
    if (this.seeds.has(campaignId)) return;
    this.wanted.add(campaignId);
    if (this.reading) return;
    this.reading = true;
    setImmediate(() => void this.readWanted());
  }

  private async readWanted(): Promise<void> {
    try {
      while (this.wanted.size > 0) {
        const epoch = await this.checkEpoch();
        const generation = this.generation;
        if (epoch === null) return this.retryLater();
        // a timer may fire a millisecond before the wall clock says its time has come: wait until it has
        for (let wait = epoch.at + this.source.settleMs - Date.now(); wait > 0; wait = epoch.at + this.source.settleMs - Date.now()) {
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
        if (generation !== this.generation) continue;
        const ids = [...this.wanted];
        let read: Map<string, FreshSpend>;
        try {
          read = await this.source.read(ids);
        } catch (error) {
          this.logger.warn({ err: error }, 'budget counters lost with Redis: the spend could not be read from the database; retried');
          return this.retryLater();
        }
        if (generation !== this.generation) continue;
        for (const id of ids) {
          this.wanted.delete(id);
          const seed = read.get(id);
          if (seed !== undefined) this.seeds.set(id, seed);
        }
        this.logger.warn(`budget counters lost with Redis: ${ids.length} campaign(s) re-seeded from the database`);
      }
    } finally {
      this.reading = false;
    }
  }

  /** Redis or the database failed the read: the campaigns still wanted are read again a second later. */
  private retryLater(): void {
    setTimeout(() => {
      if (this.reading || this.wanted.size === 0) return;
      this.reading = true;
      void this.readWanted();
    }, 1000).unref();
  }
}
