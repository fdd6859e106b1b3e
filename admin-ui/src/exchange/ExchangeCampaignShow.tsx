import { Box, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { TabbedShowLayout, TextField, useRecordContext } from 'react-admin';
import { StatusActions } from '../campaigns/StatusButtons';
import { FigureGrid } from '../common/FigureGrid';
import { CountField, DateTimeField, OwnerField, RateField, StatusChip } from '../common/fields';
import { formatBucket } from '../common/format';
import { type ChartSpec, RecordCharts } from '../common/RecordCharts';
import { RecordShow } from '../common/RecordPages';
import { RANGES, type RangeName } from '../common/SeriesChart';
import type { Granularity, SeriesPoint } from '../dataProvider';
import { BalanceField } from './BalanceField';

const CHARTS: ChartSpec[] = [
  {
    title: 'Clicks sent and received',
    testId: 'chart-ledger',
    kind: 'bar',
    metrics: [
      { key: 'clicksSent', label: 'Clicks you sent', color: '#2e7d32' },
      { key: 'clicksReceived', label: 'Clicks you received', color: '#1976d2' },
    ],
  },
  {
    title: 'Impressions',
    testId: 'chart-exchange-impressions',
    metrics: [
      { key: 'impressions', label: 'Shown elsewhere', color: '#9c27b0' },
      { key: 'impressionsSent', label: 'Entries shown here', color: '#ed6c02' },
    ],
  },
];

/** The buckets with traffic, each with the running balance since the range's start. */
const LedgerTable = ({ series, granularity, range }: { series: SeriesPoint[]; granularity: Granularity; range: RangeName }) => {
  let running = 0;
  const withRunning = series.map((point): SeriesPoint & { runningBalance: number } => ({ ...point, runningBalance: (running += point.balance) }));
  const active = withRunning.filter((point) => point.clicksSent || point.clicksReceived || point.impressions || point.impressionsSent || point.conversions);
  return (
    <>
      <Typography variant="subtitle1" sx={{ mt: 2 }}>
        Ledger entries ({RANGES[range].label.toLowerCase()}, buckets with traffic)
      </Typography>
      <Table size="small" data-testid="ledger-table">
        <TableHead>
          <TableRow>
            <TableCell>From</TableCell>
            <TableCell align="right">Shown elsewhere</TableCell>
            <TableCell align="right">Entries shown here</TableCell>
            <TableCell align="right">Clicks sent</TableCell>
            <TableCell align="right">Clicks received</TableCell>
            <TableCell align="right">Conversions</TableCell>
            <TableCell align="right">Balance</TableCell>
            <TableCell align="right">Running balance</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {active.length === 0 ? (
            <TableRow>
              <TableCell colSpan={8}>No exchange traffic in this range.</TableCell>
            </TableRow>
          ) : (
            active.map((point) => (
              <TableRow key={point.time}>
                <TableCell>{formatBucket(point.time, granularity)}</TableCell>
                <TableCell align="right">{point.impressions}</TableCell>
                <TableCell align="right">{point.impressionsSent}</TableCell>
                <TableCell align="right">{point.clicksSent}</TableCell>
                <TableCell align="right">{point.clicksReceived}</TableCell>
                <TableCell align="right" data-testid="ledger-conversions">
                  {point.conversions}
                </TableCell>
                <TableCell align="right">{point.balance}</TableCell>
                <TableCell align="right">{point.runningBalance}</TableCell>
              </TableRow>
            ))
          )}
        </TableBody>
      </Table>
    </>
  );
};

/** The traffic ledger over time: clicks sent and received per bucket, and the running balance. */
const Ledger = () => (
  <RecordCharts series="exchangeCampaignSeries" charts={CHARTS}>
    {(series, granularity, range) => <LedgerTable series={series} granularity={granularity} range={range} />}
  </RecordCharts>
);

const Entry = () => {
  const record = useRecordContext();
  if (!record) return null;
  return (
    <Box sx={{ display: 'flex', gap: 2, alignItems: 'flex-start', flexWrap: 'wrap' }}>
      <Box component="img" src={record.icon} alt="Icon" sx={{ width: 64, height: 64, borderRadius: 1 }} />
      {record.image ? <Box component="img" src={record.image} alt="Image" sx={{ maxWidth: 320, maxHeight: 200, borderRadius: 1 }} /> : null}
      <Box>
        <Typography>{record.text}</Typography>
        <Typography variant="body2">
          {record.destination.actionType} → <a href={record.destination.url}>{record.destination.url}</a>
        </Typography>
        <Typography variant="body2" color="text.secondary">
          Regions: {record.targeting.includedRegions.join(', ') || 'any'}
          {record.targeting.excludedRegions.length ? ` (not ${record.targeting.excludedRegions.join(', ')})` : ''} · Languages:{' '}
          {record.targeting.includedLanguages.join(', ') || 'any'}
          {record.targeting.excludedLanguages.length ? ` (not ${record.targeting.excludedLanguages.join(', ')})` : ''}
        </Typography>
      </Box>
    </Box>
  );
};

export const ExchangeCampaignShow = () => (
  <RecordShow actions={<StatusActions kind="exchange" />}>
    <TabbedShowLayout>
      <TabbedShowLayout.Tab label="Summary">
        <FigureGrid
          figures={[
            ['Name', <TextField source="name" />],
            ['Exchange campaign id', <TextField source="exchangeCampaignId" />],
            ['Status', <StatusChip source="campaignStatus" />],
            ['Shown elsewhere', <CountField source="impressions" />],
            ['Entries shown here', <CountField source="impressionsSent" />],
            ['Clicks sent', <CountField source="clicksSent" />],
            ['Clicks received', <CountField source="clicksReceived" />],
            ['Balance', <BalanceField source="balance" explain />],
            ['CTR', <RateField source="ctr" />],
            ['Conversions', <CountField source="conversions" />],
            ['CR', <RateField source="cr" />],
            ['Owner', <OwnerField />],
            ['Created', <DateTimeField source="createdAt" />],
          ]}
        />
        <Entry />
      </TabbedShowLayout.Tab>
      <TabbedShowLayout.Tab label="Ledger" path="ledger">
        <Ledger />
      </TabbedShowLayout.Tab>
    </TabbedShowLayout>
  </RecordShow>
);
