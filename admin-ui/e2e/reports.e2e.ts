import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { apiData, baseUrl, campaignBody, createAccount, login, screenshot, traffic, untilServed } from './support/harness';

test.describe('reports', () => {
  test('should show a report of real traffic by campaign and country, and download the same report as CSV', async ({ page }) => {
    const advertiser = await createAccount(['advertiser']);
    const publisher = await createAccount(['publisher']);
    const { adBlockId } = await apiData('/api/v2/openapi/ad/block/create', publisher.apiKey, { name: 'Report block' });
    const { campaignId } = await apiData(
      '/api/v2/openapi/ad/campaign/create',
      advertiser.apiKey,
      campaignBody('Report campaign', { bidding: { billingType: 'CPM', costPer: 40 } }),
    );
    await untilServed(publisher.apiKey, adBlockId, campaignId);
    await traffic(publisher.apiKey, adBlockId, 3, 1, campaignId);
    // what the API answers for the same window (today's UTC day and the 6 before), once the impressions are written
    const from = Date.parse(`${new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10)}T00:00:00Z`);
    const to = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`) + 86_400_000;
    const query = `from=${from}&to=${to}&groupBy=campaign,country&timeZone=UTC`;
    let expected = await apiData(`/api/v2/openapi/report?${query}`, advertiser.apiKey);
    for (let i = 0; i < 50 && expected.totals.impressions < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      expected = await apiData(`/api/v2/openapi/report?${query}`, advertiser.apiKey);
    }
    // untilServed's fetch and the 3 of traffic: 4 impressions from the US; the click was sent from this test's own
    // address (no X-Forwarded-For), so its country is unknown: a click counts in its own request's country
    expect(expected.rows).toEqual([
      expect.objectContaining({ campaignId, country: 'unknown', impressions: 0, clicks: 1 }),
      expect.objectContaining({ campaignId, country: 'US', impressions: 4, clicks: 0 }),
    ]);

    await login(page, advertiser.apiKey);
    await page.getByRole('menuitem', { name: 'Reports' }).click();
    await page.getByRole('checkbox', { name: 'Day' }).uncheck();
    await page.getByRole('checkbox', { name: 'Country' }).check();
    // three dimensions at most: the others are disabled
    await page.getByRole('checkbox', { name: 'Platform' }).check();
    await expect(page.getByRole('checkbox', { name: 'Hour' })).toBeDisabled();
    await page.getByRole('checkbox', { name: 'Platform' }).uncheck();
    await page.getByRole('button', { name: 'Run report' }).click();
    const table = page.getByTestId('report-table');
    await expect(table.locator('tbody tr')).toHaveCount(3);
    const row = table.locator('tbody tr').nth(1);
    await expect(row).toContainText(campaignId);
    await expect(row).toContainText('US');
    await expect(page.getByTestId('report-totals')).toContainText(String(expected.totals.cost));
    // the chart: one group per value of the first dimension (one campaign here), a bar each for impressions and clicks
    await expect(page.getByTestId('report-chart').locator('.recharts-bar-rectangle')).toHaveCount(2);
    await screenshot(page, '50-reports');

    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download CSV' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/^report-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = await readFile((await download.path())!, 'utf8');
    const response = await fetch(`${baseUrl()}/api/v2/openapi/report?${query}&format=csv`, { headers: { 'x-api-key': advertiser.apiKey } });
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv).toBe(await response.text());
    expect(csv.split('\r\n')[0]).toBe(
      'campaignId,country,impressions,clicks,ctr,conversions,completions,onboard,register,play,payment,withdraw,cost,unbilledClicks,invalidClicks,invalidImpressions,views',
    );
    expect(csv.split('\r\n').slice(1, 3)).toEqual([
      expect.stringMatching(new RegExp(`^${campaignId},unknown,0,1,0,`)),
      expect.stringMatching(new RegExp(`^${campaignId},US,4,0,0,`)),
    ]);
  });

  test("should show an advertiser's postback token on the account page and rotate it", async ({ page }) => {
    const advertiser = await createAccount(['advertiser']);
    const before = await apiData('/api/v2/openapi/account/me', advertiser.apiKey);
    await login(page, advertiser.apiKey);
    await page.getByRole('menuitem', { name: 'My account' }).click();
    await expect(page.getByTestId('postback-token')).toHaveText(before.postbackToken);
    await page.getByRole('button', { name: 'Replace token' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect(page.getByTestId('postback-token')).not.toHaveText(before.postbackToken);
    const after = await apiData('/api/v2/openapi/account/me', advertiser.apiKey);
    expect(after.postbackToken).not.toBe(before.postbackToken);
    await expect(page.getByTestId('postback-token')).toHaveText(after.postbackToken);
  });
});
