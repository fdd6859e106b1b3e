import { expect, test, type Page } from '@playwright/test';
import { adminKey, apiData, campaignBody, createAccount, creatives, expectNoProblems, login, screenshot, watchProblems } from './support/harness';

/** A laptop's window and a phone's: every page of every role must fit them, its actions in reach. */
const WINDOWS = [
  { name: 'laptop', phone: false, viewport: { width: 1366, height: 768 } },
  { name: 'phone', phone: true, viewport: { width: 390, height: 844 } },
];

/** How far the page reaches past the window's right edge (0 when it fits). */
const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** The menu entries that open a list of records (each role sees those of its resources). */
const LISTS = ['Campaigns', 'Ad blocks', 'Exchange', 'Accounts'];

async function menuEntries(page: Page, phone: boolean): Promise<string[]> {
  if (phone) await page.getByRole('button', { name: 'Open menu' }).click();
  const entries = (await page.getByRole('menuitem').allInnerTexts()).map((text) => text.trim()).filter(Boolean);
  if (phone) await page.keyboard.press('Escape');
  return entries;
}

async function openEntry(page: Page, entry: string, phone: boolean) {
  if (phone) await page.getByRole('button', { name: 'Open menu' }).click();
  await page.getByRole('menuitem', { name: entry, exact: true }).click();
  await page.waitForLoadState('networkidle');
}

async function expectFits(page: Page, where: string) {
  expect({ where, overflow: await overflow(page) }).toEqual({ where, overflow: 0 });
}

/**
 * Every menu entry of the role: the page fits the window, a list's Create is in view, and its first row opens a show
 * page that fits too; Back returns to the list scrolled to its left edge, the menu in reach.
 */
async function walkEveryEntry(page: Page, phone: boolean, shots: string) {
  const problems = watchProblems(page);
  const entries = await menuEntries(page, phone);
  expect(entries.length).toBeGreaterThan(2);
  for (const entry of entries) {
    await openEntry(page, entry, phone);
    await expectFits(page, entry);
    const create = page.getByRole('link', { name: 'Create', exact: true });
    if ((await create.count()) > 0) await expect(create.first()).toBeInViewport();
    // a table's rows on a laptop, the one-column list's links on a phone
    const rows = page.locator('#main-content .RaDatagrid-root tbody tr, #main-content li a[href$="/show"]');
    if (LISTS.includes(entry)) {
      await expect(rows.first()).toBeVisible();
      await screenshot(page, `${shots}-${entry.toLowerCase().replace(/\W+/g, '-')}`);
      await rows.first().click();
      await expect(page).toHaveURL(/\/show$/);
      await page.waitForLoadState('networkidle');
      await expectFits(page, `${entry}: first row`);
      await page.goBack();
      await expect(rows.first()).toBeVisible();
      expect(await page.evaluate(() => window.scrollX)).toBe(0);
      await expectFits(page, `${entry}: back`);
    }
  }
  await expectNoProblems(page, problems);
}

for (const window of WINDOWS) {
  test.describe(`every page fits a ${window.viewport.width} × ${window.viewport.height} window (${window.name})`, () => {
    test.use({ viewport: window.viewport });

    test('for an advertiser with a campaign', async ({ page }) => {
      const advertiser = await createAccount(['advertiser']);
      await apiData(
        '/api/v2/openapi/ad/campaign/create',
        advertiser.apiKey,
        campaignBody(`A campaign with a rather long name to wrap ${advertiser.accountId}`),
      );
      await login(page, advertiser.apiKey);
      await walkEveryEntry(page, window.phone, `80-${window.name}-advertiser`);
    });

    test('for a publisher with an ad block', async ({ page }) => {
      const publisher = await createAccount(['publisher']);
      await apiData('/api/v2/openapi/ad/block/create', publisher.apiKey, { name: `Fit block ${publisher.accountId}` });
      await login(page, publisher.apiKey);
      await walkEveryEntry(page, window.phone, `81-${window.name}-publisher`);
    });

    test('for a partner with an exchange campaign', async ({ page }) => {
      const partner = await createAccount(['partner']);
      await apiData('/api/v2/openapi/exchange/campaign/create', partner.apiKey, {
        name: `Fit exchange ${partner.accountId}`,
        icon: `${creatives()}/icon.svg`,
        text: 'Trade clicks with us',
        destination: { actionType: 'open.miniapp', url: 'https://t.me/fit_bot/app' },
      });
      await login(page, partner.apiKey);
      await walkEveryEntry(page, window.phone, `82-${window.name}-partner`);
    });

    test('for an admin, over every resource', async ({ page }) => {
      await login(page, adminKey());
      await walkEveryEntry(page, window.phone, `83-${window.name}-admin`);
    });
  });
}
