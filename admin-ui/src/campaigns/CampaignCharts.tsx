import { Alert, Box } from '@mui/material';
import { useState } from 'react';
import { useDataProvider, useRecordContext } from 'react-admin';
import type { AdnetDataProvider } from '../dataProvider';
import { NotBilledChart } from '../common/NotBilledFigures';
import { RangePicker } from '../common/RangePicker';
import { RANGES, rangeBounds, SeriesChart, type RangeName } from '../common/SeriesChart';
import { useLoaded } from '../common/useLoaded';

/** Impressions, clicks, conversions and cost of one campaign over time (GET ad/campaign/stats). */
export const CampaignCharts = () => {
  const record = useRecordContext();
  const dataProvider = useDataProvider<AdnetDataProvider>();
  const [range, setRange] = useState<RangeName>('7d');
  const id = record?.id;
  // Reload when the record changes (a refresh after a status change re-reads it).
  const version = record?.updatedAt;
  const { data: series, error } = useLoaded<any[]>(
    () => (id ? dataProvider.campaignSeries(String(id), rangeBounds(range)) : null),
    [dataProvider, id, range, version],
  );

  const granularity = RANGES[range].granularity;
  return (
    <Box>
      <RangePicker value={range} onChange={setRange} />
      {error ? <Alert severity="error">{error}</Alert> : null}
      {series ? (
        <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2 }}>
          <SeriesChart
            title="Impressions"
            testId="chart-impressions"
            kind="area"
            series={series}
            granularity={granularity}
            metrics={[
              { key: 'impressions', label: 'Impressions', color: '#1976d2' },
              { key: 'views', label: 'Views (SDK)', color: '#00838f' },
            ]}
          />
          <SeriesChart
            title="Clicks and conversions"
            testId="chart-clicks"
            series={series}
            granularity={granularity}
            metrics={[
              { key: 'clicks', label: 'Clicks', color: '#2e7d32' },
              { key: 'verifiedClicks', label: 'Verified clicks', color: '#9c27b0' },
              { key: 'conversions', label: 'Conversions', color: '#ed6c02' },
            ]}
          />
          <SeriesChart
            title="Cost (USDT)"
            decimals
            testId="chart-cost"
            kind="bar"
            series={series}
            granularity={granularity}
            metrics={[{ key: 'cost', label: 'Cost', color: '#d32f2f' }]}
          />
          <NotBilledChart series={series} granularity={granularity} />
        </Box>
      ) : null}
    </Box>
  );
};
