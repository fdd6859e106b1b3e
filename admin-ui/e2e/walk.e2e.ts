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
  waitFor,
  watchProblems,
} from './support/harness';

interface Walk {
  /** The menu entry of the resource's list. */
  menu: string;
  /** The name of the record to open: its row holds it, its pages show it. */
  name: string;
  /** Tabs of the show page to open, each once. */
  tabs?: string[];
  /** Whether the show page has Edit (an edit page that loads the record into its form). */
  editable: boolean;
  /** Screenshot names: `<shots>-list`, `<shots>-show`, `<shots>-edit`. */
  shots: string;
  /** The list narrows to the record through its search box (lists other specs fill). */
  search?: boolean;
  /** More to check on the edit page. */
  onEdit?: () => Promise<void>;
}

/**
 * One resource, as a user goes through it from the menu: list -> row -> show (each tab) -> edit -> show -> list ->
 * back. Every page must come up with its record, without an error boundary, a console error or a failed request.
 */
async function walk(page: Page, problems: string[], { menu, name, tabs = [], editable, shots, search = false, onEdit }: Walk) {
  await page.getByRole('menuitem', { name: menu, exact: true }).click();
  if (search) await page.getByPlaceholder('Search name or id').fill(name);
  const row = page.locator('tbody tr', { hasText: name });
  await expect(row).toHaveCount(1);
  if (search) await expect(page.locator('tbody tr')).toHaveCount(1);
  await screenshot(page, `${shots}-list`);

  await row.locator('td').first().click();
  await expect(page).toHaveURL(/\/show$/);
  await expect(page.locator('#main-content').getByText(name, { exact: true }).first()).toBeVisible();
  await screenshot(page, `${shots}-show`);
  for (const tab of tabs) {
    await page.getByRole('tab', { name: tab }).click();
    await expect(page.getByRole('tab', { name: tab })).toHaveAttribute('aria-selected', 'true');
    await screenshot(page, `${shots}-show-${tab.toLowerCase()}`);
  }

  if (editable) {
    await page.getByRole('link', { name: 'Edit' }).click();
    await expect(page.locator('input[name="name"]')).toHaveValue(name);
    await expect(page.getByText('Fields marked * are required')).toBeVisible();
    await onEdit?.();
    await screenshot(page, `${shots}-edit`);
    await page.getByRole('link', { name: 'Show' }).click();
    await expect(page).toHaveURL(/\/show$/);
  } else {
    await expect(page.getByRole('link', { name: 'Edit' })).toHaveCount(0);
  }

  await page.getByRole('link', { name: 'List' }).click();
  await expect(page.locator('tbody tr', { hasText: name }).first()).toBeVisible();
  await page.goBack();
  await expect(page).toHaveURL(/\/show$/);
  await expect(page.locator('#main-content').getByText(name, { exact: true }).first()).toBeVisible();
  await expectNoProblems(page, problems);
}

/** A campaign with traffic (so its charts and budget bars show spend) and a verification URL. */
async function campaignWithSpend(advertiserKey: string, name: string) {
  const publisher = await createAccount(['publisher']);
  const { adBlockId } = await apiData('/api/v2/openapi/ad/block/create', publisher.apiKey, { name: `Block for ${name}` });
  const { campaignId } = await apiData(
    '/api/v2/openapi/ad/campaign/create',
    advertiserKey,
    campaignBody(name, { bidding: { billingType: 'CPM', costPer: 40 }, verificationUrl: `${creatives()}/verify` }),
  );
  await untilServed(publisher.apiKey, adBlockId, campaignId);
  await traffic(publisher.apiKey, adBlockId, 4, 1, campaignId);
  // Served 5 times (the first probe included) at 40 per 1000: 0.2 USDT, once the counters are flushed.
  return waitFor(
    () => apiData(`/api/v2/openapi/ad/campaign/detail?campaignId=${campaignId}`, advertiserKey),
    (detail) => detail.impressions === 5 && detail.clicks === 1,
    'campaign counters',
  );
}

