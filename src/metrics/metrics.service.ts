import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { PlainHistogram } from './plain-histogram';

/** The click outcomes the stats writer commits (docs/CONTRACT.md §6). */
export type ClickMetricStatus = 'counted' | 'unbilled' | 'invalid';

/** Seconds; from a fast lane's fraction of a millisecond to a slow admin export. */
const HTTP_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Seconds; a group commit on a quiet database takes about a millisecond, a part of a big impression flush far more. */
const COUNTER_WRITE_BUCKETS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** Clicks per counter transaction: 0 for an impression flush without clicks, up to the writer's 500 a group. */
const GROUP_SIZE_BUCKETS = [0, 1, 2, 5, 10, 20, 50, 100, 200, 500];

/** The counter writers (docs/OPERATIONS.md, "Metrics"): the ad network's and the exchange's. */
export type CounterWriter = 'ads' | 'exchange';

/** How long a scrape waits for a gauge read from Redis. */
const READ_TIMEOUT_MS = 2000;

let processRegistry: Registry | undefined;

/**
 * The process metrics (CPU, memory, event loop lag, GC, handles): one set per process, however many applications it
 * runs (the e2e suite starts several in one process; the collectors install observers that are never removed).
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * The figures of /metrics (docs/OPERATIONS.md, "Metrics"). Business counters come from the one writer of each
 * figure, never from a second count: the stats writer reports the impressions it takes and the clicks it commits,
 * the conversions service the conversions it stores, the queues their failed tries. Hot paths only add to plain
 * numbers here; they become Prometheus samples when scraped. Gauges (index, caches, leases, queue depths) are read
 * from their owners at scrape time through the readers the owners register.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  /** Per route pattern, method and status class; observed at the Fastify edge (http-metrics.ts). */
  readonly httpDuration = new PlainHistogram(
    'adnet_http_request_duration_seconds',
    'HTTP requests by route pattern, method and status class: latency, and through _count the request rate. Fast lanes included.',
    ['route', 'method', 'status_class'],
    HTTP_BUCKETS,
    this.registry,
  );
  private readonly counterWriteSeconds = new Histogram({
    name: 'adnet_counter_write_seconds',
    help: 'Committed counter transactions (a group of clicks with the counters they move, or a flush of buffered impressions), by writer: time from sending to COMMIT answered; a click waits for about one and a half of them.',
    labelNames: ['writer'],
    buckets: COUNTER_WRITE_BUCKETS,
    registers: [this.registry],
  });
  private readonly counterWriteClicks = new Histogram({
    name: 'adnet_counter_write_clicks',
    help: 'Clicks per committed counter transaction, by writer: under load the groups grow instead of the transactions multiplying.',
    labelNames: ['writer'],
    buckets: GROUP_SIZE_BUCKETS,
    registers: [this.registry],
  });
  private adsServed = 0;
  private invalidImpressions = 0;
  private waivedSpendMicros = 0;
  private readonly clicks: Record<ClickMetricStatus, number> = { counted: 0, unbilled: 0, invalid: 0 };
  private readonly jobFailures = new Counter({
    name: 'adnet_queue_job_failures_total',
    help: 'Queue job tries that failed in this process, by queue; final="true" when the job failed for good (no try left).',
    labelNames: ['queue', 'final'],
    registers: [this.registry],
  });
  private readonly rewardCallbacks = new Counter({
    name: 'adnet_reward_callbacks_total',
    help: 'Reward callbacks (docs/REWARDED_ADS.md) by outcome: delivered, retried (a failed try with tries left), failed (no try left), capped (past the daily cap: none sent).',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  private readonly conversions = new Counter({
    name: 'adnet_conversions_total',
    help: 'Conversions stored, attributed to a click or not.',
    labelNames: ['attributed'],
    registers: [this.registry],
  });
  private readonly customEvents = new Counter({
    name: 'adnet_custom_events_total',
    help: 'Custom events stored (onboard, register, play, payment, withdraw), attributed to a click or not.',
    labelNames: ['event', 'attributed'],
    registers: [this.registry],
  });

  private readonly sdkCommonEvents = new Counter({
    name: 'adnet_sdk_common_events_total',
    help: 'Common events sent by ton-ai-sdk clients (its SendCommonEvent and its own error reports), by kind: error or other. Not stored; the log keeps a sample.',
    labelNames: ['kind'],
    registers: [this.registry],
  });

  private readonly sdkConversionsIgnored = new Counter({
    name: 'adnet_sdk_conversions_ignored_total',
    help: "ton-ai-sdk conversions sent with a key that cannot report one (a publisher's or a serve key, as TonAdInit does by default): answered success, not stored.",
    registers: [this.registry],
  });

  constructor() {
    this.total('adnet_ads_served_total', 'Ads served: impressions of valid traffic, each billed by its campaign (CPM) or free (CPC).', () => ({
      '': this.adsServed,
    }));
    this.total('adnet_impressions_invalid_total', 'Impressions served to invalid traffic (bots, data-centre networks): never billed.', () => ({
      '': this.invalidImpressions,
    }));
    this.total(
      'adnet_impression_spend_waived_micros_total',
      'Impression spend (micro-USDT) not billed because the budget was spent meanwhile: served by a process cut off from Redis past its lease life (docs/SCALING.md).',
      () => ({ '': this.waivedSpendMicros }),
    );
    this.total(
      'adnet_clicks_total',
      'Clicks committed, by status: counted (billed when the campaign pays per click), unbilled, invalid.',
      () => this.clicks,
      'status',
    );
    for (const writer of ['ads', 'exchange'] satisfies CounterWriter[]) {
      this.counterWriteSeconds.zero({ writer });
      this.counterWriteClicks.zero({ writer });
    }
    this.conversions.inc({ attributed: 'true' }, 0);
    this.conversions.inc({ attributed: 'false' }, 0);
  }

  /** A counter kept as plain numbers (by label value; '' without a label) and handed to Prometheus when scraped. */
  private total(name: string, help: string, read: () => Record<string, number>, labelName?: string): void {
    const counter: Counter = new Counter({
      name,
      help,
      labelNames: labelName ? [labelName] : [],
      registers: [this.registry],
      collect: () => {
        counter.reset();
        for (const [value, count] of Object.entries(read())) {
          if (labelName) counter.inc({ [labelName]: value }, count);
          else counter.inc(count);
        }
      },
    });
  }

  /** The stats writer took the impressions of an ad answer. */
  countImpressions(valid: number, invalid: number): void {
    this.adsServed += valid;
    this.invalidImpressions += invalid;
  }

  /** Impression spend the budget could not take, waived by the stats writer (waiveImpressionSpend). */
  countWaivedSpend(micros: number): void {
    this.waivedSpendMicros += micros;
  }

  /** The stats writer committed clicks. */
  countClick(status: ClickMetricStatus): void {
    this.clicks[status === 'unbilled' || status === 'invalid' ? status : 'counted'] += 1;
  }

  /** A counter writer committed a transaction carrying `clicks` clicks, `seconds` after sending it. */
  observeCounterWrite(writer: CounterWriter, clicks: number, seconds: number): void {
    this.counterWriteSeconds.observe({ writer }, seconds);
    this.counterWriteClicks.observe({ writer }, clicks);
  }

  /** A conversion (endpoint 7) or a custom event, once it is stored. */
  countEvent(eventType: string, attributed: boolean): void {
    if (eventType === 'conversion') this.conversions.inc({ attributed: String(attributed) });
    else this.customEvents.inc({ event: eventType, attributed: String(attributed) });
  }

  /** A ton-ai-sdk common event (docs/SWITCHING_FROM_TON_AI.md); the kind is bounded: error or other. */
  countSdkCommonEvent(kind: 'error' | 'other'): void {
    this.sdkCommonEvents.inc({ kind });
  }

  /** A ton-ai-sdk default conversion from a key that cannot attribute one (docs/SWITCHING_FROM_TON_AI.md). */
  countSdkConversionIgnored(): void {
    this.sdkConversionsIgnored.inc();
  }

  /** A reward callback's try (delivered, retried, failed), or a reward past its block's daily cap (capped). */
  countRewardCallback(outcome: 'delivered' | 'retried' | 'failed' | 'capped'): void {
    this.rewardCallbacks.inc({ outcome });
  }

  countJobFailure(queue: string, final: boolean): void {
    this.jobFailures.inc({ queue, final: String(final) });
  }

  /** A counter whose total is read from its owner at each scrape. */
  counter(name: string, help: string, read: () => number): void {
    this.total(name, help, () => ({ '': read() }));
  }

  /** A counter of one label whose totals (by label value) are read from its owner at each scrape. */
  labelledCounter(name: string, help: string, labelName: string, read: () => Record<string, number>): void {
    this.total(name, help, read, labelName);
  }

  /** A gauge whose value is read from its owner at each scrape. */
  gauge(name: string, help: string, read: () => number): void {
    const gauge: Gauge = new Gauge({
      name,
      help,
      registers: [this.registry],
      collect: () => gauge.set(read()),
    });
  }

  /** A gauge of several labelled values, read (possibly from Redis) at each scrape. */
  labelledGauge<L extends string>(name: string, help: string, labelNames: L[], read: () => Promise<{ labels: Record<L, string>; value: number }[]>): void {
    const gauge: Gauge<L> = new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      collect: async () => {
        gauge.reset();
        // Redis down (or slow) leaves these values out of the scrape instead of failing or holding it.
        const samples = await withTimeout(read(), READ_TIMEOUT_MS).catch(() => []);
        for (const sample of samples) gauge.set(sample.labels, sample.value);
      },
    });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text of this application's figures and of the process. */
  async scrape(): Promise<string> {
    const [own, process] = await Promise.all([this.registry.metrics(), processMetrics().metrics()]);
    return `${own}\n${process}`;
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
