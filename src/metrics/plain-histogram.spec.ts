import { Histogram, Registry } from 'prom-client';
import { PlainHistogram } from './plain-histogram';

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const NAME = 'test_request_duration_seconds';
const HELP = 'Requests by route, method and status class.';
const LABELS = ['route', 'method', 'status_class'] as const;

/** The same observations in prom-client's Histogram and in a PlainHistogram, each in a registry of its own. */
function both(observations: [string, string, string, number][]) {
  const promRegistry = new Registry();
  const prom = new Histogram({ name: NAME, help: HELP, labelNames: [...LABELS], buckets: BUCKETS, registers: [promRegistry] });
  const plainRegistry = new Registry();
  const plain = new PlainHistogram(NAME, HELP, LABELS, BUCKETS, plainRegistry);
  for (const [route, method, statusClass, seconds] of observations) {
    prom.labels(route, method, statusClass).observe(seconds);
    plain.labels(route, method, statusClass).observe(seconds);
  }
  return { promRegistry, plainRegistry, plain };
}

describe('PlainHistogram', () => {
  // values on the bounds (a bound is inclusive), between them, below the lowest, above the highest, and 0
  const observations: [string, string, string, number][] = [
    ['/api/v2/openapi/matching/ad', 'GET', '2xx', 0.0004],
    ['/api/v2/openapi/matching/ad', 'GET', '2xx', 0.0005],
    ['/api/v2/openapi/matching/ad', 'GET', '2xx', 0.0031],
    ['/api/v2/openapi/matching/ad', 'GET', '2xx', 0.0031],
    ['/api/v2/openapi/matching/ad', 'GET', '4xx', 0.25],
    ['/api/v2/openapi/ad/event/report', 'POST', '2xx', 12.5],
    ['/api/v2/openapi/ad/event/report', 'POST', '2xx', 0],
    ['(unmatched)', 'OTHER', '4xx', 10],
  ];

  it('writes the same Prometheus text as prom-client for the same observations', async () => {
    const { promRegistry, plainRegistry } = both(observations);
    const text = await plainRegistry.metrics();
    expect(text).toBe(await promRegistry.metrics());
    expect(text).toContain('test_request_duration_seconds_bucket{le="0.005",route="/api/v2/openapi/matching/ad",method="GET",status_class="2xx"} 4');
    expect(text).toContain('test_request_duration_seconds_count{route="/api/v2/openapi/ad/event/report",method="POST",status_class="2xx"} 2');
    expect(text).toContain('test_request_duration_seconds_bucket{le="10",route="/api/v2/openapi/ad/event/report",method="POST",status_class="2xx"} 1');
    expect(text).toContain('test_request_duration_seconds_bucket{le="+Inf",route="/api/v2/openapi/ad/event/report",method="POST",status_class="2xx"} 2');
  });

  it('answers the same JSON as prom-client (getMetricsAsJSON)', async () => {
    const { promRegistry, plainRegistry } = both(observations);
    expect(await plainRegistry.getMetricsAsJSON()).toEqual(await promRegistry.getMetricsAsJSON());
  });

  it('keeps one series per label set, ignores values that are not finite, and empties on reset', async () => {
    const { plainRegistry, plain } = both([]);
    const series = plain.labels('/a', 'GET', '2xx');
    expect(plain.labels('/a', 'GET', '2xx')).toBe(series);
    series.observe(Number.NaN);
    series.observe(Number.POSITIVE_INFINITY);
    series.observe(0.002);
    const text = await plainRegistry.metrics();
    expect(text).toContain('test_request_duration_seconds_count{route="/a",method="GET",status_class="2xx"} 1');
    expect(text).toContain('test_request_duration_seconds_sum{route="/a",method="GET",status_class="2xx"} 0.002');
    expect(() => plain.labels('/a', 'GET')).toThrow(/takes 3 label values, got 2/);
    plainRegistry.resetMetrics();
    expect(await plainRegistry.metrics()).not.toContain('route="/a"');
  });
});
