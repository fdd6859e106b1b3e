import { expect, test, type Page } from '@playwright/test';
import { apiData, campaignBody, createAccount, login, screenshot, traffic, untilServed, waitFor } from './support/harness';

const detail = (campaignId: string, apiKey: string) => apiData(`/api/v2/openapi/ad/campaign/detail?campaignId=${campaignId}`, apiKey);

async function choose(page: Page, label: string, option: string) {
  await page.getByRole('combobox', { name: label }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

test.describe('campaign optimization event and funnel', () => {
  test('should offer the optimization event in the create and edit forms, and show the funnel of real traffic and events', async ({ page }) => {
    const advertiser = await createAccount(['advertiser']);
    const publisher = await createAccount(['publisher']);
    const { adBlockId } = await apiData('/api/v2/openapi/ad/block/create', publisher.apiKey, { name: 'Funnel block' });
    // A bid high enough to rank among the 9 ads answered, whatever the other specs left running.
    const { campaignId } = await apiData(
      '/api/v2/openapi/ad/campaign/create',
      advertiser.apiKey,
      campaignBody('Funnel campaign', { bidding: { billingType: 'CPM', costPer: 40 } }),
    );
    await login(page, advertiser.apiKey);

    // The create form offers the select, conversion by default, with every event type.
    await page.getByRole('menuitem', { name: 'Campaigns' }).click();
    await page.getByRole('link', { name: 'Create' }).click();
    await expect(page.getByRole('combobox', { name: 'Optimization event' })).toHaveText('Conversion');
    await page.getByRole('combobox', { name: 'Optimization event' }).click();
    await expect(page.getByRole('option')).toHaveText(['Conversion', 'Onboard', 'Register', 'Play', 'Payment', 'Withdraw']);
    await page.keyboard.press('Escape');

    // The edit form switches it, and the API stores it.
    await page.goto(page.url().replace(/#\/campaigns\/create$/, `#/campaigns/${campaignId}`));
    await expect(page.getByRole('combobox', { name: 'Optimization event' })).toHaveText('Conversion');
    await choose(page, 'Optimization event', 'Payment');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page).toHaveURL(/#\/campaigns\/[^/]+\/show$/);
    expect((await detail(campaignId, advertiser.apiKey)).optimizationEvent).toBe('payment');

    // Traffic: 4 impressions and 2 clicks through the real endpoints, then events reported with the advertiser's key.
    await untilServed(publisher.apiKey, adBlockId, campaignId);
    const served = await traffic(publisher.apiKey, adBlockId, 3, 2, campaignId);
    expect(served).toHaveLength(3);
    const [first, second] = served.map((ad) => ad.openId);
    const report = (eventType: string, messengerUserId: string) =>
      apiData(`/api/v2/openapi/ad/event/report/${eventType === 'conversion' ? 'conversion' : 'custom'}`, advertiser.apiKey, {
        eventType,
        eventData: { messengerUserId },
      });
    await report('register', first);
    await report('register', second);
    await report('payment', first);
    await report('conversion', second);
    const counted = await waitFor(
      () => detail(campaignId, advertiser.apiKey),
      (value) => value.impressions === 4,
      'impressions',
    );
    expect(counted).toMatchObject({
      clicks: 2,
      optimizationEvent: 'payment',
      conversions: 1,
      cr: 0.5,
      events: { conversion: 1, onboard: 0, register: 2, play: 0, payment: 1, withdraw: 0 },
    });

    await page.reload();
    await page.getByRole('tab', { name: 'Funnel' }).click();
    const funnel = page.getByTestId('campaign-funnel');
    await expect(funnel.getByTestId('funnel-optimization-event')).toHaveText('Payment');
    const expected: [string, string, string][] = [
      ['impressions', '4', ''],
      ['clicks', '2', '50 % CTR'],
      ['conversion', '1', '50 % per click'],
      ['onboard', '0', '0 % per click'],
      ['register', '2', '100 % per click'],
      ['play', '0', '0 % per click'],
      ['payment', '1', '50 % per click'],
      ['withdraw', '0', '0 % per click'],
    ];
    for (const [step, count, rate] of expected) {
      await expect(funnel.getByTestId(`funnel-count-${step}`)).toHaveText(count);
      await expect(funnel.getByTestId(`funnel-rate-${step}`)).toHaveText(rate);
    }
    await expect(funnel.getByTestId('funnel-optimized')).toHaveCount(1);
    await expect(funnel.getByTestId('funnel-step-payment').getByTestId('funnel-optimized')).toBeVisible();
    // (1 + 100 × 0.02) / (2 + 100): the default prior while the network is small
    await expect(funnel.getByTestId('funnel-estimated-rate')).toHaveText('2.94 %');
    await screenshot(page, '14-campaign-funnel');

    // Where the payments come from, per block: this campaign's own counts on the one block it served on.
    await page.getByRole('tab', { name: 'By block' }).click();
    const byBlock = page.getByTestId('campaign-by-block');
    await expect(byBlock).toContainText('Where your payment events come from');
    const blockRow = byBlock.getByTestId(`by-block-${adBlockId}`);
    await expect(blockRow.getByTestId('by-block-impressions')).toHaveText('4');
    await expect(blockRow.getByTestId('by-block-clicks')).toHaveText('2');
    await expect(blockRow.getByTestId('by-block-events')).toHaveText('1');
    await expect(blockRow.getByTestId('by-block-standing')).toHaveText('preferred');
  });
});
