import { expect, test, type Page } from '@playwright/test';
import {
  adminKey,
  apiData,
  baseUrl,
  campaignBody,
  createAccount,
  creatives,
  expectNoProblems,
  login,
  screenshot,
  traffic,
  untilServed,
  views,
  waitFor,
  watchProblems,
} from './support/harness';

const detail = (campaignId: string, apiKey: string) => apiData(`/api/v2/openapi/ad/campaign/detail?campaignId=${campaignId}`, apiKey);

/** The helper text under an input: where the API's message for that field appears. */
const fieldHelp = (page: Page, name: string) =>
  page.locator('.MuiFormControl-root', { has: page.locator(`[name="${name}"]`) }).locator('.MuiFormHelperText-root');

async function choose(page: Page, label: string, option: string) {
  await page.getByRole('combobox', { name: label }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

async function addCodes(page: Page, label: string, codes: string[]) {
  const input = page.getByLabel(label);
  for (const code of codes) {
    await input.fill(code);
    await input.press('Enter');
  }
}

test.describe('campaigns', () => {
  test('should create a campaign through the form, list it, pause and start it, and chart its traffic', async ({ page }) => {
    const advertiser = await createAccount(['advertiser']);
    const publisher = await createAccount(['publisher']);
    const { adBlockId } = await apiData('/api/v2/openapi/ad/block/create', publisher.apiKey, { name: 'Chart block' });
    await login(page, advertiser.apiKey);

    await page.getByRole('menuitem', { name: 'Campaigns' }).click();
    await page.getByRole('link', { name: 'Create' }).click();
    await page.locator('input[name="name"]').fill('Winter launch');
    await addCodes(page, 'Included regions', ['us', 'gb']);
    await addCodes(page, 'Included languages', ['EN']);
    await choose(page, 'Platform', 'All');
    await page.getByLabel('High-value users only').uncheck();
    await page.locator('input[name="budget.amount"]').fill('20');
    await page.locator('input[name="budget.total"]').fill('100');
    // Typed in the browser's timezone (Asia/Kolkata, UTC+5:30, see playwright.config.ts).
    await page.locator('input[name="budget.startTime"]').fill('2025-01-01T10:00');
    await page.locator('input[name="budget.endTime"]').fill('2035-06-30T18:45');
    // even pacing is preselected, with what it means
    await expect(page.getByRole('radio', { name: 'Even (spread over the day)' })).toBeChecked();
    await expect(page.getByText('Even spreads the daily budget over the day')).toBeVisible();
    await choose(page, 'Billing type', 'CPM (per 1000 impressions)');
    // A bid high enough to rank among the 9 ads answered, whatever the other specs left running.
    await page.locator('input[name="bidding.costPer"]').fill('30');
    await choose(page, 'Action', 'Open mini app');
    await page.locator('input[name="ad.destination.url"]').fill('https://example.com/play');
    await page.locator('input[name="ad.popupImage"]').fill(`${creatives()}/ad.svg`);
    await page.locator('input[name="ad.icon"]').fill(`${creatives()}/icon.svg`);
    await page.locator('textarea[name="ad.text"]').fill('The puzzle game everyone plays');
    await page.locator('input[name="ad.brandName"]').fill('Acme Games');
    await page.locator('input[name="ad.buttonText"]').fill('Play now');
    await page.locator('input[name="frequencyCap.impressions"]').fill('3');
    await page.locator('input[name="frequencyCap.hours"]').fill('24');
    await expect(page.getByTestId('preview-ad.popupImage')).toBeVisible();
    await expect(page.getByTestId('preview-ad.icon')).toBeVisible();
    await screenshot(page, '10-campaign-create-form');

    // The forecast of what the form holds, before launch: the panel prints what the API answered for that body.
    const answered = page.waitForResponse((response) => response.url().includes('/ad/campaign/forecast'));
    await page.getByRole('button', { name: 'Forecast' }).click();
    const response = await answered;
    expect(response.request().postDataJSON()).toMatchObject({ name: 'Winter launch', targeting: { includedRegions: ['US', 'GB'] }, bidding: { costPer: 30 } });
    const forecast = (await response.json()).data;
    expect(Object.keys(forecast).sort()).toEqual(['dailyClicks', 'dailyImpressions', 'dailyRequests', 'dailySpend', 'daysToSpendTotal', 'limitedBy']);
    await expect(page.getByTestId('forecast-Impressions a day')).toHaveText(forecast.dailyImpressions.toLocaleString('en-US'));
    await expect(page.getByTestId('forecast-Requests a day')).toHaveText(forecast.dailyRequests.toLocaleString('en-US'));
    const limitWords: Record<string, string> = { budget: 'the daily budget', bid: 'the bid', inventory: 'the traffic', schedule: 'the schedule' };
    await expect(page.getByTestId('forecast-limit')).toContainText(`Limited by ${limitWords[forecast.limitedBy]}`);
    await page.getByRole('button', { name: 'Save' }).click();

    await expect(page).toHaveURL(/#\/campaigns\/[^/]+\/show$/);
    await expect(page.getByText('Campaign created')).toBeVisible();
    const campaignId = decodeURIComponent(page.url().split('/campaigns/')[1].split('/')[0]);
    const stored = await detail(campaignId, advertiser.apiKey);
    expect(stored).toMatchObject({
      name: 'Winter launch',
      campaignStatus: 'onGoing',
      targeting: { includedRegions: ['US', 'GB'], includedLanguages: ['en'], platform: 'All', isHighValueUser: false },
      budget: { amount: 20, total: 100, strategy: 'daily', startTime: Date.UTC(2025, 0, 1, 4, 30), endTime: Date.UTC(2035, 5, 30, 13, 15), pacing: 'even' },
      bidding: { billingType: 'CPM', costPer: 30 },
      ad: {
        adFormat: 'image',
        popupImage: `${creatives()}/ad.svg`,
        icon: `${creatives()}/icon.svg`,
        destination: { actionType: 'open.miniapp', url: 'https://example.com/play' },
        text: 'The puzzle game everyone plays',
        brandName: 'Acme Games',
        buttonText: 'Play now',
      },
      verificationUrl: null,
      frequencyCap: { impressions: 3, hours: 24 },
    });
    await expect(page.getByText('3 per user per 24 h')).toBeVisible();
    // the day's spend beside the even line, and the pacing status in words
    await expect(page.getByTestId('day-spend')).toBeVisible();
    // the chart's legend (the pacing status's words may name the even line too)
    await expect(page.getByTestId('day-spend').getByText('Even line', { exact: true })).toBeVisible();
    await expect(page.getByTestId('pacing-status')).toContainText(`Pacing even: ${stored.pacingStatus === 'behind' ? 'behind the line' : 'on pace'}`);
    await expect(page.getByTestId(`campaignStatus-${campaignId}`)).toHaveText('onGoing');
    await screenshot(page, '11-campaign-show');

    // On the campaign: its settings forecast as an edit of itself (it does not compete with itself).
    await page.getByRole('tab', { name: 'Forecast' }).click();
    const ownAnswer = page.waitForResponse((response) => response.url().includes('/ad/campaign/forecast'));
    await page.getByTestId('forecast-card').getByRole('button', { name: 'Forecast' }).click();
    const own = await ownAnswer;
    expect(own.request().postDataJSON()).toMatchObject({ campaignId, name: 'Winter launch', bidding: { costPer: 30 } });
    await expect(page.getByTestId('forecast-Impressions a day')).toHaveText((await own.json()).data.dailyImpressions.toLocaleString('en-US'));
    await page.getByRole('tab', { name: 'Summary' }).click();

    // In the list, with its status.
    await page.getByRole('menuitem', { name: 'Campaigns' }).click();
    const row = page.locator('tr', { hasText: 'Winter launch' });
    await expect(row).toHaveCount(1);
    await expect(row.getByTestId(`campaignStatus-${campaignId}`)).toHaveText('onGoing');
    await expect(row.getByTestId(`deliveryStatus-${campaignId}`)).toHaveText('delivering');

    // Pause from the list, then start again from the detail page.
    await row.getByRole('button', { name: 'Pause' }).click();
    await expect(row.getByTestId(`campaignStatus-${campaignId}`)).toHaveText('paused');
    expect((await detail(campaignId, advertiser.apiKey)).campaignStatus).toBe('paused');
    await expect(row.getByRole('button', { name: 'Pause' })).toBeDisabled();
    await screenshot(page, '12-campaign-list-paused');

    await row.getByText('Winter launch').click();
    await page.getByRole('button', { name: 'Start' }).click();
    await expect(page.getByTestId(`campaignStatus-${campaignId}`)).toHaveText('onGoing');
    expect((await detail(campaignId, advertiser.apiKey)).campaignStatus).toBe('onGoing');
    await expect(page.getByRole('button', { name: 'Start' })).toBeDisabled();

    // Traffic through the real serving and click endpoints, then the charts.
    const served = await traffic(publisher.apiKey, adBlockId, 12, 3, campaignId);
    expect(served).toHaveLength(12);
    await views(publisher.apiKey, adBlockId, served.slice(0, 5));
    const counted = await waitFor(
      () => detail(campaignId, advertiser.apiKey),
      (value) => value.impressions === 12 && value.views === 5,
      'impressions and views',
    );
    expect(counted.clicks).toBe(3);
    expect(counted.cost).toBe(0.36);

    await page.reload();
    await page.getByRole('tab', { name: 'Charts' }).click();
    await expect(page.getByTestId('chart-impressions-totals')).toHaveText('Impressions: 12 · Views (SDK): 5');
    await expect(page.getByTestId('chart-clicks-totals')).toHaveText('Clicks: 3 · Verified clicks: 0 · Conversions: 0');
    await expect(page.getByTestId('chart-cost-totals')).toHaveText('Cost: 0.36 USDT');
    await expect(page.locator('[data-testid="chart-impressions"] .recharts-area-area')).toHaveCount(2);
    await screenshot(page, '13-campaign-charts');

    await page.getByRole('button', { name: 'Last 24 hours' }).click();
    await expect(page.getByTestId('chart-impressions-totals')).toHaveText('Impressions: 12 · Views (SDK): 5');

    // Bot traffic is answered but not billed: shown apart, beside the billed figures.
    for (let index = 0; index < 3; index++) {
      await apiData(
        `/api/v2/openapi/matching/ad?adBlockId=${adBlockId}&openId=bot-${Date.now()}-${index}&type=messenger&limit=9`,
        publisher.apiKey,
        undefined,
        { 'x-forwarded-for': '8.8.8.8', 'accept-language': 'en-US,en;q=0.8', 'user-agent': 'curl/8.5.0' },
      );
    }
    const withBots = await waitFor(
      () => detail(campaignId, advertiser.apiKey),
      (value) => value.invalidImpressions === 3,
      'invalid impressions',
    );
    expect(withBots).toEqual(expect.objectContaining({ impressions: 12, clicks: 3, cost: 0.36, invalidClicks: 0, unbilledClicks: 0 }));
    await page.reload();
    await expect(page.getByTestId('chart-not-billed-totals')).toHaveText('Invalid impressions: 3 · Invalid clicks: 0 · Unbilled clicks: 0');
    await expect(page.getByTestId('chart-cost-totals')).toHaveText('Cost: 0.36 USDT');
    await page.getByRole('tab', { name: 'Summary' }).click();
    await expect(page.getByTestId('figure-invalidImpressions')).toHaveText('3');
    await expect(page.getByTestId('figure-unbilledClicks')).toHaveText('0');
    await screenshot(page, '13b-campaign-not-billed');
  });

  test('should show the API error next to the field it names, and store nothing', async ({ page }) => {
    const advertiser = await createAccount(['advertiser']);
    const campaignId = (await apiData('/api/v2/openapi/ad/campaign/create', advertiser.apiKey, campaignBody('Budget check'))).campaignId;
    await login(page, advertiser.apiKey);

    await page.goto(`${baseUrl()}/admin/#/campaigns/${campaignId}`);
    // Field checks first: the API names the field and its problem, in the form's words.
    await page.locator('input[name="ad.destination.url"]').fill('ftp://example.com/file');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(fieldHelp(page, 'ad.destination.url')).toHaveText('Destination URL must be an http(s) URL');
    await screenshot(page, '14-campaign-edit-field-error');

    // Then the rules across fields, checked on the merged campaign.
    await page.locator('input[name="ad.destination.url"]').fill('https://example.com/new');
    await page.locator('input[name="budget.amount"]').fill('900');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(fieldHelp(page, 'budget.amount')).toHaveText('Daily budget must not exceed total budget');
    await expect(fieldHelp(page, 'ad.destination.url')).toHaveText('');
    await expect(page.locator('input[name="ad.destination.url"]')).not.toHaveAttribute('aria-invalid', 'true');
    await page.locator('input[name="budget.amount"]').scrollIntoViewIfNeeded();
    await screenshot(page, '15-campaign-edit-budget-error');
    const unchanged = await detail(campaignId, advertiser.apiKey);
    expect(unchanged.budget.amount).toBe(50);
    expect(unchanged.ad.destination.url).toBe('https://example.com/landing');

    // A valid edit goes through.
    await page.locator('input[name="budget.amount"]').fill('75');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page).toHaveURL(/\/show$/);
    const edited = await detail(campaignId, advertiser.apiKey);
    expect(edited.budget.amount).toBe(75);
    expect(edited.ad.destination.url).toBe('https://example.com/new');
  });

  test('should filter the list by status and let an admin see every campaign', async ({ page }) => {
    const first = await createAccount(['advertiser']);
    const second = await createAccount(['advertiser']);
    const running = (await apiData('/api/v2/openapi/ad/campaign/create', first.apiKey, campaignBody(`Running ${first.accountId}`))).campaignId;
    const paused = (await apiData('/api/v2/openapi/ad/campaign/create', first.apiKey, campaignBody(`Paused ${first.accountId}`))).campaignId;
    await apiData('/api/v2/openapi/ad/campaign/status', first.apiKey, { campaignId: paused, status: 'paused' });
    const other = (await apiData('/api/v2/openapi/ad/campaign/create', second.apiKey, campaignBody(`Other ${second.accountId}`))).campaignId;

    await login(page, first.apiKey);
    await page.getByRole('menuitem', { name: 'Campaigns' }).click();
    await expect(page.locator('tbody tr')).toHaveCount(2);
    await page.getByRole('combobox', { name: 'Status' }).click();
    await page.getByRole('option', { name: 'paused', exact: true }).click();
    await expect(page.locator('tbody tr')).toHaveCount(1);
    await expect(page.getByTestId(`campaignStatus-${paused}`)).toHaveText('paused');
    await expect(page.getByTestId(`campaignStatus-${running}`)).toHaveCount(0);
    await page.evaluate(() => localStorage.clear());

    await login(page, adminKey());
    await page.getByRole('menuitem', { name: 'Campaigns' }).click();
    await expect(page.getByRole('heading', { name: 'All campaigns' }).or(page.locator('#react-admin-title', { hasText: 'All campaigns' }))).toBeVisible();
    await page.getByPlaceholder('Search name or id').fill(second.accountId);
    await expect(page.locator('tbody tr')).toHaveCount(1);
    await expect(page.locator('tbody tr')).toContainText(`Other ${second.accountId}`);
    await expect(page.getByTestId(`campaignStatus-${other}`)).toHaveText('onGoing');
    await screenshot(page, '16-admin-all-campaigns');
  });

  test('should open a campaign from the list (whose items are partial) on its show page and edit page without any error', async ({ page }) => {
    const advertiser = await createAccount(['advertiser']);
    const campaignId = (await apiData('/api/v2/openapi/ad/campaign/create', advertiser.apiKey, campaignBody(`Walk ${advertiser.accountId}`))).campaignId;
    const problems = watchProblems(page);

    await login(page, advertiser.apiKey);
    await page.getByRole('menuitem', { name: 'Campaigns' }).click();
    await expect(page.locator('tbody tr')).toHaveCount(1);
    // the list loaded first: its partial record must not stand in for the detail
    await page.locator('tbody tr').first().click();
    await expect(page).toHaveURL(new RegExp(`#/campaigns/${campaignId}/show$`));
    await expect(page.getByText('Something went wrong')).toHaveCount(0);
    await expect(page.getByText(`Walk ${advertiser.accountId}`).first()).toBeVisible();
    await page.getByRole('link', { name: 'Edit' }).click();
    await expect(page.locator('input[name="budget.amount"]')).toHaveValue(/\d/);
    await page.getByRole('menuitem', { name: 'Campaigns' }).click();
    await expect(page.locator('tbody tr')).toHaveCount(1);
    // and straight back to the show page from the list, this time with the list cached first
    await page.locator('tbody tr').first().click();
    await expect(page.locator('input[name="budget.amount"]')).toHaveCount(0);
    await expect(page.getByText(`Walk ${advertiser.accountId}`).first()).toBeVisible();
    await expectNoProblems(page, problems);
  });

  test('should show the verification health of a campaign with a verification URL', async ({ page }) => {
    const advertiser = await createAccount(['advertiser']);
    const publisher = await createAccount(['publisher']);
    const { adBlockId } = await apiData('/api/v2/openapi/ad/block/create', publisher.apiKey, { name: 'Verify block' });
    const campaignId = (
      await apiData(
        '/api/v2/openapi/ad/campaign/create',
        advertiser.apiKey,
        campaignBody('Verified launch', {
          targeting: { includedRegions: ['US'] },
          bidding: { billingType: 'CPM', costPer: 40 },
          verificationUrl: `${creatives()}/verify`,
        }),
      )
    ).campaignId;
    await untilServed(publisher.apiKey, adBlockId, campaignId);
    expect(await traffic(publisher.apiKey, adBlockId, 2, 1, campaignId)).toHaveLength(2);
    await login(page, advertiser.apiKey);

    await page.goto(`${baseUrl()}/admin/#/campaigns/${campaignId}/show/verification`);
    await expect(page.getByTestId('verification-health')).toContainText(`${creatives()}/verify`);
    // The panel shows what the API reports (the call may still be pending or already answered `true`).
    await expect(async () => {
      await page.reload();
      const health = await apiData(`/api/v2/openapi/ad/campaign/verification?campaignId=${campaignId}`, advertiser.apiKey);
      const { pending, verified, unverified, error } = health.clicks;
      expect(pending + verified + unverified + error).toBe(1);
      for (const [outcome, count] of Object.entries(health.clicks)) {
        await expect(page.getByTestId(`verification-${outcome}`)).toHaveText(String(count), { timeout: 2000 });
      }
    }).toPass({ timeout: 20_000 });
    await screenshot(page, '17-campaign-verification');
  });
});
