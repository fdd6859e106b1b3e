import { Alert, Box, Card, CardContent, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import { CreateButton, type RaRecord, Title, useDataProvider, usePermissions } from 'react-admin';
import { hasRole, isAdmin } from '../authProvider';
import { formatCount, formatRate, formatUsdt } from '../common/format';
import { rangeBounds, SeriesChart, sumSeries } from '../common/SeriesChart';
import { NOT_BILLED_KEYS } from '../common/traffic';
import { useLoaded } from '../common/useLoaded';
import type { AdnetDataProvider, SeriesPoint } from '../dataProvider';
import { plural } from '../i18n';

/** At most this many campaigns / blocks are summed (the newest), one page of the API. */
const SUMMED = 100;
const page = { pagination: { page: 1, perPage: SUMMED }, sort: { field: 'createdAt', order: 'DESC' as const }, filter: {} };

const Figure = ({ label, value, testId }: { label: string; value: string; testId: string }) => (
  <Card variant="outlined" sx={{ flex: '1 1 160px' }}>
    <CardContent>
      <Typography variant="overline" color="text.secondary">
        {label}
      </Typography>
      <Typography variant="h5" data-testid={testId}>
        {value}
      </Typography>
    </CardContent>
  </Card>
);

const Figures = ({ children }: { children: ReactNode }) => <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2, mb: 2 }}>{children}</Box>;

type SeriesMethod = 'campaignSeries' | 'adBlockSeries' | 'exchangeCampaignSeries';
interface LastWeek {
  /** The newest records (at most SUMMED). */
  rows: RaRecord[];
  /** How many records there are in all. */
  count: number;
  /** Their series over the last 7 days, summed day by day. */
  series: SeriesPoint[];
}

/** The newest records of a resource and their series summed over the last 7 days (one request per record, 6 at a time). */
function useLastWeek(resource: string, method: SeriesMethod, keys: string[]) {
  const dataProvider = useDataProvider<AdnetDataProvider>();
  return useLoaded<LastWeek>(async () => {
    const { data, total: count } = await dataProvider.getList(resource, page);
    const range = rangeBounds('7d');
    const all: SeriesPoint[][] = [];
    for (let index = 0; index < data.length; index += 6) {
      all.push(...(await Promise.all(data.slice(index, index + 6).map((row) => dataProvider[method](String(row.id), range)))));
    }
    // Zero buckets for the whole week, so the charts keep their days even without records or traffic.
    const zero = Array.from({ length: 7 }, (_, day) => ({ time: range.from + day * 86_400_000 }));
    return { rows: data, count: count ?? data.length, series: sumSeries([zero, ...all], keys) };
  }, [dataProvider, resource, method]);
}

const total = (series: SeriesPoint[], key: string) => Math.round(series.reduce((sum, point) => sum + point[key], 0) * 1e6) / 1e6;

/**
 * One role's part of the dashboard: its title, then its figures and charts, or, while the account has no record
 * yet, what to do first.
 */
const Section = ({
  testId,
  title,
  resource,
  method,
  keys,
  firstStep,
  children,
}: {
  testId: string;
  title: string;
  resource: string;
  method: SeriesMethod;
  keys: string[];
  firstStep: { text: string; create: string };
  children: (week: LastWeek) => ReactNode;
}) => {
  const { data: week, error } = useLastWeek(resource, method, keys);
  if (error) return <Alert severity="error">{error}</Alert>;
  if (!week) return null;
  return (
    <Box data-testid={testId} sx={{ mb: 3 }}>
      <Typography variant="h6" sx={{ mt: 2 }}>
        {title}
      </Typography>
      {week.count === 0 ? (
        <Card variant="outlined" sx={{ mt: 1 }} data-testid={`${testId}-first-step`}>
          <CardContent>
            <Typography sx={{ mb: 2 }}>{firstStep.text}</Typography>
            <CreateButton resource={resource} label={firstStep.create} variant="contained" />
          </CardContent>
        </Card>
      ) : (
        children(week)
      )}
    </Box>
  );
};

