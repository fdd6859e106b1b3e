import { Alert, Box, Card, CardContent, Typography } from '@mui/material';
import { Title, useDataProvider, usePermissions } from 'react-admin';
import { hasRole, isAdmin } from '../authProvider';
import { formatCount, formatRate, formatUsdt } from '../common/format';
import { rangeBounds, SeriesChart, sumSeries } from '../common/SeriesChart';
import { NOT_BILLED_KEYS } from '../common/traffic';
import { useLoaded } from '../common/useLoaded';
import type { AdnetDataProvider } from '../dataProvider';

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

/** Sums the last 7 days of several series (one request per item, a few at a time). */
async function lastWeek(ids: string[], read: (id: string, range: ReturnType<typeof rangeBounds>) => Promise<any[]>, keys: string[]) {
  const range = rangeBounds('7d');
  const all: any[][] = [];
  for (let index = 0; index < ids.length; index += 6) {
    all.push(...(await Promise.all(ids.slice(index, index + 6).map((id) => read(id, range)))));
  }
  // Zero buckets for the whole week, so the charts keep their days even without campaigns or traffic.
  const zero = Array.from({ length: 7 }, (_, day) => ({ time: range.from + day * 86_400_000 }));
  return sumSeries([zero, ...all], keys);
}

const total = (series: any[], key: string) => Math.round(series.reduce((sum, point) => sum + point[key], 0) * 1e6) / 1e6;

const AdvertiserSection = ({ admin }: { admin: boolean }) => {
  const dataProvider = useDataProvider<AdnetDataProvider>();
  const { data: state, error } = useLoaded(async () => {
    const { data, total: totalCampaigns } = await dataProvider.getList('campaigns', page);
    const keys = ['impressions', 'views', 'clicks', 'conversions', 'cost', ...NOT_BILLED_KEYS];
    const series = await lastWeek(
      data.map((row) => String(row.id)),
      (id, range) => dataProvider.campaignSeries(id, range),
      keys,
    );
    return {
      series,
      count: data.length,
      delivering: data.filter((row) => row.deliveryStatus === 'delivering').length,
      totalCampaigns: totalCampaigns ?? data.length,
    };
  }, [dataProvider]);
  if (error) return <Alert severity="error">{error}</Alert>;
  if (!state) return null;
  const { series } = state;
  const impressions = total(series, 'impressions');
  const clicks = total(series, 'clicks');
  return (
    <Box data-testid="dashboard-advertiser">
      <Typography variant="h6" sx={{ mt: 2 }}>
        {admin ? 'All campaigns' : 'Your campaigns'}, last 7 days
      </Typography>
      <Typography variant="body2" color="text.secondary" gutterBottom>
        {state.totalCampaigns > SUMMED ? `Summed over the ${SUMMED} newest of ${state.totalCampaigns} campaigns.` : `${state.totalCampaigns} campaigns.`}
      </Typography>
      <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2, mb: 2 }}>
        <Figure label="Delivering now" value={formatCount(state.delivering)} testId="figure-delivering" />
        <Figure label="Impressions" value={formatCount(impressions)} testId="figure-impressions" />
        <Figure label="Views (SDK)" value={formatCount(total(series, 'views'))} testId="figure-views" />
        <Figure label="Clicks" value={formatCount(clicks)} testId="figure-clicks" />
        <Figure label="CTR" value={formatRate(impressions ? clicks / impressions : 0)} testId="figure-ctr" />
        <Figure label="Conversions" value={formatCount(total(series, 'conversions'))} testId="figure-conversions" />
        <Figure label="Spend" value={formatUsdt(total(series, 'cost'))} testId="figure-spend" />
        <Figure label="Invalid impressions" value={formatCount(total(series, 'invalidImpressions'))} testId="figure-invalid-impressions" />
        <Figure label="Invalid clicks" value={formatCount(total(series, 'invalidClicks'))} testId="figure-invalid-clicks" />
        <Figure label="Unbilled clicks" value={formatCount(total(series, 'unbilledClicks'))} testId="figure-unbilled-clicks" />
      </Box>
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
        <SeriesChart title="Spend (USDT)" decimals kind="bar" series={series} granularity="day" metrics={[{ key: 'cost', label: 'Spend', color: '#d32f2f' }]} />
      </Box>
    </Box>
  );
};

