import { Alert, Box, Chip, Stack, Typography } from '@mui/material';
import { BooleanField, FunctionField, type RaRecord, TabbedShowLayout, TextField, useRecordContext } from 'react-admin';
import { type Figure, FigureGrid } from '../common/FigureGrid';
import { CountField, DateTimeField, MoneyField, OwnerField, RateField, StatusChip } from '../common/fields';
import { formatDateTime, formatUsdt } from '../common/format';
import { NotBilledFigures } from '../common/NotBilledFigures';
import { CampaignCharts } from './CampaignCharts';
import { DaySpendChart } from './DaySpendChart';
import { CampaignFunnel } from './CampaignFunnel';
import { CampaignByBlock } from './CampaignByBlock';
import { TARGETING_FLAGS } from './choices';
import { StatusActions } from './StatusButtons';
import { VerificationPanel } from './VerificationPanel';
import { CampaignDeliveryTest } from '../diagnosis';
import { RecordShow } from '../common/RecordPages';
import { BudgetSpent } from './BudgetSpent';
import { CampaignForecastCard } from './ForecastPanel';

/** The campaign fields the summary reads itself (the rest through sources). */
interface CampaignRecord extends RaRecord {
  budget: { amount: number; total: number; startTime: number; endTime: number; pacing?: string };
  bidding: { costPer: number };
  frequencyCap?: { impressions: number; hours: number } | null;
}

/** ISO codes as chips; an empty list says what it means: any region for an inclusion, none for an exclusion. */
const Codes = ({ source, empty }: { source: string; empty: string }) => (
  <FunctionField
    source={source}
    render={(record: RaRecord) => {
      const list =
        (source.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], record) as string[] | undefined) ?? [];
      return list.length ? (
        <Stack direction="row" spacing={0.5}>
          {list.map((code) => (
            <Chip key={code} size="small" label={code} />
          ))}
        </Stack>
      ) : (
        empty
      );
    }}
  />
);

export const formatFrequencyCap = (cap: { impressions: number; hours: number } | null | undefined) =>
  cap ? `${cap.impressions} per user per ${cap.hours} h` : 'none';

/** The review state (CAMPAIGN_REVIEW=true): a pending edited creative, or the note of a rejection. */
const ReviewState = () => {
  const record = useRecordContext();
  if (!record || (record.reviewStatus === 'approved' && !record.pendingAd)) return null;
  return (
    <Alert severity={record.reviewStatus === 'rejected' ? 'warning' : 'info'} sx={{ mb: 2 }} data-testid="review-state">
      {record.reviewStatus === 'rejected'
        ? `Review rejected: ${record.reviewNote ?? ''}`
        : record.pendingAd
          ? 'An edited creative waits for review: the approved one below keeps serving until an admin approves it.'
          : 'Waiting for review: an admin must approve the campaign before it serves.'}
    </Alert>
  );
};

const Creative = () => {
  const record = useRecordContext();
  if (!record) return null;
  return (
    <Box>
      <ReviewState />
      <CreativeView ad={record.ad} />
      {record.pendingAd ? (
        <Box sx={{ mt: 3 }} data-testid="pending-ad">
          <Typography variant="h6" gutterBottom>
            Waiting for review
          </Typography>
          <CreativeView ad={record.pendingAd} />
        </Box>
      ) : null}
    </Box>
  );
};

/** A creative as the API answers it (`ad`, `pendingAd`). */
export interface CreativeShape {
  popupImage: string;
  icon: string;
  brandName: string;
  text: string;
  buttonText: string;
  destination: { actionType: string; url: string };
}

