import { Alert, Box, ToggleButton, ToggleButtonGroup } from '@mui/material';
import { useEffect, useState } from 'react';
import { useDataProvider, useRecordContext } from 'react-admin';
import type { AdnetDataProvider } from '../dataProvider';
import { RANGES, rangeBounds, SeriesChart, type RangeName } from '../common/SeriesChart';
import { NOT_BILLED_METRICS } from '../common/traffic';

export const RangePicker = ({ value, onChange }: { value: RangeName; onChange: (range: RangeName) => void }) => (
  <ToggleButtonGroup size="small" exclusive value={value} onChange={(_event, range) => range && onChange(range)} sx={{ mb: 2 }}>
    {(Object.keys(RANGES) as RangeName[]).map((name) => (
      <ToggleButton key={name} value={name}>
        {RANGES[name].label}
      </ToggleButton>
    ))}
  </ToggleButtonGroup>
);

/** Impressions, clicks, conversions and cost of one campaign over time (GET ad/campaign/stats). */
export const CampaignCharts = () => {
  const record = useRecordContext();
  const dataProvider = useDataProvider<AdnetDataProvider>();
  const [range, setRange] = useState<RangeName>('7d');
  const [series, setSeries] = useState<any[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const id = record?.id;
  // Reload when the record changes (a refresh after a status change re-reads it).
  const version = record?.updatedAt;

  useEffect(() => {
    if (!id) return;
    let cancelled = false;
    dataProvider
      .campaignSeries(String(id), rangeBounds(range))
      .then((points) => !cancelled && (setSeries(points), setError(null)))
      .catch((caught) => !cancelled && setError((caught as Error).message));
    return () => {
      cancelled = true;
    };
  }, [dataProvider, id, range, version]);

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
            metrics={[{ key: 'impressions', label: 'Impressions', color: '#1976d2' }]}
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
            title="Cost (USDT)" decimals
            testId="chart-cost"
            kind="bar"
            series={series}
            granularity={granularity}
            metrics={[{ key: 'cost', label: 'Cost', color: '#d32f2f' }]}
          />
          <SeriesChart
            title="Not billed traffic"
            testId="chart-not-billed"
            series={series}
            granularity={granularity}
            metrics={NOT_BILLED_METRICS.map(({ key, label, color }) => ({ key, label, color }))}
          />
        </Box>
      ) : null}
    </Box>
  );
};
