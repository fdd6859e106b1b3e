import { expect, test } from '@playwright/test';
import { apiData, createAccount, login, screenshot } from './support/harness';

test.describe('my account', () => {
  test('should show the webhook secret of an advertiser and rotate it', async ({ page }) => {
    const advertiser = await createAccount(['advertiser']);
    const before = await apiData('/api/v2/openapi/account/me', advertiser.apiKey);
    await login(page, advertiser.apiKey);

    await page.getByRole('menuitem', { name: 'My account' }).click();
    await expect(page.getByTestId('webhook-secret')).not.toContainText(before.webhookSecret);
    await page.getByRole('button', { name: 'Show' }).click();
    await expect(page.getByTestId('webhook-secret')).toHaveText(before.webhookSecret);
    await screenshot(page, '40-my-account');

    await page.getByRole('button', { name: 'Rotate' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    const after = await apiData('/api/v2/openapi/account/me', advertiser.apiKey);
    expect(after.webhookSecret).not.toBe(before.webhookSecret);
    await expect(page.getByTestId('webhook-secret')).toHaveText(after.webhookSecret);
  });
});
