import { Box, Stack, Typography } from '@mui/material';
import { FunctionField, type RaRecord, TabbedShowLayout, TextField, useRecordContext } from 'react-admin';
import { CopyButton } from '../common/CopyButton';
import { FigureGrid } from '../common/FigureGrid';
import { CountField, DateTimeField, MoneyField, OwnerField, RateField } from '../common/fields';
import { formatUsdt } from '../common/format';
import { NotBilledFigures } from '../common/NotBilledFigures';
import { type ChartSpec, RecordCharts } from '../common/RecordCharts';
import { RecordShow } from '../common/RecordPages';
import { ShowActions } from '../common/ShowActions';
import { BlockId } from './BlockId';
import { signedViewerState, SignedViewerSwitch } from './SignedViewerSwitch';
import { TestDeliveryButton } from '../diagnosis';
import { RewardsPanel } from './RewardsPanel';

const CHARTS: ChartSpec[] = [
  { title: 'Earnings (USDT)', testId: 'chart-earnings', kind: 'bar', decimals: true, metrics: [{ key: 'earnings', label: 'Earnings', color: '#2e7d32' }] },
  {
    title: 'Traffic',
    testId: 'chart-traffic',
    metrics: [
      { key: 'impressions', label: 'Impressions', color: '#1976d2' },
      { key: 'views', label: 'Views (SDK)', color: '#00838f' },
      { key: 'clicks', label: 'Clicks', color: '#ed6c02' },
    ],
  },
];

const Integration = () => {
  const record = useRecordContext();
  if (!record) return null;
  // the service's own address: the panel is served by it
  const call = `GET ${window.location.origin}/api/v2/openapi/matching/ad?adBlockId=${record.adBlockId}&openId=<messengerUserId>&type=messenger&limit=3`;
  return (
    <Box>
      <Typography variant="body2" color="text.secondary">
        Fetch ads for this block from the user&apos;s frontend, with your serve key (My account, API keys) in the x-api-key header:
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

export const AdBlockShow = () => (
  <RecordShow
    actions={
      <ShowActions>
        <TestDeliveryButton />
      </ShowActions>
    }
  >
    <TabbedShowLayout>
      <TabbedShowLayout.Tab label="Summary">
        <FigureGrid
          figures={[
            ['Name', <TextField source="name" />],
            ['Ad block id', <BlockId />],
            ['Impressions', <CountField source="impressions" />],
            ['Views (SDK)', <CountField source="views" />],
            ['Completions', <CountField source="completions" />],
            ['Clicks', <CountField source="clicks" />],
            ['CTR', <RateField source="ctr" />],
            ['Earnings', <MoneyField source="earnings" />],
            ['Owner', <OwnerField />],
            ['Created', <DateTimeField source="createdAt" />],
            ['Floor CPM', <FunctionField render={(record: RaRecord) => (record.floorCpm === null ? 'none' : formatUsdt(record.floorCpm))} />],
            ['Floor CPC', <FunctionField render={(record: RaRecord) => (record.floorCpc === null ? 'none' : formatUsdt(record.floorCpc))} />],
            [
              'Blocked categories',
              <FunctionField render={(record: RaRecord) => (record.blockedCategories?.length ? record.blockedCategories.join(', ') : 'none')} />,
            ],
            ['Blocked domains', <FunctionField render={(record: RaRecord) => (record.blockedDomains?.length ? record.blockedDomains.join(', ') : 'none')} />],
          ]}
        >
          <NotBilledFigures />
        </FigureGrid>
        <Box>
          <SignedViewerSwitch />
          <FunctionField
            render={(record: RaRecord) => (
              <Typography variant="body2" color="text.secondary" sx={{ maxWidth: 720 }} data-testid="signed-viewer-state">
                {signedViewerState(Boolean(record.requireSignedViewer))}
              </Typography>
            )}
          />
        </Box>
        <Integration />
        <RecordCharts series="adBlockSeries" charts={CHARTS} notBilled />
      </TabbedShowLayout.Tab>
      <TabbedShowLayout.Tab label="Rewards" path="rewards">
        <RewardsPanel />
      </TabbedShowLayout.Tab>
    </TabbedShowLayout>
  </RecordShow>
);
