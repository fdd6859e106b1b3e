import { Tooltip } from '@mui/material';
import { FunctionField, Labeled, type RaRecord } from 'react-admin';
import { formatCount, formatRate } from './format';
import type { Granularity, SeriesPoint } from '../dataProvider';
import { SeriesChart } from './SeriesChart';
import { type Counts, invalidImpressionShare, NOT_BILLED_METRICS } from './traffic';

/** The not billed counters of a campaign or ad block record, for a show page's grid of figures. */
export const NotBilledFigures = () => (
  <>
    {NOT_BILLED_METRICS.map((metric) => (
      <Labeled key={metric.key} label={metric.label}>
        <FunctionField
          source={metric.key}
          render={(record: RaRecord) => (
            <Tooltip title={metric.help}>
              <span data-testid={`figure-${metric.key}`}>{formatCount(record?.[metric.key] ?? 0)}</span>
            </Tooltip>
          )}
        />
      </Labeled>
    ))}
    <Labeled label="Invalid share of impressions">
      <FunctionField
        render={(record: RaRecord & Counts) => <span data-testid="figure-invalid-share">{formatRate(invalidImpressionShare(record ?? {}))}</span>}
      />
    </Labeled>
  </>
);

/** The not billed counters of a campaign's or ad block's series over time. */
export const NotBilledChart = ({ series, granularity }: { series: SeriesPoint[]; granularity: Granularity }) => (
  <SeriesChart
    title="Not billed traffic"
    testId="chart-not-billed"
    series={series}
    granularity={granularity}
    metrics={NOT_BILLED_METRICS.map(({ key, label, color }) => ({ key, label, color }))}
  />
);
