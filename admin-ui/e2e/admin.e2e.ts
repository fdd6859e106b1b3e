import { expect, test } from '@playwright/test';
import { adminKey, api, apiData, login, screenshot } from './support/harness';

test.describe('admin', () => {
  test('should create an account, issue a key shown once, and revoke it', async ({ page }) => {
    await login(page, adminKey());
    await page.getByRole('menuitem', { name: 'Accounts' }).click();
    await page.getByRole('link', { name: 'Create' }).click();
    const name = `Acme Games ${Date.now()}`;
    await page.locator('input[name="name"]').fill(name);
    await page.getByLabel('advertiser').uncheck();
    await page.getByLabel('publisher').check();
    await page.getByLabel('partner').check();
    await page.getByRole('button', { name: 'Save' }).click();

    // The first key, shown once; it works.
    const firstKey = (await page.getByTestId('one-time-key').textContent())!.trim();
    expect(firstKey).toMatch(/^adn_/);
    await screenshot(page, '30-account-first-key');
    const me = await apiData('/api/v2/openapi/account/me', firstKey);
    expect(me).toMatchObject({ name, roles: ['publisher', 'partner'] });
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await expect(page).toHaveURL(new RegExp(`#/accounts/${me.accountId}/show$`));
    await expect(page.getByTestId('keys-table').locator('tbody tr')).toHaveCount(1);

    // Another key, with a label.
    await page.locator('input[name="keyLabel"]').fill('ci pipeline');
    await page.getByRole('button', { name: 'Issue key' }).click();
    const secondKey = (await page.getByTestId('one-time-key').textContent())!.trim();
    expect(secondKey).toMatch(/^adn_/);
    expect(secondKey).not.toBe(firstKey);
    expect((await apiData('/api/v2/openapi/account/me', secondKey)).accountId).toBe(me.accountId);
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await expect(page.getByTestId('keys-table').locator('tbody tr')).toHaveCount(2);
    const { keys } = await apiData(`/api/v2/admin/accounts/${me.accountId}/keys`, adminKey());
    const second = keys.find((key: { label: string }) => key.label === 'ci pipeline');
    expect(second).toMatchObject({ scope: 'full', allowedOrigins: null, active: true });
    // keys are shown by their id: no part of a key is stored or shown in the clear
    await expect(page.getByTestId('keys-table')).not.toContainText(secondKey.slice(4, 16));
    await screenshot(page, '31-account-keys');

    // Revoke it: it answers 401 from then on, the first key still works.
    const row = page.getByTestId(`key-${second.keyId}`);
    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect(row).toContainText('revoked');
    await expect(page.getByRole('dialog')).toHaveCount(0);
    expect((await api('/api/v2/openapi/account/me', secondKey)).status).toBe(401);
    expect((await api('/api/v2/openapi/account/me', firstKey)).status).toBe(200);
    await expect(page.getByTestId(`key-${second.keyId}`).getByRole('button', { name: 'Revoke' })).toHaveCount(0);
    await screenshot(page, '32-account-key-revoked');

    // The accounts list has it, with its roles.
    await page.getByRole('menuitem', { name: 'Accounts' }).click();
    await expect(page.locator('tr', { hasText: name })).toContainText('publisher');
    await screenshot(page, '33-accounts-list');
  });

  test('should link to the queue view with the admin key on a service with Redis', async ({ page }) => {
    // this server is the embedded profile; the page reads /health to know, so answer it as the Redis profile would
    await page.route('**/health', (route) => route.fulfill({ json: { code: 0, message: 'success', data: { status: 'ok', database: 'up', redis: 'up' } } }));
    await login(page, adminKey());
    await page.getByRole('menuitem', { name: 'Queues' }).click();
    const link = page.getByTestId('open-queues');
    await expect(link).toHaveAttribute('href', `/admin/queues?key=${encodeURIComponent(adminKey())}`);
    await screenshot(page, '34-queues');
  });
});
