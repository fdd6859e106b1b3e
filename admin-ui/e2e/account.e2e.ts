import { expect, test } from '@playwright/test';
import { api, apiData, baseUrl, createAccount, login, screenshot } from './support/harness';

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

  test('should change the time zone from the next local midnight of the zone in force', async ({ page }) => {
    const advertiser = await createAccount(['advertiser']);
    await login(page, advertiser.apiKey);
    await page.getByRole('menuitem', { name: 'My account' }).click();
    await expect(page.getByTestId('time-zone-state')).toHaveText('In force: UTC');

    await page.getByTestId('time-zone').fill('Asia/Tok');
    await page.getByRole('option', { name: 'Asia/Tokyo' }).click();
    await page.getByRole('button', { name: 'Save time zone' }).click();
    const stored = await apiData('/api/v2/openapi/account/me', advertiser.apiKey);
    expect(stored).toMatchObject({ timeZone: 'UTC', nextTimeZone: 'Asia/Tokyo' });
    // UTC's next midnight
    expect(stored.timeZoneChangesAt % 86_400_000).toBe(0);
    expect(stored.timeZoneChangesAt).toBeGreaterThan(Date.now());
    await expect(page.getByTestId('time-zone-state')).toContainText('In force: UTC · Asia/Tokyo from');
  });

  test('should issue a publishable key with allowed origins, show it once with a frontend snippet, and revoke it', async ({ page }) => {
    const publisher = await createAccount(['publisher']);
    await login(page, publisher.apiKey);
    await page.getByRole('menuitem', { name: 'My account' }).click();
    await expect(page.getByTestId('keys-table').locator('tbody tr')).toHaveCount(1);

    await page.locator('input[name="keyLabel"]').fill('landing page');
    await page.getByRole('combobox', { name: 'Scope' }).click();
    await page.getByRole('option', { name: 'serve (publishable)' }).click();
    await page.locator('input[name="keyOrigins"]').fill('https://app.example.com, http://localhost:5173');
    await page.getByRole('button', { name: 'Issue key' }).click();

    const serveKey = (await page.getByTestId('one-time-key').textContent())!.trim();
    expect(serveKey).toMatch(/^adn_/);
    const snippet = (await page.getByTestId('serve-snippet').textContent())!;
    expect(snippet).toContain('/api/v2/openapi/matching/ad?');
    expect(snippet).toContain(`'x-api-key': '${serveKey}'`);
    await screenshot(page, '41-publishable-key');
    await page.getByRole('button', { name: 'I have copied it' }).click();

    // what the API stored, and what the key may do
    const { keys } = await apiData('/api/v2/openapi/account/keys', publisher.apiKey);
    const issued = keys.find((key: { label: string }) => key.label === 'landing page');
    expect(issued).toMatchObject({ scope: 'serve', allowedOrigins: ['https://app.example.com', 'http://localhost:5173'], active: true });
    const row = page.getByTestId(`key-${issued.keyId}`);
    await expect(row).toContainText('serve');
    await expect(row).toContainText('https://app.example.com, http://localhost:5173');
    expect((await api('/api/v2/openapi/ad/block/list', serveKey)).status).toBe(403);
    expect(
      (
        await api('/api/v2/openapi/matching/ad?adBlockId=01hzzzzzzzzzzzzzzzzzzzzzzz&openId=u&type=messenger&limit=1', serveKey, undefined, {
          origin: 'https://evil.example.com',
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await api('/api/v2/openapi/matching/ad?adBlockId=01hzzzzzzzzzzzzzzzzzzzzzzz&openId=u&type=messenger&limit=1', serveKey, undefined, {
          origin: 'https://app.example.com',
        })
      ).status,
    ).toBe(404);

    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect(row).toContainText('revoked');
    expect((await api('/api/v2/openapi/matching/ad?adBlockId=01hzzzzzzzzzzzzzzzzzzzzzzz&openId=u&type=messenger&limit=1', serveKey)).status).toBe(401);
    expect((await api('/api/v2/openapi/account/me', publisher.apiKey)).status).toBe(200);
  });

  test('should run under its Content-Security-Policy, which forbids framing, without a single violation', async ({ page }) => {
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    const document = await page.goto(`${baseUrl()}/admin/`);
    const headers = document!.headers();
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['x-content-type-options']).toBe('nosniff');

    // a page that charts, shows images and calls the API: everything it needs is allowed
    const publisher = await createAccount(['publisher']);
    await login(page, publisher.apiKey);
    await page.getByRole('menuitem', { name: 'Ad blocks' }).click();
    await page.getByRole('menuitem', { name: 'My account' }).click();
    await expect(page.getByTestId('keys-table')).toBeVisible();
    await page.waitForLoadState('networkidle');
    expect(violations).toEqual([]);
  });
});