test.describe('every page, for every role', () => {
  test('should walk an advertiser through their campaign: list, show and its tabs, edit, back, with its budget spent', async ({ page }) => {
    const advertiser = await createAccount(['advertiser']);
    const name = `Walk campaign ${advertiser.accountId}`;
    const campaign = await campaignWithSpend(advertiser.apiKey, name);
    expect(campaign.cost).toBe(0.2);
    const problems = watchProblems(page);
    await login(page, advertiser.apiKey);

    // The list's row carries its budget and spend (0.2 of 50 today, 0.2 of 500 in all): no request per row.
    const perRowReads: string[] = [];
    // What the rows used to read: each campaign's detail and its stats since the start of the UTC day (the
    // dashboard's own chart reads a week of stats, and may do so while the list opens).
    const startOfUtcDay = Math.floor(Date.now() / 86_400_000) * 86_400_000;
    const countPerRowReads = (request: { url(): string }) => {
      const url = new URL(request.url());
      const todaysStats = url.pathname.endsWith('/ad/campaign/stats') && url.searchParams.get('from') === String(startOfUtcDay);
      if (url.pathname.endsWith('/ad/campaign/detail') || todaysStats) perRowReads.push(request.url());
    };
    page.on('request', countPerRowReads);
    await page.getByRole('menuitem', { name: 'Campaigns' }).click();
    const row = page.locator('tbody tr', { hasText: name });
    await expect(row.getByTestId('budget-spent-today')).toHaveText('Today (UTC) 0.4 %');
    await expect(row.getByTestId('budget-spent-total')).toHaveText('Total 0 %');
    page.off('request', countPerRowReads);
    expect(perRowReads).toEqual([]);
    // The browser runs in Asia/Kolkata (UTC+5:30, no daylight saving time): the pickers show the stored times there.
    const kolkata = (ms: number) => new Date(ms + 5.5 * 3_600_000).toISOString().slice(0, 16);
    await walk(page, problems, {
      menu: 'Campaigns',
      name,
      tabs: ['Charts', 'Creative', 'Verification', 'Summary'],
      editable: true,
      shots: '70-advertiser-campaign',
      onEdit: async () => {
        await expect(page.locator('input[name="budget.startTime"]')).toHaveValue(kolkata(campaign.budget.startTime));
        await expect(page.locator('input[name="budget.endTime"]')).toHaveValue(kolkata(campaign.budget.endTime));
      },
    });

    await expect(page.getByTestId('budget-spent-today')).toHaveText('Today (UTC): 0.20 USDT of 50.00 USDT');
    await expect(page.getByTestId('budget-spent-total')).toHaveText('Total: 0.20 USDT of 500.00 USDT');
    await expect(page.getByTestId('owner')).toHaveText(advertiser.name);
    await page.getByRole('menuitem', { name: 'My account' }).click();
    await expect(page.getByTestId('keys-table')).toBeVisible();
    await page.getByRole('menuitem', { name: 'Dashboard' }).click();
    await expect(page.getByTestId('figure-spend')).toHaveText('0.20 USDT');
    await screenshot(page, '70-advertiser-dashboard');
    await expectNoProblems(page, problems);
  });

  test('should walk a publisher through their ad block and the profile import', async ({ page }) => {
    const publisher = await createAccount(['publisher']);
    const name = `Walk block ${publisher.accountId}`;
    await apiData('/api/v2/openapi/ad/block/create', publisher.apiKey, { name });
    const problems = watchProblems(page);
    await login(page, publisher.apiKey);

    await walk(page, problems, { menu: 'Ad blocks', name, editable: true, shots: '71-publisher-ad-block' });
    await page.getByRole('menuitem', { name: 'Profile import' }).click();
    await expect(page.getByRole('button', { name: 'Choose a CSV file' })).toBeVisible();
    await expect(page.getByTestId('csv-file-name')).toHaveText('no file chosen');
    // the sample to start from is the file the server-side e2e imports whole (profiles-csv.e2e-spec.ts)
    const sample = decodeURIComponent((await page.getByTestId('sample-csv').getAttribute('href'))!.split(',').slice(1).join(','));
    expect(sample.split('\n')[0]).toBe('messengerUserId,walletAddress,walletClassify,ipAddress,isPremium,isHighValue,walletHasBalance,language');
    await screenshot(page, '71-publisher-profile-import');
    await page.getByRole('menuitem', { name: 'Dashboard' }).click();
    await expect(page.getByTestId('figure-blocks')).toHaveText('1');
    await expectNoProblems(page, problems);
  });

  test('should walk a partner through their exchange campaign and its ledger', async ({ page }) => {
    const partner = await createAccount(['partner']);
    const name = `Walk exchange ${partner.accountId}`;
    await apiData('/api/v2/openapi/exchange/campaign/create', partner.apiKey, {
      name,
      icon: `${creatives()}/icon.svg`,
      image: `${creatives()}/ad.svg`,
      text: 'Trade clicks with us',
      destination: { actionType: 'open.miniapp', url: 'https://t.me/walk_bot/app' },
    });
    const problems = watchProblems(page);
    await login(page, partner.apiKey);

    await walk(page, problems, { menu: 'Exchange', name, tabs: ['Ledger', 'Summary'], editable: true, shots: '72-partner-exchange' });
    await expect(page.getByTestId('owner')).toHaveText(partner.name);
    await page.getByRole('menuitem', { name: 'Dashboard' }).click();
    await expect(page.getByTestId('figure-exchange-campaigns')).toHaveText('1');
    await screenshot(page, '72-partner-dashboard');
    await expectNoProblems(page, problems);
  });

  test("should walk an admin through every resource, other accounts' records named by their owner", async ({ page }) => {
    const stamp = Date.now();
    const advertiser = await createAccount(['advertiser'], `Acme Ads ${stamp}`);
    const publisher = await createAccount(['publisher'], `Puzzle Apps ${stamp}`);
    const partner = await createAccount(['partner'], `Racing Games ${stamp}`);
    const campaign = `Admin walk campaign ${stamp}`;
    const block = `Admin walk block ${stamp}`;
    const exchange = `Admin walk exchange ${stamp}`;
    await apiData('/api/v2/openapi/ad/campaign/create', advertiser.apiKey, campaignBody(campaign));
    await apiData('/api/v2/openapi/ad/block/create', publisher.apiKey, { name: block });
    await apiData('/api/v2/openapi/exchange/campaign/create', partner.apiKey, {
      name: exchange,
      icon: `${creatives()}/icon.svg`,
      text: 'Race your friends',
      destination: { actionType: 'open.miniapp', url: 'https://t.me/racing_bot/app' },
    });
    const problems = watchProblems(page);
    await login(page, adminKey());
    await screenshot(page, '73-admin-dashboard');

    await walk(page, problems, { menu: 'Campaigns', name: campaign, tabs: ['Charts'], editable: true, shots: '73-admin-campaign', search: true });
    await expect(page.getByTestId('owner')).toHaveText(advertiser.name);
    await walk(page, problems, { menu: 'Ad blocks', name: block, editable: true, shots: '73-admin-ad-block' });
    await expect(page.getByTestId('owner')).toHaveText(publisher.name);
    await walk(page, problems, { menu: 'Exchange', name: exchange, tabs: ['Ledger'], editable: true, shots: '73-admin-exchange', search: true });
    await expect(page.getByTestId('owner')).toHaveText(partner.name);
    await walk(page, problems, { menu: 'Accounts', name: publisher.name, editable: false, shots: '73-admin-account', search: true });
    await expect(page.getByTestId('keys-table').locator('tbody tr')).toHaveCount(1);

    // the lists name each record's owner, linking to the owner's account
    await page.getByRole('menuitem', { name: 'Campaigns' }).click();
    await page.getByPlaceholder('Search name or id').fill(campaign);
    await expect(page.locator('tbody tr', { hasText: campaign }).getByTestId('owner')).toHaveText(advertiser.name);
    await page.getByRole('menuitem', { name: 'Ad blocks' }).click();
    await expect(page.locator('tbody tr', { hasText: block }).getByTestId('owner')).toHaveText(publisher.name);
    await page.getByRole('menuitem', { name: 'Queues' }).click();
    // the browser e2e runs the embedded profile: no Redis, so no board to open, and the page says why
    await expect(page.getByTestId('queues-embedded')).toContainText('embedded profile');
    await expect(page.getByTestId('open-queues')).toHaveCount(0);
    await expectNoProblems(page, problems);
  });

  test('should lead a new advertiser from empty pages to their first campaign, and say what a blank form needs', async ({ page }) => {
    const advertiser = await createAccount(['advertiser']);
    const problems = watchProblems(page);
    await login(page, advertiser.apiKey);
    await expect(page.getByTestId('dashboard-advertiser-first-step')).toBeVisible();
    await screenshot(page, '74-empty-dashboard');

    await page.getByRole('menuitem', { name: 'Campaigns' }).click();
    await expect(page.getByTestId('empty-list')).toContainText('No campaigns yet');
    await screenshot(page, '74-empty-campaigns');
    await page.getByRole('link', { name: 'Create your first campaign' }).click();
    await expect(page).toHaveURL(/#\/campaigns\/create$/);

    // Required fields are marked before typing; Save on the blank form says what is missing, and sends nothing.
    const nameInput = page.locator('.MuiFormControl-root', { has: page.locator('[name="name"]') });
    await expect(nameInput.locator('label')).toHaveText(/^Name\s*\*$/);
    await expect(page.locator('.MuiFormControl-root', { has: page.locator('[name="budget.amount"]') }).locator('label')).toHaveText(/^Daily budget\s*\*$/);
    await expect(page.getByText('Fields marked * are required')).toBeVisible();
    const save = page.getByRole('button', { name: 'Save' });
    await expect(save).toBeEnabled();
    await save.click();
    await expect(nameInput.locator('.MuiFormHelperText-root')).toHaveText('Required');
    await expect(page.getByText('Some fields need attention: see the messages under them')).toBeVisible();
    await screenshot(page, '74-blank-campaign-form');
    const { total } = await apiData('/api/v2/openapi/ad/campaign/list', advertiser.apiKey);
    expect(total).toBe(0);
    await expectNoProblems(page, problems);
  });

  test('should say which page failed and why, and come back on reload', async ({ page }) => {
    const advertiser = await createAccount(['advertiser']);
    const { campaignId } = await apiData('/api/v2/openapi/ad/campaign/create', advertiser.apiKey, campaignBody('Broken answer'));
    // An answer the page cannot render (a detail without its budget), provoked on purpose.
    const isDetail = (url: URL) => url.pathname === '/api/v2/openapi/ad/campaign/detail';
    await page.route(isDetail, async (route) => {
      const response = await route.fetch();
      const json = await response.json();
      delete json.data.budget;
      await route.fulfill({ response, json });
    });
    await login(page, advertiser.apiKey);
    await page.goto(`${baseUrl()}/admin/#/campaigns/${campaignId}/show`);

    await expect(page.getByTestId('page-error')).toContainText(`The page of campaign ${campaignId} could not be shown`);
    await expect(page.getByTestId('page-error-message')).toContainText("reading 'amount'");
    await screenshot(page, '75-page-error');

    await page.unroute(isDetail);
    await page.getByRole('button', { name: 'Reload' }).click();
    await expect(page.getByTestId('page-error')).toHaveCount(0);
    await expect(page.getByTestId('budget-spent-total')).toHaveText('Total: 0.00 USDT of 500.00 USDT');
  });
});
