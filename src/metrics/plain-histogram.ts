import type { Metric, Registry } from 'prom-client';

/** One exported sample: prom-client's shape (a series' labels are `sharedLabels` until `get` merges them). */
interface Sample {
  metricName: string;
  labels: Record<string, string | number>;
  value: number;
  sharedLabels?: Record<string, string>;
  exemplar?: null;
}

interface Exported {
  name: string;
  help: string;
  type: 'histogram';
  aggregator: 'sum';
  values: Sample[];
}

export interface HistogramSeries {
  observe(value: number): void;
}

/**
 * A Prometheus histogram kept as plain numbers and handed to the registry when scraped, in prom-client's own export
 * format (the same text on /metrics). prom-client's `observe` builds, validates and hashes the label set on every
 * call, even through `labels(...)`, a visible share of each ad request (docs/PERFORMANCE.md#the-access-log-and-the-request-histogram). Here a caller
 * keeps the series it got from `labels` once, and each observation is a bucket search and three additions.
 */
export class PlainHistogram<L extends string> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly L[],
    private readonly upperBounds: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as unknown as Metric);
  }

  /** The series of these label values (in `labelNames` order), created at its first use. */
  labels(...values: string[]): HistogramSeries {
    if (values.length !== this.labelNames.length) {
      throw new Error(`${this.name} takes ${this.labelNames.length} label values, got ${values.length}`);
    }
    const key = values.join('\u0000');
    let series = this.series.get(key);
    if (series === undefined) {
      series = new Series(Object.fromEntries(this.labelNames.map((name, i) => [name, values[i]])), this.upperBounds);
      this.series.set(key, series);
    }
    return series;
  }

  reset(): void {
    this.series.clear();
  }

  /** What the registry writes: per series its cumulative buckets, +Inf, sum and count, as prom-client's Histogram. */
  getForPromString(): Promise<Exported> {
    const values: Sample[] = [];
    for (const series of this.series.values()) {
      let cumulative = 0;
      this.upperBounds.forEach((le, i) => {
        cumulative += series.counts[i];
        values.push({ metricName: `${this.name}_bucket`, labels: { le }, value: cumulative, sharedLabels: series.labels, exemplar: null });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { le: '+Inf' }, value: series.count, sharedLabels: series.labels, exemplar: null });
      values.push({ metricName: `${this.name}_sum`, labels: {}, value: series.sum, sharedLabels: series.labels });
      values.push({ metricName: `${this.name}_count`, labels: {}, value: series.count, sharedLabels: series.labels });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  /** The same values with each series' labels merged in (prom-client's `get`, used by getMetricsAsJSON). */
  async get(): Promise<Exported> {
    const data = await this.getForPromString();
    const values = data.values.map(({ sharedLabels, labels, ...rest }) => ({ ...rest, labels: { ...labels, ...sharedLabels } }));
    return { ...data, values };
  }
}

class Series implements HistogramSeries {
  /** Observations per bucket (not cumulative); the last slot holds those above the highest bound. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Record<string, string>,
    private readonly upperBounds: readonly number[],
  ) {
    this.counts = new Float64Array(upperBounds.length + 1);
  }

  observe(value: number): void {
    // prom-client throws on these; an observation from a request hook must never fail the request
    if (!Number.isFinite(value)) return;
    let bucket = 0;
    while (bucket < this.upperBounds.length && value > this.upperBounds[bucket]) bucket++;
    this.counts[bucket]++;
    this.sum += value;
    this.count++;
  }
}
