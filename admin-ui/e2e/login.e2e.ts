import { expect, test } from '@playwright/test';
import { adminKey, api, baseUrl, createAccount, login, screenshot } from './support/harness';

test.describe('login', () => {
  test('should refuse a wrong key and store nothing', async ({ page }) => {
    await page.goto(`${baseUrl()}/admin/`);
    await expect(page.locator('input[name="apiKey"]')).toBeVisible();
    await page.locator('input[name="apiKey"]').fill('adn_this-key-does-not-exist-0000000000');
    await page.getByRole('button', { name: 'Log in' }).click();

    await expect(page.getByTestId('login-error')).toHaveText('This API key was refused: x-api-key is not a valid key (unknown or revoked)');
    expect(await page.evaluate(() => localStorage.getItem('adnet.apiKey'))).toBeNull();
    await screenshot(page, '01-login-refused');
  });

  test('should show each role only its own menus', async ({ page }) => {
    const menus = async () => (await page.locator('.RaMenu-open a, .RaMenu-closed a').allInnerTexts()).map((text) => text.trim());

    const advertiser = await createAccount(['advertiser']);
    await login(page, advertiser.apiKey);
    expect(await menus()).toEqual(['Dashboard', 'Campaigns', 'Reports', 'My account']);
    await page.getByRole('button', { name: 'Profile' }).click();
    await page.getByRole('menuitem', { name: 'Logout' }).click();
    await expect(page.locator('input[name="apiKey"]')).toBeVisible();

    const publisher = await createAccount(['publisher']);
    await login(page, publisher.apiKey);
    expect(await menus()).toEqual(['Dashboard', 'Ad blocks', 'Profile import', 'Reports', 'My account']);
    await page.evaluate(() => localStorage.clear());

    const partner = await createAccount(['partner']);
    await login(page, partner.apiKey);
    expect(await menus()).toEqual(['Dashboard', 'Exchange', 'My account']);
    await page.evaluate(() => localStorage.clear());

    await login(page, adminKey());
    expect(await menus()).toEqual([
      'Dashboard',
      'Campaigns',
      'Ad blocks',
      'Exchange',
      'Accounts',
      'Profile import',
      'Reports',
      'My account',
      'Queues',
      'Reviews',
    ]);
    await screenshot(page, '02-admin-dashboard');
  });

  test('should log out when the key is revoked while logged in', async ({ page }) => {
    const advertiser = await createAccount(['advertiser']);
    await login(page, advertiser.apiKey);
    const { body } = await api(`/api/v2/admin/accounts/${advertiser.accountId}/keys`, adminKey());
    await api(`/api/v2/admin/keys/${body.data.keys[0].keyId}/revoke`, adminKey(), {});

    await page.goto(`${baseUrl()}/admin/#/campaigns`);

    await expect(page.locator('input[name="apiKey"]')).toBeVisible();
    expect(await page.evaluate(() => localStorage.getItem('adnet.apiKey'))).toBeNull();
  });
});

test.describe('serving the panel', () => {
  test('should answer client routes with the panel and missing files with 404', async ({ request }) => {
    const route = await request.get(`${baseUrl()}/admin/campaigns/create`);
    expect(route.status()).toBe(200);
    expect(route.headers()['content-type']).toContain('text/html');
    expect(await route.text()).toContain('<div id="root"></div>');

    const missing = await request.get(`${baseUrl()}/admin/assets/missing-file.js`);
    expect(missing.status()).toBe(404);
    expect(await missing.json()).toEqual({ code: 404, message: 'no route GET /admin/assets/missing-file.js', data: {} });

    const redirect = await request.get(`${baseUrl()}/admin`, { maxRedirects: 0 });
    expect(redirect.status()).toBe(302);
    expect(redirect.headers().location).toBe('/admin/');
  });
});
