import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Clock, DAY_MS, HOUR_MS } from '../common/clock';
import type { MatchContext } from '../serving/campaign-matcher';
import { FORECAST_CONFIG, ForecastConfig } from './forecast.config';
import { ForecastSampleRepository } from './forecast-sample.repository';
import { newId } from '../common/ids';
import { flagsOf, type SampleRow } from './forecast-sample';

/** How long samples are kept: the forecast reads the last 7 days. */
export const SAMPLE_DAYS = 7;
const FLUSH_MS = 1000;
/** Samples waiting for their write at most; beyond it (a database that does not answer) new ones are dropped. */
const MAX_BUFFERED = 10_000;
const PRUNE_BATCH = 5000;

/**
 * Keeps a share (FORECAST_SAMPLE_RATE) of answered ad requests' contexts for the forecast. On the ad path it costs a
 * random draw, and for a sampled request one array push: rows are written in one insert a second, never awaited by a
 * request; a write that fails drops its rows (the sample is a sample). Old rows are pruned hourly.
 */
@Injectable()
export class ForecastSampler implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ForecastSampler.name);
  private buffer: SampleRow[] = [];
  private sampledToday = 0;
  private sampledDay = -1;
  private flushTimer: NodeJS.Timeout | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    @Inject(FORECAST_CONFIG) private readonly config: ForecastConfig,
    private readonly samples: ForecastSampleRepository,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    if (this.config.forecastSampleRate <= 0) return;
    this.flushTimer = setInterval(() => void this.flush(), FLUSH_MS);
    this.flushTimer.unref();
    this.pruneTimer = setInterval(() => void this.prune(), HOUR_MS);
    this.pruneTimer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.flushTimer);
    clearInterval(this.pruneTimer);
    await this.flush();
  }

  /** An answered ad request of a block: kept with probability FORECAST_SAMPLE_RATE, within the day's bound. */
  offer(adBlockId: string, context: MatchContext, adLimit: number): void {
    const rate = this.config.forecastSampleRate;
    if (rate <= 0 || (rate < 1 && Math.random() >= rate)) return;
    const day = Math.floor(context.now / DAY_MS);
    if (day !== this.sampledDay) {
      this.sampledDay = day;
      this.sampledToday = 0;
    }
    if (this.sampledToday >= this.config.forecastSampleMaxPerDay || this.buffer.length >= MAX_BUFFERED) return;
    this.sampledToday += 1;
    this.buffer.push({
      id: newId(context.now),
      sampledAt: context.now,
      adBlockId,
      country: context.country,
      language: context.language,
      platform: context.platform,
      flags: flagsOf(context),
      adLimit,
      weightMilli: Math.round(1000 / rate),
    });
  }

  /** Writes what is buffered (one insert); resolves when it is stored or dropped. */
  flush(): Promise<void> {
    this.writing = this.writing.then(async () => {
      const rows = this.buffer;
      if (rows.length === 0) return;
      this.buffer = [];
      try {
        await this.samples.insertMany(rows);
      } catch (error) {
        this.logger.warn(`dropped ${rows.length} forecast samples: ${(error as Error).message}`);
      }
    });
    return this.writing;
  }

  /** Deletes the samples older than the forecast's window, a batch at a time. */
  async prune(): Promise<number> {
    const before = this.clock.now() - SAMPLE_DAYS * DAY_MS;
    let removed = 0;
    try {
      for (let batch = await this.samples.deleteBefore(before, PRUNE_BATCH); batch > 0; batch = await this.samples.deleteBefore(before, PRUNE_BATCH)) {
        removed += batch;
      }
    } catch (error) {
      this.logger.warn(`forecast samples not pruned: ${(error as Error).message}`);
    }
    return removed;
  }
}
