import { Box, Card, CardContent, Typography } from '@mui/material';
import { Area, AreaChart, Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { Granularity, SeriesPoint } from '../dataProvider';
import { formatBucket, formatUsdt } from './format';

export interface Metric {
  key: string;
  label: string;
  color: string;
}

const tickOf = (granularity: Granularity) => (time: number) =>
  granularity === 'hour'
    ? new Date(time).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
    : new Date(time).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });

/** A total as the panel writes it elsewhere: money in USDT with two decimals at least, counts with separators. */
function formatTotal(value: number, money: boolean): string {
  const rounded = Number(value.toFixed(6));
  return money ? formatUsdt(rounded) : rounded.toLocaleString('en-US', { maximumFractionDigits: 6 });
}

/** One chart of a stats series: `kind` line for counts, area for volume, bar for money. */
export const SeriesChart = ({
  title,
  series,
  metrics,
  granularity,
  kind = 'line',
  decimals = false,
  testId,
}: {
  title: string;
  series: SeriesPoint[];
  metrics: Metric[];
  granularity: Granularity;
  kind?: 'line' | 'area' | 'bar';
  /** Money charts: the axis takes fractions. */
  decimals?: boolean;
  testId?: string;
}) => {
  const tick = tickOf(granularity);
  const total = (key: string) => series.reduce((sum, point) => sum + (Number(point[key]) || 0), 0);
  const common = {
    data: series,
    margin: { top: 8, right: 16, bottom: 0, left: 0 },
  };
  const axes = [
    <CartesianGrid key="grid" strokeDasharray="3 3" />,
    <XAxis key="x" dataKey="time" tickFormatter={tick} minTickGap={24} />,
    <YAxis key="y" allowDecimals={decimals} width={56} />,
    <Tooltip key="tooltip" labelFormatter={(time) => formatBucket(Number(time), granularity)} />,
    <Legend key="legend" />,
  ];
  return (
    <Card variant="outlined" sx={{ flex: '1 1 420px', minWidth: 320 }} data-testid={testId}>
      <CardContent>
        <Typography variant="subtitle1" gutterBottom>
          {title}
          <Typography component="span" variant="caption" color="text.secondary" sx={{ ml: 1 }}>
            {granularity === 'day' ? 'per UTC day' : 'per hour, your time'}
          </Typography>
        </Typography>
        <Typography variant="body2" color="text.secondary" data-testid={testId ? `${testId}-totals` : undefined}>
          {metrics.map((metric) => `${metric.label}: ${formatTotal(total(metric.key), decimals)}`).join(' · ')}
        </Typography>
        <Box sx={{ width: '100%', height: 240 }}>
          {metrics.every((metric) => total(metric.key) === 0) ? (
            <Box
              sx={{ height: '100%', display: 'flex', alignItems: 'center', justifyContent: 'center', border: 1, borderColor: 'divider', borderRadius: 1 }}
              data-testid={testId ? `${testId}-empty` : undefined}
            >
              <Typography variant="body2" color="text.secondary">
                No data yet in this period
              </Typography>
            </Box>
          ) : (
            <ResponsiveContainer width="100%" height="100%">
              {kind === 'bar' ? (
                <BarChart {...common}>
                  {axes}
                  {metrics.map((metric) => (
                    <Bar key={metric.key} dataKey={metric.key} name={metric.label} fill={metric.color} isAnimationActive={false} />
                  ))}
                </BarChart>
              ) : kind === 'area' ? (
                <AreaChart {...common}>
                  {axes}
                  {metrics.map((metric) => (
                    <Area
                      key={metric.key}
                      dataKey={metric.key}
                      name={metric.label}
                      stroke={metric.color}
                      fill={metric.color}
                      fillOpacity={0.25}
                      isAnimationActive={false}
                    />
                  ))}
                </AreaChart>
              ) : (
                <LineChart {...common}>
                  {axes}
                  {metrics.map((metric) => (
                    <Line key={metric.key} dataKey={metric.key} name={metric.label} stroke={metric.color} dot={false} isAnimationActive={false} />
                  ))}
                </LineChart>
              )}
            </ResponsiveContainer>
          )}
        </Box>
      </CardContent>
    </Card>
  );
};

export const RANGES = {
  '24h': { label: 'Last 24 hours', days: 1, granularity: 'hour' as Granularity },
  '7d': { label: 'Last 7 days', days: 7, granularity: 'day' as Granularity },
  '30d': { label: 'Last 30 days', days: 30, granularity: 'day' as Granularity },
};
export type RangeName = keyof typeof RANGES;

/** The `from`/`to` of a range ending now, `from` on a UTC bucket boundary. */
export function rangeBounds(name: RangeName, now = Date.now()) {
  const { days, granularity } = RANGES[name];
  const bucket = granularity === 'hour' ? 3_600_000 : 86_400_000;
  const to = now;
  const from = Math.floor((now - days * 86_400_000) / bucket) * bucket + bucket;
  return { from, to, granularity };
}

/** A bucket to add up: counters it lacks count as 0. */
type PartialPoint = { time: number; [counter: string]: number | undefined };

/** Adds up several series bucket by bucket (for totals across campaigns or blocks). */
export function sumSeries(seriesList: PartialPoint[][], keys: string[]): SeriesPoint[] {
  const byTime = new Map<number, SeriesPoint>();
  for (const series of seriesList) {
    for (const point of series) {
      const sum = byTime.get(point.time) ?? (Object.fromEntries([['time', point.time], ...keys.map((key) => [key, 0])]) as SeriesPoint);
      for (const key of keys) sum[key] = Math.round(((sum[key] ?? 0) + (Number(point[key]) || 0)) * 1e6) / 1e6;
      byTime.set(point.time, sum);
    }
  }
  return [...byTime.values()].sort((left, right) => left.time - right.time);
}