const PublisherSection = ({ admin }: { admin: boolean }) => {
  const dataProvider = useDataProvider<AdnetDataProvider>();
  const { data: state, error } = useLoaded(async () => {
    const { data, total: blocks } = await dataProvider.getList('adBlocks', page);
    const series = await lastWeek(
      data.map((row) => String(row.id)),
      (id, range) => dataProvider.adBlockSeries(id, range),
      ['impressions', 'views', 'clicks', 'earnings', ...NOT_BILLED_KEYS],
    );
    return { series, blocks: blocks ?? data.length };
  }, [dataProvider]);
  if (error) return <Alert severity="error">{error}</Alert>;
  if (!state) return null;
  const { series } = state;
  return (
    <Box data-testid="dashboard-publisher">
      <Typography variant="h6" sx={{ mt: 2 }} gutterBottom>
        {admin ? 'All ad blocks' : 'Your ad blocks'}, last 7 days
      </Typography>
      <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2, mb: 2 }}>
        <Figure label="Ad blocks" value={formatCount(state.blocks)} testId="figure-blocks" />
        <Figure label="Impressions" value={formatCount(total(series, 'impressions'))} testId="figure-block-impressions" />
        <Figure label="Views (SDK)" value={formatCount(total(series, 'views'))} testId="figure-block-views" />
        <Figure label="Clicks" value={formatCount(total(series, 'clicks'))} testId="figure-block-clicks" />
        <Figure label="Earnings" value={formatUsdt(total(series, 'earnings'))} testId="figure-earnings" />
        <Figure label="Invalid impressions" value={formatCount(total(series, 'invalidImpressions'))} testId="figure-block-invalid-impressions" />
        <Figure label="Invalid clicks" value={formatCount(total(series, 'invalidClicks'))} testId="figure-block-invalid-clicks" />
        <Figure label="Unbilled clicks" value={formatCount(total(series, 'unbilledClicks'))} testId="figure-block-unbilled-clicks" />
      </Box>
      <SeriesChart
        title="Earnings (USDT)"
        decimals
        kind="bar"
        series={series}
        granularity="day"
        metrics={[{ key: 'earnings', label: 'Earnings', color: '#2e7d32' }]}
      />
    </Box>
  );
};

const PartnerSection = ({ admin }: { admin: boolean }) => {
  const dataProvider = useDataProvider<AdnetDataProvider>();
  const { data: state, error } = useLoaded(async () => {
    const { data, total: campaigns } = await dataProvider.getList('exchangeCampaigns', page);
    const series = await lastWeek(
      data.map((row) => String(row.id)),
      (id, range) => dataProvider.exchangeCampaignSeries(id, range),
      ['impressions', 'impressionsSent', 'clicksSent', 'clicksReceived', 'balance'],
    );
    return { series, campaigns: campaigns ?? data.length, balance: data.reduce((sum, row) => sum + row.balance, 0) };
  }, [dataProvider]);
  if (error) return <Alert severity="error">{error}</Alert>;
  if (!state) return null;
  const { series } = state;
  return (
    <Box data-testid="dashboard-partner">
      <Typography variant="h6" sx={{ mt: 2 }} gutterBottom>
        {admin ? 'All exchange campaigns' : 'Your exchange campaigns'}, last 7 days
      </Typography>
      <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2, mb: 2 }}>
        <Figure label="Exchange campaigns" value={formatCount(state.campaigns)} testId="figure-exchange-campaigns" />
        <Figure label="Clicks sent" value={formatCount(total(series, 'clicksSent'))} testId="figure-clicks-sent" />
        <Figure label="Clicks received" value={formatCount(total(series, 'clicksReceived'))} testId="figure-clicks-received" />
        <Figure label="Balance, all time" value={formatCount(state.balance)} testId="figure-balance" />
      </Box>
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
    </Box>
  );
};

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
      <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2 }}>
        <Figure label="Accounts" value={formatCount(accounts.total)} testId="figure-accounts" />
        {['advertiser', 'publisher', 'partner', 'admin'].map((role) => (
          <Figure key={role} label={`${role}s`} value={formatCount(accounts.byRole[role] ?? 0)} testId={`figure-${role}s`} />
        ))}
      </Box>
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
