import { Box, Stack, Typography } from '@mui/material';
import { useState } from 'react';
import { DateField, Labeled, ListButton, Show, SimpleShowLayout, TextField, TopToolbar, useDataProvider, useRecordContext } from 'react-admin';
import { CopyButton } from '../common/CopyButton';
import { CountField, MoneyField, RateField } from '../common/fields';
import { NotBilledChart, NotBilledFigures } from '../common/NotBilledFigures';
import { RangePicker } from '../common/RangePicker';
import { RANGES, rangeBounds, SeriesChart, type RangeName } from '../common/SeriesChart';
import { useLoaded } from '../common/useLoaded';
import type { AdnetDataProvider } from '../dataProvider';
import { SIGNED_VIEWER_HELP, SignedViewerSwitch } from './SignedViewerSwitch';
import { FRESH_RECORD } from '../common/freshRecord';

const BlockCharts = () => {
  const record = useRecordContext();
  const dataProvider = useDataProvider<AdnetDataProvider>();
  const [range, setRange] = useState<RangeName>('7d');
  const id = record?.id;
  const { data: series } = useLoaded<any[]>(() => (id ? dataProvider.adBlockSeries(String(id), rangeBounds(range)) : null), [dataProvider, id, range]);
  const granularity = RANGES[range].granularity;
  return (
    <Box sx={{ width: '100%' }}>
      <RangePicker value={range} onChange={setRange} />
      {series ? (
        <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2 }}>
          <SeriesChart
            title="Earnings (USDT)"
            decimals
            testId="chart-earnings"
            kind="bar"
            series={series}
            granularity={granularity}
            metrics={[{ key: 'earnings', label: 'Earnings', color: '#2e7d32' }]}
          />
          <SeriesChart
            title="Traffic"
            testId="chart-traffic"
            series={series}
            granularity={granularity}
            metrics={[
              { key: 'impressions', label: 'Impressions', color: '#1976d2' },
              { key: 'views', label: 'Views (SDK)', color: '#00838f' },
              { key: 'clicks', label: 'Clicks', color: '#ed6c02' },
            ]}
          />
          <NotBilledChart series={series} granularity={granularity} />
        </Box>
      ) : null}
    </Box>
  );
};

const Integration = () => {
  const record = useRecordContext();
  if (!record) return null;
  const call = `GET /api/v2/openapi/matching/ad?adBlockId=${record.adBlockId}&openId=<messengerUserId>&type=messenger&limit=3`;
  return (
    <Box>
      <Typography variant="body2" color="text.secondary">
        Fetch ads for this block from the user's frontend:
      </Typography>
      <Stack direction="row" alignItems="center" spacing={1}>
        <code style={{ wordBreak: 'break-all' }}>{call}</code>
        <CopyButton value={call} label="Copy request" />
      </Stack>
      {record.requireSignedViewer ? (
        <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }} data-testid="signed-viewer-note">
          with the header{' '}
          <code>x-adnet-viewer: &lt;openId&gt;.&lt;expiresAtMs&gt;.&lt;hex HMAC-SHA256(webhookSecret, "&lt;openId&gt;.&lt;expiresAtMs&gt;")&gt;</code> made by
          your server.
        </Typography>
      ) : null}
    </Box>
  );
};

const BlockId = () => {
  const record = useRecordContext();
  if (!record) return null;
  return (
    <Stack direction="row" alignItems="center" spacing={0.5}>
      <code data-testid="ad-block-id">{record.adBlockId}</code>
      <CopyButton value={record.adBlockId} label="Copy ad block id" />
    </Stack>
  );
};

export const AdBlockShow = () => (
  <Show
    queryOptions={FRESH_RECORD}
    actions={
      <TopToolbar>
        <ListButton />
      </TopToolbar>
    }
  >
    <SimpleShowLayout>
      <Box sx={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(180px, 1fr))', gap: 2, width: '100%' }}>
        <Labeled label="Name">
          <TextField source="name" />
        </Labeled>
        <Labeled label="Ad block id">
          <BlockId />
        </Labeled>
        <Labeled label="Impressions">
          <CountField source="impressions" />
        </Labeled>
        <Labeled label="Views (SDK)">
          <CountField source="views" />
        </Labeled>
        <Labeled label="Clicks">
          <CountField source="clicks" />
        </Labeled>
        <Labeled label="CTR">
          <RateField source="ctr" />
        </Labeled>
        <Labeled label="Earnings">
          <MoneyField source="earnings" />
        </Labeled>
        <Labeled label="Created">
          <DateField source="createdAt" showTime />
        </Labeled>
        <NotBilledFigures />
      </Box>
      <Box>
        <SignedViewerSwitch />
        <Typography variant="body2" color="text.secondary" sx={{ maxWidth: 720 }}>
          {SIGNED_VIEWER_HELP}
        </Typography>
      </Box>
      <Integration />
      <BlockCharts />
    </SimpleShowLayout>
  </Show>
);
