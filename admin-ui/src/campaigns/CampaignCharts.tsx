import { type ChartSpec, RecordCharts } from '../common/RecordCharts';

const CHARTS: ChartSpec[] = [
  {
    title: 'Impressions',
    testId: 'chart-impressions',
    kind: 'area',
    metrics: [
      { key: 'impressions', label: 'Impressions', color: '#1976d2' },
      { key: 'views', label: 'Views (SDK)', color: '#00838f' },
    ],
  },
  {
    title: 'Clicks and conversions',
    testId: 'chart-clicks',
    metrics: [
      { key: 'clicks', label: 'Clicks', color: '#2e7d32' },
      { key: 'verifiedClicks', label: 'Verified clicks', color: '#9c27b0' },
      { key: 'conversions', label: 'Conversions', color: '#ed6c02' },
    ],
  },
  { title: 'Cost (USDT)', testId: 'chart-cost', kind: 'bar', decimals: true, metrics: [{ key: 'cost', label: 'Cost', color: '#d32f2f' }] },
];

/** Impressions (and the ton-ai-sdk's views), clicks, conversions and cost of one campaign over time (GET ad/campaign/stats). */
export const CampaignCharts = () => <RecordCharts series="campaignSeries" charts={CHARTS} notBilled />;
