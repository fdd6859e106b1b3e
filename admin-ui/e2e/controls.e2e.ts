import { expect, test } from '@playwright/test';
import { adminKey, apiData, baseUrl, BROWSER_USER_AGENT, campaignBody, createAccount, login, screenshot } from './support/harness';
import { startExtraServer } from './support/review-server';

test.describe('publisher controls', () => {
  test('should set a floor and block a category and a domain from the block form', async ({ page }) => {
    const publisher = await createAccount(['publisher']);
    await login(page, publisher.apiKey);
    await page.getByRole('menuitem', { name: 'Ad blocks' }).click();
    await page.getByRole('link', { name: 'Create' }).click();
    await page.locator('input[name="name"]').fill('Family banner');
    await page.locator('input[name="floorCpm"]').fill('2.5');
    await page.getByLabel('Blocked categories').click();
    await page.getByRole('option', { name: 'gambling' }).click();
    await page.getByRole('option', { name: 'dating' }).click();
    await page.keyboard.press('Escape');
    await page.locator('textarea[name="blockedDomains"]').fill('Casino.example\nbet.example');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page).toHaveURL(/#\/adBlocks\/[^/]+\/show$/);
    const adBlockId = decodeURIComponent(page.url().split('/adBlocks/')[1].split('/')[0]);
    const detail = await apiData(`/api/v2/openapi/ad/block/detail?adBlockId=${adBlockId}`, publisher.apiKey);
    expect(detail).toMatchObject({
      floorCpm: 2.5,
      floorCpc: null,
      blockedCategories: ['gambling', 'dating'],
      blockedDomains: ['casino.example', 'bet.example'],
    });
    await expect(page.getByText('gambling, dating')).toBeVisible();
    await screenshot(page, '40-ad-block-controls');

    // a bad domain comes back under its field, and nothing changes
    await page.goto(`${baseUrl()}/admin/#/adBlocks/${adBlockId}`);
    await page.locator('textarea[name="blockedDomains"]').fill('https://not-a-host.example/path');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText(/host name/)).toBeVisible();
    expect((await apiData(`/api/v2/openapi/ad/block/detail?adBlockId=${adBlockId}`, publisher.apiKey)).blockedDomains).toEqual([
      'casino.example',
      'bet.example',
    ]);

    // emptying the floor removes it
    await page.locator('textarea[name="blockedDomains"]').fill('casino.example');
    await page.locator('input[name="floorCpm"]').fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page).toHaveURL(new RegExp(`#/adBlocks/${adBlockId}/show$`));
    expect(await apiData(`/api/v2/openapi/ad/block/detail?adBlockId=${adBlockId}`, publisher.apiKey)).toMatchObject({
      floorCpm: null,
      blockedDomains: ['casino.example'],
    });
  });
});

test.describe('review queue (CAMPAIGN_REVIEW=true)', () => {
  let server: Awaited<ReturnType<typeof startExtraServer>>;
  test.beforeAll(async () => {
    server = await startExtraServer({ CAMPAIGN_REVIEW: 'true' });
  });
  test.afterAll(async () => {
    await server?.stop();
  });

  const call = async (path: string, apiKey: string, body?: unknown) => {
    const response = await fetch(server.url + path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'x-api-key': apiKey, 'user-agent': BROWSER_USER_AGENT, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await response.json();
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(json)}`);
    return json.data;
  };

  test('should approve a new campaign and reject an edited creative from the queue, oldest first', async ({ page }) => {
    const advertiser = await call('/api/v2/admin/accounts', adminKey(), { name: 'Reviewed advertiser', roles: ['advertiser'] });
    const fresh = (await call('/api/v2/openapi/ad/campaign/create', advertiser.apiKey, campaignBody('Fresh campaign'))).campaignId;
    const live = (await call('/api/v2/openapi/ad/campaign/create', advertiser.apiKey, campaignBody('Live campaign'))).campaignId;
    await call('/api/v2/admin/reviews/approve', adminKey(), { campaignId: live });
    await call('/api/v2/openapi/ad/campaign/update', advertiser.apiKey, {
      campaignId: live,
      ad: { text: 'Now with a new landing page', destination: { url: 'https://swapped.example/win' } },
    });

    await page.goto(`${server.url}/admin/`);
    await page.locator('input[name="apiKey"]').fill(adminKey());
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByTestId('reviews-link').click();
    const cards = page.locator('[data-testid^="review-"]');
    await expect(cards).toHaveCount(2);
    // oldest first: the new campaign waits since its creation, the revision since the edit
    await expect(cards.nth(0)).toHaveAttribute('data-testid', `review-${fresh}`);
    await expect(cards.nth(1)).toHaveAttribute('data-testid', `review-${live}`);
    const revision = page.getByTestId(`review-${live}`);
    await expect(revision.getByTestId('host-change')).toContainText('example.com → swapped.example');
    await expect(revision.getByTestId('approved-creative')).toContainText('Play the best puzzle game');
    await expect(revision.getByTestId('pending-creative')).toContainText('Now with a new landing page');
    await expect(page.getByTestId(`review-${fresh}`).getByTestId('host-change')).toHaveCount(0);
    await screenshot(page, '41-review-queue');

    await page.getByTestId(`review-${fresh}`).getByRole('button', { name: 'Approve' }).click();
    await expect(page.getByTestId(`review-${fresh}`)).toHaveCount(0);
    expect(await call(`/api/v2/openapi/ad/campaign/detail?campaignId=${fresh}`, advertiser.apiKey)).toMatchObject({
      campaignStatus: 'onGoing',
      reviewStatus: 'approved',
    });

    // a rejection needs a note: the API's words appear under the field, nothing changes
    await revision.getByRole('button', { name: 'Reject' }).click();
    await expect(revision.getByText(/note/i).first()).toBeVisible();
    expect((await call(`/api/v2/openapi/ad/campaign/detail?campaignId=${live}`, advertiser.apiKey)).reviewStatus).toBe('pending');
    await revision.getByLabel('Note for the advertiser').fill('The landing page is not the advertised game');
    await revision.getByRole('button', { name: 'Reject' }).click();
    await expect(page.getByTestId('reviews-empty')).toBeVisible();
    const rejected = await call(`/api/v2/openapi/ad/campaign/detail?campaignId=${live}`, advertiser.apiKey);
    expect(rejected).toMatchObject({ reviewStatus: 'rejected', reviewNote: 'The landing page is not the advertised game', pendingAd: null });
    expect(rejected.ad.destination.url).toBe('https://example.com/landing');

    // the advertiser sees the note on the campaign's creative tab
    await page.evaluate(() => localStorage.clear());
    await page.goto(`${server.url}/admin/`);
    await page.locator('input[name="apiKey"]').fill(advertiser.apiKey);
    await page.getByRole('button', { name: 'Log in' }).click();
    // logged in (the key checked and kept) before going on: a navigation while it is checked lands on the login page
    await expect(page.getByRole('heading', { name: 'Dashboard' }).or(page.locator('#react-admin-title'))).toBeVisible();
    await page.goto(`${server.url}/admin/#/campaigns/${live}/show/creative`);
    await expect(page.getByTestId('review-state')).toContainText('Review rejected: The landing page is not the advertised game');
  });
});
