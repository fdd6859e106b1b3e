import { expect, test, type Page } from '@playwright/test';
import { apiData, createAccount, creatives, login, screenshot, waitFor } from './support/harness';

const detail = (id: string, apiKey: string) => apiData(`/api/v2/openapi/exchange/campaign/detail?exchangeCampaignId=${id}`, apiKey);

/**
 * Serves entries for `outId` to `users` users and clicks the entry of `inId` for `clicks` of them (key of out's owner);
 * answers the users who clicked.
 */
async function exchangeTraffic(outKey: string, outId: string, inId: string, users: number, clicks: number) {
  // A new exchange campaign reaches the matching index through a change notice a few ms later.
  await waitFor(
    async () =>
      (
        await apiData(`/api/v2/openapi/matching/exchange?exchangeCampaignId=${outId}&openId=probe-${Date.now()}&type=messenger&limit=9`, outKey)
      ).exchangeCampaigns.some((entry: { inExchangeCampaignId: string }) => entry.inExchangeCampaignId === inId),
    (found) => found,
    `${inId} offered to ${outId}`,
  );
  const clicked: string[] = [];
  for (let index = 0; index < users; index++) {
    const openId = `ex-user-${Date.now()}-${index}`;
    const data = await apiData(`/api/v2/openapi/matching/exchange?exchangeCampaignId=${outId}&openId=${openId}&type=messenger&limit=9`, outKey);
    const entry = data.exchangeCampaigns.find((candidate: { inExchangeCampaignId: string }) => candidate.inExchangeCampaignId === inId);
    if (entry && clicked.length < clicks) {
      await apiData('/api/v2/openapi/exchange/event/report', outKey, {
        eventType: 'click',
        eventData: { messengerUserId: openId, inExchangeCampaignId: inId, outExchangeCampaignId: outId },
      });
      clicked.push(openId);
    }
  }
  return clicked;
}

const fieldHelp = (page: Page, name: string) =>
  page.locator('.MuiFormControl-root', { has: page.locator(`[name="${name}"]`) }).locator('.MuiFormHelperText-root');

test.describe('exchange', () => {
  test('should create an exchange campaign through the form, pause and start it, and show its ledger', async ({ page }) => {
    const partner = await createAccount(['partner']);
    const other = await createAccount(['partner']);
    await login(page, partner.apiKey);

    await page.getByRole('menuitem', { name: 'Exchange' }).click();
    await page.getByRole('link', { name: 'Create' }).click();
    await page.locator('input[name="name"]').fill('Puzzle cross-promo');
    await page.locator('input[name="icon"]').fill(`${creatives()}/icon.svg`);
    await page.locator('textarea[name="text"]').fill('Solve 500 puzzles with friends');
    await page.locator('input[name="destination.url"]').fill('ftp://bad.example');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(fieldHelp(page, 'destination.url')).toHaveText('Destination URL must be an http(s) URL');
    await page.locator('input[name="destination.url"]').fill('https://t.me/puzzle_bot/app');
    await expect(page.getByTestId('preview-icon')).toBeVisible();
    await page.getByRole('button', { name: 'Save' }).click();

    await expect(page).toHaveURL(/#\/exchangeCampaigns\/[^/]+\/show$/);
    const mine = decodeURIComponent(page.url().split('/exchangeCampaigns/')[1].split('/')[0]);
    expect(await detail(mine, partner.apiKey)).toMatchObject({
      name: 'Puzzle cross-promo',
      icon: `${creatives()}/icon.svg`,
      image: null,
      text: 'Solve 500 puzzles with friends',
      destination: { actionType: 'open.miniapp', url: 'https://t.me/puzzle_bot/app' },
      campaignStatus: 'onGoing',
    });

    // Pause and start again.
    await page.getByRole('button', { name: 'Pause' }).click();
    await expect(page.getByTestId(`campaignStatus-${mine}`)).toHaveText('paused');
    expect((await detail(mine, partner.apiKey)).campaignStatus).toBe('paused');
    await page.getByRole('button', { name: 'Start' }).click();
    await expect(page.getByTestId(`campaignStatus-${mine}`)).toHaveText('onGoing');
    expect((await detail(mine, partner.apiKey)).campaignStatus).toBe('onGoing');

    // Traffic both ways: 3 clicks from my app to the other partner's, 1 back.
    const theirs = (
      await apiData('/api/v2/openapi/exchange/campaign/create', other.apiKey, {
        name: 'Racing promo',
        icon: `${creatives()}/icon.svg`,
        text: 'Race your friends',
        destination: { actionType: 'open.miniapp', url: 'https://t.me/racing_bot/app' },
      })
    ).exchangeCampaignId;
    expect(await exchangeTraffic(partner.apiKey, mine, theirs, 4, 3)).toHaveLength(3);
    const received = await exchangeTraffic(other.apiKey, theirs, mine, 2, 1);
    expect(received).toHaveLength(1);
    // The user my campaign received converts in my app: I report it, and it is credited to that click.
    await apiData('/api/v2/openapi/exchange/event/report/conversion', partner.apiKey, { eventType: 'conversion', eventData: { messengerUserId: received[0] } });
    const ledger = await waitFor(
      () => detail(mine, partner.apiKey),
      (value: { clicksSent: number; clicksReceived: number; balance: number; conversions: number; cr: number }) =>
        value.clicksSent === 3 && value.clicksReceived === 1,
      'ledger',
    );
    expect({ balance: ledger.balance, conversions: ledger.conversions, cr: ledger.cr }).toEqual({ balance: 2, conversions: 1, cr: 1 });

    await page.reload();
    await expect(page.getByTestId(`balance-${mine}`)).toHaveText('+2');
    await expect(page.getByTestId('balance-meaning')).toHaveText('(you sent 2 clicks more than you received: the exchange owes you 2 clicks)');
    await page.getByRole('tab', { name: 'Ledger' }).click();
    await expect(page.getByTestId('chart-ledger-totals')).toHaveText('Clicks you sent: 3 · Clicks you received: 1');
    await expect(page.getByTestId('ledger-table').locator('tbody tr').last().locator('td').last()).toHaveText('2');
    await expect(page.getByTestId('ledger-conversions').last()).toHaveText('1');
    await screenshot(page, '50-exchange-ledger');

    await page.getByRole('menuitem', { name: 'Exchange' }).click();
    await expect(page.locator('tr', { hasText: 'Puzzle cross-promo' }).getByTestId(`balance-${mine}`)).toHaveText('+2');
    await screenshot(page, '51-exchange-list');

    await page.getByRole('menuitem', { name: 'Dashboard' }).click();
    await expect(page.getByTestId('figure-clicks-sent')).toHaveText('3');
    await expect(page.getByTestId('figure-clicks-received')).toHaveText('1');
    await expect(page.getByTestId('figure-balance')).toHaveText('2');
    await screenshot(page, '52-partner-dashboard');
  });
});
