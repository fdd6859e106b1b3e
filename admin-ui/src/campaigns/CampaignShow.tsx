import { Box, Chip, Stack, Typography } from '@mui/material';
import { BooleanField, DateField, FunctionField, Labeled, Show, TabbedShowLayout, TextField, useRecordContext } from 'react-admin';
import { CountField, MoneyField, RateField, StatusChip } from '../common/fields';
import { formatDateTime, formatUsdt } from '../common/format';
import { NotBilledFigures } from '../common/NotBilledFigures';
import { CampaignCharts } from './CampaignCharts';
import { TARGETING_FLAGS } from './choices';
import { StatusActions } from './StatusButtons';
import { VerificationPanel } from './VerificationPanel';
import { FRESH_RECORD } from '../common/freshRecord';

const Codes = ({ source, label }: { source: string; label: string }) => (
  <Labeled label={label}>
    <FunctionField
      source={source}
      render={(record: any) => {
        const list: string[] = source.split('.').reduce((node, key) => node?.[key], record) ?? [];
        return list.length ? (
          <Stack direction="row" spacing={0.5}>
            {list.map((code) => (
              <Chip key={code} size="small" label={code} />
            ))}
          </Stack>
        ) : (
          'any'
        );
      }}
    />
  </Labeled>
);

export const formatFrequencyCap = (cap: { impressions: number; hours: number } | null | undefined) =>
  cap ? `${cap.impressions} per user per ${cap.hours} h` : 'none';

const Grid = ({ children }: { children: React.ReactNode }) => (
  <Box sx={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(200px, 1fr))', gap: 2, width: '100%' }}>{children}</Box>
);

const Creative = () => {
  const record = useRecordContext();
  if (!record) return null;
  const ad = record.ad;
  return (
    <Box sx={{ display: 'flex', gap: 3, flexWrap: 'wrap' }}>
      <Box component="img" src={ad.popupImage} alt="Ad image" sx={{ maxWidth: 360, maxHeight: 240, border: 1, borderColor: 'divider', borderRadius: 1 }} />
      <Box>
        <Stack direction="row" spacing={1} alignItems="center" sx={{ mb: 1 }}>
          <Box component="img" src={ad.icon} alt="Ad icon" sx={{ width: 48, height: 48, borderRadius: 1 }} />
          <Typography variant="h6">{ad.brandName}</Typography>
        </Stack>
        <Typography sx={{ mb: 1, maxWidth: 480 }}>{ad.text}</Typography>
        <Chip color="primary" label={ad.buttonText} />
        <Typography variant="body2" sx={{ mt: 1 }}>
          {ad.destination.actionType} → <a href={ad.destination.url}>{ad.destination.url}</a>
        </Typography>
      </Box>
    </Box>
  );
};

export const CampaignShow = () => (
  <Show queryOptions={FRESH_RECORD} actions={<StatusActions />}>
    <TabbedShowLayout>
      <TabbedShowLayout.Tab label="Summary">
        <Grid>
          <Labeled label="Name">
            <TextField source="name" />
          </Labeled>
          <Labeled label="Campaign id">
            <TextField source="campaignId" />
          </Labeled>
          <Labeled label="Status">
            <StatusChip source="campaignStatus" />
          </Labeled>
          <Labeled label="Delivery">
            <StatusChip source="deliveryStatus" />
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
          <Labeled label="Verified clicks">
            <CountField source="verifiedClicks" />
          </Labeled>
          <Labeled label="CTR">
            <RateField source="ctr" />
          </Labeled>
          <Labeled label="Conversions">
            <CountField source="conversions" />
          </Labeled>
          <Labeled label="CR">
            <RateField source="cr" />
          </Labeled>
          <Labeled label="Cost">
            <MoneyField source="cost" />
          </Labeled>
          <Labeled label="Owner">
            <TextField source="userId" />
          </Labeled>
          <Labeled label="Created">
            <DateField source="createdAt" showTime />
          </Labeled>
          <Labeled label="Updated">
            <DateField source="updatedAt" showTime />
          </Labeled>
        </Grid>
        <Typography variant="h6" sx={{ mt: 2 }}>
          Not billed traffic
        </Typography>
        <Grid>
          <NotBilledFigures />
        </Grid>
        <Typography variant="h6" sx={{ mt: 2 }}>
          Budget and bidding
        </Typography>
        <Grid>
          <Labeled label="Daily budget">
            <FunctionField render={(record: any) => formatUsdt(record.budget.amount)} />
          </Labeled>
          <Labeled label="Total budget">
            <FunctionField render={(record: any) => formatUsdt(record.budget.total)} />
          </Labeled>
          <Labeled label="Start">
            <FunctionField render={(record: any) => formatDateTime(record.budget.startTime)} />
          </Labeled>
          <Labeled label="End">
            <FunctionField render={(record: any) => formatDateTime(record.budget.endTime)} />
          </Labeled>
          <Labeled label="Billing">
            <TextField source="bidding.billingType" />
          </Labeled>
          <Labeled label="Bid">
            <FunctionField render={(record: any) => formatUsdt(record.bidding.costPer)} />
          </Labeled>
          <Labeled label="Frequency cap">
            <FunctionField render={(record: any) => formatFrequencyCap(record.frequencyCap)} />
          </Labeled>
        </Grid>
        <Typography variant="h6" sx={{ mt: 2 }}>
          Targeting
        </Typography>
        <Grid>
          <Codes source="targeting.includedRegions" label="Included regions" />
          <Codes source="targeting.excludedRegions" label="Excluded regions" />
          <Codes source="targeting.includedLanguages" label="Included languages" />
          <Codes source="targeting.excludedLanguages" label="Excluded languages" />
          <Labeled label="Platform">
            <TextField source="targeting.platform" />
          </Labeled>
          {TARGETING_FLAGS.map((flag) => (
            <Labeled key={flag.source} label={flag.label}>
              <BooleanField source={`targeting.${flag.source}`} />
            </Labeled>
          ))}
        </Grid>
      </TabbedShowLayout.Tab>
      <TabbedShowLayout.Tab label="Charts" path="charts">
        <CampaignCharts />
      </TabbedShowLayout.Tab>
      <TabbedShowLayout.Tab label="Creative" path="creative">
        <Creative />
      </TabbedShowLayout.Tab>
      <TabbedShowLayout.Tab label="Verification" path="verification">
        <VerificationPanel />
      </TabbedShowLayout.Tab>
    </TabbedShowLayout>
  </Show>
);