const AdvertiserSection = ({ admin }: { admin: boolean }) => (
  <Section
    testId="dashboard-advertiser"
    title={`${admin ? 'All campaigns' : 'Your campaigns'}, last 7 days`}
    resource="campaigns"
    method="campaignSeries"
    keys={['impressions', 'views', 'clicks', 'conversions', 'cost', ...NOT_BILLED_KEYS]}
    firstStep={{
      text: 'No campaigns yet. A campaign is your ad with its budget, bid and targeting: it starts serving on publishers’ ad blocks once created.',
      create: 'Create your first campaign',
    }}
  >
    {({ rows, count, series }) => {
      const impressions = total(series, 'impressions');
      const clicks = total(series, 'clicks');
      return (
        <>
          <Typography variant="body2" color="text.secondary" gutterBottom>
            {count > SUMMED ? `Summed over the ${SUMMED} newest of ${plural(count, 'campaign')}.` : `${plural(count, 'campaign')}.`}
          </Typography>
          <Figures>
            <Figure label="Delivering now" value={formatCount(rows.filter((row) => row.deliveryStatus === 'delivering').length)} testId="figure-delivering" />
            <Figure label="Impressions" value={formatCount(impressions)} testId="figure-impressions" />
            <Figure label="Views (SDK)" value={formatCount(total(series, 'views'))} testId="figure-views" />
            <Figure label="Clicks" value={formatCount(clicks)} testId="figure-clicks" />
            <Figure label="CTR" value={formatRate(impressions ? clicks / impressions : 0)} testId="figure-ctr" />
            <Figure label="Conversions" value={formatCount(total(series, 'conversions'))} testId="figure-conversions" />
            <Figure label="Spend" value={formatUsdt(total(series, 'cost'))} testId="figure-spend" />
            <Figure label="Invalid impressions" value={formatCount(total(series, 'invalidImpressions'))} testId="figure-invalid-impressions" />
            <Figure label="Invalid clicks" value={formatCount(total(series, 'invalidClicks'))} testId="figure-invalid-clicks" />
            <Figure label="Unbilled clicks" value={formatCount(total(series, 'unbilledClicks'))} testId="figure-unbilled-clicks" />
          </Figures>
          <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2 }}>
            <SeriesChart
              title="Impressions and clicks"
              series={series}
              granularity="day"
              metrics={[
                { key: 'impressions', label: 'Impressions', color: '#1976d2' },
                { key: 'clicks', label: 'Clicks', color: '#2e7d32' },
              ]}
            />
            <SeriesChart
              title="Spend (USDT)"
              decimals
              kind="bar"
              series={series}
              granularity="day"
              metrics={[{ key: 'cost', label: 'Spend', color: '#d32f2f' }]}
            />
          </Box>
        </>
      );
    }}
  </Section>
);

const PublisherSection = ({ admin }: { admin: boolean }) => (
  <Section
    testId="dashboard-publisher"
    title={`${admin ? 'All ad blocks' : 'Your ad blocks'}, last 7 days`}
    resource="adBlocks"
    method="adBlockSeries"
    keys={['impressions', 'views', 'clicks', 'earnings', ...NOT_BILLED_KEYS]}
    firstStep={{
      text: 'No ad blocks yet. An ad block is a place in your app where ads appear: create one, then fetch ads for its id from your app.',
      create: 'Create your first ad block',
    }}
  >
    {({ count, series }) => (
      <>
        <Figures>
          <Figure label="Ad blocks" value={formatCount(count)} testId="figure-blocks" />
          <Figure label="Impressions" value={formatCount(total(series, 'impressions'))} testId="figure-block-impressions" />
          <Figure label="Views (SDK)" value={formatCount(total(series, 'views'))} testId="figure-block-views" />
          <Figure label="Clicks" value={formatCount(total(series, 'clicks'))} testId="figure-block-clicks" />
          <Figure label="Earnings" value={formatUsdt(total(series, 'earnings'))} testId="figure-earnings" />
          <Figure label="Invalid impressions" value={formatCount(total(series, 'invalidImpressions'))} testId="figure-block-invalid-impressions" />
          <Figure label="Invalid clicks" value={formatCount(total(series, 'invalidClicks'))} testId="figure-block-invalid-clicks" />
          <Figure label="Unbilled clicks" value={formatCount(total(series, 'unbilledClicks'))} testId="figure-block-unbilled-clicks" />
        </Figures>
        <SeriesChart
          title="Earnings (USDT)"
          decimals
          kind="bar"
          series={series}
          granularity="day"
          metrics={[{ key: 'earnings', label: 'Earnings', color: '#2e7d32' }]}
        />
      </>
    )}
  </Section>
);

