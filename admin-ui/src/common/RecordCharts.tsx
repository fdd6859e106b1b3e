import { Alert, Box } from '@mui/material';
import { type ReactNode, useState } from 'react';
import { useDataProvider, useRecordContext } from 'react-admin';
import type { AdnetDataProvider, Granularity, SeriesPoint } from '../dataProvider';
import { NotBilledChart } from './NotBilledFigures';
import { RangePicker } from './RangePicker';
import { RANGES, rangeBounds, SeriesChart, type Metric, type RangeName } from './SeriesChart';
import { useLoaded } from './useLoaded';

export interface ChartSpec {
  title: string;
  testId: string;
  metrics: Metric[];
  kind?: 'line' | 'area' | 'bar';
  decimals?: boolean;
}

/**
 * The charts of a show page's record (a campaign, an ad block, an exchange campaign) over the range the user picks:
 * `series` names the data provider's method that reads the record's stats series; it is read again when the record
 * changes (a refresh after a status change). `notBilled` adds the not billed traffic chart; `children` renders more from the same series (a table).
 */
export const RecordCharts = ({
  series: method,
  charts,
  notBilled = false,
  children,
}: {
  series: 'campaignSeries' | 'adBlockSeries' | 'exchangeCampaignSeries';
  charts: ChartSpec[];
  notBilled?: boolean;
  children?: (series: SeriesPoint[], granularity: Granularity, range: RangeName) => ReactNode;
}) => {
  const record = useRecordContext();
  const dataProvider = useDataProvider<AdnetDataProvider>();
  const [range, setRange] = useState<RangeName>('7d');
  const id = record?.id;
  const { data: series, error } = useLoaded<SeriesPoint[]>(
    () => (id ? dataProvider[method](String(id), rangeBounds(range)) : null),
    [dataProvider, method, id, range, record?.updatedAt],
  );
  const granularity = RANGES[range].granularity;
  return (
    <Box sx={{ width: '100%' }}>
      <RangePicker value={range} onChange={setRange} />
      {error ? <Alert severity="error">{error}</Alert> : null}
      {series ? (
        <>
          <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2 }}>
            {charts.map((chart) => (
              <SeriesChart key={chart.testId} {...chart} series={series} granularity={granularity} />
            ))}
            {notBilled ? <NotBilledChart series={series} granularity={granularity} /> : null}
          </Box>
          {children?.(series, granularity, range)}
        </>
      ) : null}
    </Box>
  );
};
