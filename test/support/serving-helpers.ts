import { ADMIN_KEY, TestApp } from './test-app';
import { StatsWriterService } from '../../src/stats/stats-writer.service';
import { BlockOptimizationService } from '../../src/serving/block-optimization.service';
import { CampaignIndexService } from '../../src/serving/campaign-index.service';

export const FETCH = '/api/v2/openapi/matching/ad';
export const CLICK = '/api/v2/openapi/ad/event/report';
/** Endpoint 7: a conversion (advertiser key). */
export const CONVERSION = '/api/v2/openapi/ad/event/report/conversion';

/**
 * Public addresses of residential networks (Comcast, Andrews & Arnold, Deutsche Telekom) whose country the embedded
 * geo database knows; a data centre's address (8.8.8.8) would be invalid traffic, never billed.
 */
export const IP = { US: '73.162.10.20', GB: '81.2.69.142', DE: '84.150.20.30' };
export const UA = {
  iOS: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
  Android: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36',
  Desktop: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
};

/** Writes buffered impression counters now instead of within STATS_FLUSH_MS. */
export async function flushStats(t: TestApp): Promise<void> {
  await t.app.get(StatsWriterService).flush();
}

/** Reloads the serving index of this process from the database, change notices still gathering included. */
export async function refreshIndex(t: TestApp): Promise<void> {
  const index = t.app.get(CampaignIndexService);
  await index.applyPendingChanges();
  await index.refresh();
  // the per-block estimates are read for the campaigns the index holds
  await t.app.get(BlockOptimizationService).refresh();
}

export async function campaignDetail(t: TestApp, campaignId: string, apiKey = ADMIN_KEY) {
  const response = await t.http().get('/api/v2/openapi/ad/campaign/detail').query({ campaignId }).set('x-api-key', apiKey).expect(200);
  return response.body.data;
}
