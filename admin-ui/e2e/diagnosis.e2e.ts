import { expect, test } from '@playwright/test';
import { apiData, baseUrl, campaignBody, createAccount, login, screenshot } from './support/harness';

/** "Test delivery" (GET ad/delivery/diagnose): why a campaign is not shown, and what a block would show. */
test.describe('test delivery', () => {
  test('should name the failing check of a campaign that does not serve, and pass it with the facts that match', async ({ page }) => {
    const advertiser = await createAccount(['advertiser']);
    const { campaignId } = await apiData(
      '/api/v2/openapi/ad/campaign/create',
      advertiser.apiKey,
      campaignBody('Germany only', { targeting: { includedRegions: ['DE'] }, bidding: { billingType: 'CPM', costPer: 90 } }),
    );
    await login(page, advertiser.apiKey);
    await page.goto(`${baseUrl()}/admin/#/campaigns/${campaignId}/show`);
    await page.getByRole('tab', { name: 'Test delivery' }).click();
    await page.getByRole('button', { name: 'Run test' }).click();

    // the browser's request comes from the loopback address: no country, so a region-targeted campaign cannot match
    const regions = page.getByTestId('check-targeting.includedRegions');
    await expect(regions).toHaveAttribute('data-passed', 'false');
    await expect(regions).toContainText('no country for');
    await expect(regions).toContainText('region-targeted campaigns cannot match');
    await expect(page.getByTestId('delivery-verdict')).toContainText('Not shown — Regions: no country for');
    await expect(page.getByTestId('check-status')).toHaveAttribute('data-passed', 'true');
    await screenshot(page, '60-test-delivery-not-shown');

    await page.getByLabel('Country').fill('de');
    await page.getByLabel('Ads asked (limit)').fill('9');
    await page.getByRole('button', { name: 'Run test' }).click();
    await expect(regions).toHaveAttribute('data-passed', 'true');
    await expect(regions).toContainText('DE is an included region');
    await expect(page.getByTestId('delivery-verdict')).toHaveText('This ad would be shown');

    // a bad field is shown under its input, in the API's words
    await page.getByLabel('Country').fill('XX');
    await page.getByRole('button', { name: 'Run test' }).click();
    await expect(page.getByTestId('delivery-test-error')).toContainText('country must be an ISO 3166-1 alpha-2 code');
  });

  test("should open a block's test from its show page and list the ads it would show", async ({ page }) => {
    const publisher = await createAccount(['publisher']);
    const { adBlockId } = await apiData('/api/v2/openapi/ad/block/create', publisher.apiKey, { name: 'Tested block' });
    await login(page, publisher.apiKey);
    await page.goto(`${baseUrl()}/admin/#/adBlocks/${adBlockId}/show`);
    await page.getByRole('link', { name: 'Test delivery' }).click();
    await expect(page).toHaveURL(/#\/test-delivery\?adBlockId=/);
    await expect(page.getByLabel('Ad block id')).toHaveValue(adBlockId);
    await page.getByLabel('User (openId)').fill('panel-user-1');
    await page.getByRole('button', { name: 'Run test' }).click();
    await expect(page.getByTestId('check-block.signedViewer')).toHaveAttribute('data-passed', 'true');
    await expect(page.getByTestId('check-userCap')).toContainText('0 of');
    await expect(page.getByTestId('check-country')).toContainText('no country for');
    await expect(page.getByTestId('delivery-ads')).toBeVisible();
    await screenshot(page, '61-test-delivery-block');
  });
});