/** One creative: image, icon, brand, text and where it leads. */
export const CreativeView = ({ ad }: { ad: CreativeShape }) => {
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
  <RecordShow actions={<StatusActions />}>
    <TabbedShowLayout>
      <TabbedShowLayout.Tab label="Summary">
        <FigureGrid
          figures={[
            ['Name', <TextField source="name" />],
            ['Campaign id', <TextField source="campaignId" />],
            ['Status', <StatusChip source="campaignStatus" />],
            ['Delivery', <StatusChip source="deliveryStatus" />],
            ['Review', <StatusChip source="reviewStatus" />],
            [
              'Category',
              <FunctionField
                source="category"
                render={(record: RaRecord) => (record.pendingCategory ? `${record.category} (${record.pendingCategory} waits for review)` : record.category)}
              />,
            ],
            ['Impressions', <CountField source="impressions" />],
            ['Views (SDK)', <CountField source="views" />],
            ['Clicks', <CountField source="clicks" />],
            ['Verified clicks', <CountField source="verifiedClicks" />],
            ['CTR', <RateField source="ctr" />],
            ['Conversions', <CountField source="conversions" />],
            ['CR', <RateField source="cr" />],
            ['Cost', <MoneyField source="cost" />],
            ['Owner', <OwnerField />],
            ['Created', <DateTimeField source="createdAt" />],
            ['Updated', <DateTimeField source="updatedAt" />],
          ]}
        />
        <Typography variant="h6" sx={{ mt: 2 }}>
          Not billed traffic
        </Typography>
        <FigureGrid figures={[]}>
          <NotBilledFigures />
        </FigureGrid>
        <Typography variant="h6" sx={{ mt: 2 }}>
          Budget and bidding
        </Typography>
        <BudgetSpent />
        <FigureGrid
          figures={[
            ["Daily budget (your account's day)", <FunctionField render={(record: CampaignRecord) => formatUsdt(record.budget.amount)} />],
            ['Pacing', <FunctionField render={(record: CampaignRecord) => record.budget.pacing ?? 'even'} />],
            ['Total budget', <FunctionField render={(record: CampaignRecord) => formatUsdt(record.budget.total)} />],
            ['Start', <FunctionField render={(record: CampaignRecord) => formatDateTime(record.budget.startTime)} />],
            ['End', <FunctionField render={(record: CampaignRecord) => formatDateTime(record.budget.endTime)} />],
            ['Billing', <TextField source="bidding.billingType" />],
            ['Bid', <FunctionField render={(record: CampaignRecord) => formatUsdt(record.bidding.costPer)} />],
            ['Frequency cap', <FunctionField render={(record: CampaignRecord) => formatFrequencyCap(record.frequencyCap)} />],
          ]}
        />
        <DaySpendChart />
        <Typography variant="h6" sx={{ mt: 2 }}>
          Targeting
        </Typography>
        <FigureGrid
          figures={[
            ['Included regions', <Codes source="targeting.includedRegions" empty="any region" />],
            ['Excluded regions', <Codes source="targeting.excludedRegions" empty="none" />],
            ['Included languages', <Codes source="targeting.includedLanguages" empty="any language" />],
            ['Excluded languages', <Codes source="targeting.excludedLanguages" empty="none" />],
            ['Platform', <TextField source="targeting.platform" />],
            ...TARGETING_FLAGS.map((flag): Figure => [flag.label, <BooleanField source={`targeting.${flag.source}`} />]),
          ]}
        />
      </TabbedShowLayout.Tab>
      <TabbedShowLayout.Tab label="Charts" path="charts">
        <CampaignCharts />
      </TabbedShowLayout.Tab>
      <TabbedShowLayout.Tab label="Funnel" path="funnel">
        <CampaignFunnel />
      </TabbedShowLayout.Tab>
      <TabbedShowLayout.Tab label="By block" path="by-block">
        <CampaignByBlock />
      </TabbedShowLayout.Tab>
      <TabbedShowLayout.Tab label="Creative" path="creative">
        <Creative />
      </TabbedShowLayout.Tab>
      <TabbedShowLayout.Tab label="Verification" path="verification">
        <VerificationPanel />
      </TabbedShowLayout.Tab>
      <TabbedShowLayout.Tab label="Test delivery" path="test-delivery">
        <CampaignDeliveryTest />
      </TabbedShowLayout.Tab>
      <TabbedShowLayout.Tab label="Forecast" path="forecast">
        <CampaignForecastCard />
      </TabbedShowLayout.Tab>
    </TabbedShowLayout>
  </RecordShow>
);