const PartnerSection = ({ admin }: { admin: boolean }) => (
  <Section
    testId="dashboard-partner"
    title={`${admin ? 'All exchange campaigns' : 'Your exchange campaigns'}, last 7 days`}
    resource="exchangeCampaigns"
    method="exchangeCampaignSeries"
    keys={['impressions', 'impressionsSent', 'clicksSent', 'clicksReceived', 'balance']}
    firstStep={{
      text: 'No exchange campaigns yet. An exchange campaign promotes your mini app in other partners’ apps: every click you send earns one back.',
      create: 'Create your first exchange campaign',
    }}
  >
    {({ rows, count, series }) => (
      <>
        <Figures>
          <Figure label="Exchange campaigns" value={formatCount(count)} testId="figure-exchange-campaigns" />
          <Figure label="Clicks sent" value={formatCount(total(series, 'clicksSent'))} testId="figure-clicks-sent" />
          <Figure label="Clicks received" value={formatCount(total(series, 'clicksReceived'))} testId="figure-clicks-received" />
          <Figure label="Balance, all time" value={formatCount(rows.reduce((sum, row) => sum + row.balance, 0))} testId="figure-balance" />
        </Figures>
        <SeriesChart
          title="Exchange clicks"
          kind="bar"
          series={series}
          granularity="day"
          metrics={[
            { key: 'clicksSent', label: 'Sent', color: '#2e7d32' },
            { key: 'clicksReceived', label: 'Received', color: '#1976d2' },
          ]}
        />
      </>
    )}
  </Section>
);

const AdminSection = () => {
  const dataProvider = useDataProvider<AdnetDataProvider>();
  const { data: accounts } = useLoaded(async () => {
    const { data, total: count } = await dataProvider.getList('accounts', { ...page, pagination: { page: 1, perPage: 100 } });
    const byRole: Record<string, number> = {};
    for (const account of data) for (const role of account.roles) byRole[role] = (byRole[role] ?? 0) + 1;
    return { total: count ?? data.length, byRole };
  }, [dataProvider]);
  if (!accounts) return null;
  return (
    <Box data-testid="dashboard-admin">
      <Typography variant="h6" gutterBottom>
        Accounts
      </Typography>
      <Figures>
        <Figure label="Accounts" value={formatCount(accounts.total)} testId="figure-accounts" />
        {['advertiser', 'publisher', 'partner', 'admin'].map((role) => (
          <Figure key={role} label={`${role}s`} value={formatCount(accounts.byRole[role] ?? 0)} testId={`figure-${role}s`} />
        ))}
      </Figures>
    </Box>
  );
};

export const Dashboard = () => {
  const { permissions, isPending } = usePermissions();
  if (isPending) return null;
  const admin = isAdmin(permissions);
  return (
    <Box sx={{ mt: 2 }}>
      <Title title="Dashboard" />
      {admin ? <AdminSection /> : null}
      {hasRole(permissions, 'advertiser') ? <AdvertiserSection admin={admin} /> : null}
      {hasRole(permissions, 'publisher') ? <PublisherSection admin={admin} /> : null}
      {hasRole(permissions, 'partner') ? <PartnerSection admin={admin} /> : null}
    </Box>
  );
};
