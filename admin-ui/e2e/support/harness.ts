import { expect, type Page } from '@playwright/test';
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCREENSHOTS = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test-results', 'admin-ui');

export const baseUrl = () => process.env.ADMIN_E2E_BASE_URL!;
export const adminKey = () => process.env.ADMIN_E2E_KEY!;
export const creatives = () => process.env.ADMIN_E2E_CREATIVES!;

/** Node's own agent (`node`) is a known HTTP library: the service would take the specs' ad traffic for a bot's. */
export const BROWSER_USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

/** Calls the API directly (setting up data, checking what the panel stored), as a browser would. */
export async function api(path: string, apiKey: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(baseUrl() + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      'x-api-key': apiKey,
      'user-agent': BROWSER_USER_AGENT,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json();
  return { status: response.status, body: json };
}

export async function apiData(path: string, apiKey: string, body?: unknown, headers: Record<string, string> = {}) {
  const { status, body: json } = await api(path, apiKey, body, headers);
  if (status !== 200) throw new Error(`${path} answered ${status}: ${JSON.stringify(json)}`);
  return json.data ?? json;
}

let counter = 0;
/** A new account with its first key, made through the admin API. */
export async function createAccount(roles: string[], name = `${roles.join('+')} ${Date.now()}-${++counter}`) {
  const { accountId, apiKey } = await apiData('/api/v2/admin/accounts', adminKey(), { name, roles });
  return { accountId, apiKey, name };
}

export async function login(page: Page, apiKey: string) {
  await page.goto(`${baseUrl()}/admin/`);
  await page.locator('input[name="apiKey"]').fill(apiKey);
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page.getByRole('heading', { name: 'Dashboard' }).or(page.locator('#react-admin-title'))).toBeVisible();
}

export async function screenshot(page: Page, name: string) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  // Let charts and images settle.
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Serves ads of a block `times` times (to distinct US users) and clicks `clicks` of those of `campaignId`. */
export async function traffic(publisherKey: string, adBlockId: string, times: number, clicks: number, campaignId?: string) {
  const served: { campaignId: string; adId: string; openId: string }[] = [];
  let totalAds = 0;
  for (let index = 0; index < times; index++) {
    const openId = `user-${Date.now()}-${index}`;
    const data = await apiData(
      `/api/v2/openapi/matching/ad?adBlockId=${adBlockId}&openId=${openId}&type=messenger&limit=9`,
      publisherKey,
      undefined,
      // An English-speaking US user on a residential network (Comcast; the server trusts X-Forwarded-For in these
      // runs). A data centre's address such as 8.8.8.8 would make the traffic invalid, never billed.
      { 'x-forwarded-for': '73.162.10.20', 'accept-language': 'en-US,en;q=0.8' },
    );
    totalAds += data.ads.length;
    for (const ad of data.ads) {
      if (!campaignId || ad.campaignId === campaignId) served.push({ campaignId: ad.campaignId, adId: ad.adId, openId });
    }
  }
  for (const ad of served.slice(0, clicks)) {
    await apiData('/api/v2/openapi/ad/event/report', publisherKey, {
      eventType: 'click',
      eventData: { adBlockId, messengerUserId: ad.openId, adId: ad.adId, campaignId: ad.campaignId },
    });
  }
  // totalAds: every ad served on the block (other specs' campaigns too), i.e. the block's new impressions.
  return Object.assign(served, { totalAds });
}

/** The ton-ai-sdk's salt in its md5 `sign`: each char code of `Ton.AI` times three, in hex (src/compat/sdk-sign.ts). */
const SDK_SALT = [...'Ton.AI'].map((char) => (char.charCodeAt(0) * 3).toString(16)).join('');

/**
 * Reports the ton-ai-sdk's `impression` event for each served ad, signed as the SDK signs it: a view (`views`), at most
 * one per served impression (docs/SWITCHING_FROM_TON_AI.md).
 */
export async function views(publisherKey: string, adBlockId: string, served: { campaignId: string; adId: string; openId: string }[]) {
  for (const ad of served) {
    const eventData: Record<string, string | number> = {
      campaignId: ad.campaignId,
      adId: ad.adId,
      adBlockId,
      type: 'telegram',
      openId: ad.openId,
      uuid: '2854123301',
      timestamp: Date.now(),
    };
    const signed = Object.keys(eventData)
      .sort()
      .map((name) => `${name}=${eventData[name]}`)
      .join('&');
    const sign = createHash('md5').update(`${signed}&appKey=${publisherKey}&salt=${SDK_SALT}`).digest('hex');
    const answer = await apiData('/api/v2/ad/report/event', publisherKey, { eventType: 'impression', eventData, sign });
    expect(answer.msg).toBe('view counted');
  }
}

export function campaignBody(name: string, extra: Record<string, unknown> = {}) {
  const now = Date.now();
  return {
    name,
    targeting: {},
    budget: { amount: 50, total: 500, strategy: 'daily', startTime: now - 3_600_000, endTime: now + 30 * 86_400_000 },
    bidding: { billingType: 'CPM', costPer: 4 },
    ad: {
      adFormat: 'image',
      popupImage: `${creatives()}/ad.svg`,
      icon: `${creatives()}/icon.svg`,
      destination: { actionType: 'visit.website', url: 'https://example.com/landing' },
      text: 'Play the best puzzle game',
      brandName: 'Acme Games',
      buttonText: 'Play now',
    },
    ...extra,
  };
}

/** Waits until the API's figure reaches a value (impression counters are written every STATS_FLUSH_MS). */
export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: last ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Waits until serving answers the campaign (a new campaign reaches each process's index through a change notice
 * a few ms later). Each probe is a real ad request, so it adds an impression to the block.
 */
export async function untilServed(publisherKey: string, adBlockId: string, campaignId: string): Promise<void> {
  await waitFor(
    async () => (await traffic(publisherKey, adBlockId, 1, 0, campaignId)).length,
    (count) => count > 0,
    `campaign ${campaignId} to be served`,
  );
}

/**
 * Collects what must never happen while the panel is used: a console error, an uncaught error, a request answered
 * 4xx/5xx or failing on the network (a navigation's cancelled requests aside). Register before the first `goto`.
 */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
  page.on('requestfailed', (request) => {
    const reason = request.failure()?.errorText;
    if (reason !== 'net::ERR_ABORTED') problems.push(`failed ${request.method()} ${request.url()}: ${reason}`);
  });
  return problems;
}

/** No error boundary on screen, and nothing collected by watchProblems. */
export async function expectNoProblems(page: Page, problems: string[]) {
  await expect(page.getByTestId('page-error')).toHaveCount(0);
  await expect(page.getByText('Something went wrong')).toHaveCount(0);
  expect(problems).toEqual([]);
}
