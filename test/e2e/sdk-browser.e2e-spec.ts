import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { listen, SDK_DIR } from '../support/sdk';
import { newUser } from '../support/serving-fixtures';
import { flushStats, refreshIndex, campaignDetail } from '../support/serving-helpers';
import { BROWSER_USER_AGENT, startTestApp, TestApp } from '../support/test-app';
import { openCampaign, createCampaign, createAdBlock, createAccount } from '../support/factories';

/** Debian's Chromium, as the admin panel's browser e2e uses it; test/run-all.js leaves this spec out without it (unless CI). */
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ESM_BUILD = join(SDK_DIR, 'dist', 'esm');

/**
 * A publisher's page: loads the built ESM bundle as a browser would (no bundler), fetches an ad for the user with
 * a publishable key and shows it; a click on it reports the click. Every outcome is listed in #log.
 */
const TEST_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Publisher page</title></head>
<body>
<ul id="log"></ul>
<script type="module">
  import { AdnetPublisher, AdnetError } from '/sdk/index.js';
  const params = new URLSearchParams(location.search);
  const user = params.get('user');
  const adnet = new AdnetPublisher({ baseUrl: params.get('api'), apiKey: params.get('key') });
  const log = (entry) => {
    const item = document.createElement('li');
    item.textContent = JSON.stringify(entry);
    document.getElementById('log').append(item);
  };
  try {
    const ad = await adnet.getAd({ adBlockId: params.get('block'), openId: user });
    const button = document.createElement('button');
    button.id = 'ad';
    button.textContent = ad.text;
    button.addEventListener('click', () =>
      adnet.reportClick(ad, user).then((result) => log({ click: result }), (error) => log({ error: error.message, status: error.status })),
    );
    document.body.append(button);
    log({ served: ad.campaignId, isAdnetError: new AdnetError({ status: 400, message: 'x' }) instanceof Error });
  } catch (error) {
    log({ error: error.message, status: error.status });
  }
</script>
</body>
</html>`;

const CONTENT_TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.html': 'text/html; charset=utf-8' };

/** The publisher's web server: the test page and the SDK's ESM build under /sdk/. */
async function startPageServer(): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path === '/') return void response.writeHead(200, { 'content-type': CONTENT_TYPES['.html'] }).end(TEST_PAGE);
    if (path.startsWith('/sdk/')) {
      const file = normalize(join(ESM_BUILD, decodeURIComponent(path.slice('/sdk/'.length))));
      if (file.startsWith(ESM_BUILD + sep) && existsSync(file)) {
        return void response.writeHead(200, { 'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
      }
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

describe('SDK (built ESM bundle) in a browser: a publisher page fetches an ad and reports a click', () => {
  let t: TestApp;
  let apiUrl: string;
  let pageServer: Server;
  let pageOrigin: string;
  let browser: Browser;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
    t = await startTestApp();
    apiUrl = await listen(t);
    pageServer = await startPageServer();
    pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
  });
  afterAll(async () => {
    await browser?.close();
    if (pageServer) await new Promise((resolve) => pageServer.close(resolve));
    await t?.close();
  });

  /** The page's log entries once there are `count` of them. */
  async function logEntries(page: Page, count: number): Promise<Record<string, unknown>[]> {
    await page
      .locator('#log li')
      .nth(count - 1)
      .waitFor();
    return (await page.locator('#log li').allTextContents()).map((text) => JSON.parse(text) as Record<string, unknown>);
  }

  it('counts exactly one click for a double click, with a serve key limited to the page origin', async () => {
    const advertiser = await createAccount(t, ['advertiser'], 'browser advertiser');
    const publisher = await createAccount(t, ['publisher'], 'browser publisher');
    const campaignId = await createCampaign(t, advertiser.apiKey, openCampaign({ name: 'Browser CPC', bidding: { billingType: 'CPC', costPer: 0.25 } }));
    await refreshIndex(t);
    const adBlockId = await createAdBlock(t, publisher.apiKey, 'Browser block');
    const serveKey = await t
      .http()
      .post('/api/v2/openapi/account/keys')
      .set('x-api-key', publisher.apiKey)
      .send({ scope: 'serve', label: 'page', allowedOrigins: [pageOrigin] })
      .expect(200);

    // A headless Chromium names itself HeadlessChrome, which the service rightly takes for a bot.
    const context = await browser.newContext({ userAgent: BROWSER_USER_AGENT });
    const page = await context.newPage();
    const clickReports: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url() === `${apiUrl}/api/v2/openapi/ad/event/report`) clickReports.push(request.url());
    });
    const user = newUser('browser');
    const query = new URLSearchParams({ api: apiUrl, key: serveKey.body.data.apiKey, block: adBlockId, user });
    await page.goto(`${pageOrigin}/?${query}`);

    expect(await logEntries(page, 1)).toEqual([{ served: campaignId, isAdnetError: true }]);
    await page.locator('#ad').dblclick();
    await page.locator('#ad').click();
    const entries = await logEntries(page, 4);
    const clicked = { click: { status: 'success', msg: 'click counted' } };
    expect(entries).toEqual([{ served: campaignId, isAdnetError: true }, clicked, clicked, clicked]);
    expect(clickReports).toHaveLength(1);
    await context.close();

    await flushStats(t);
    expect(await campaignDetail(t, campaignId)).toMatchObject({ impressions: 1, clicks: 1, invalidClicks: 0, invalidImpressions: 0, cost: 0.25 });
  });

  it('shows the service refusal to a page of another origin as an AdnetError', async () => {
    const publisher = await createAccount(t, ['publisher'], 'origin-bound publisher');
    const adBlockId = await createAdBlock(t, publisher.apiKey, 'Bound block');
    const serveKey = await t
      .http()
      .post('/api/v2/openapi/account/keys')
      .set('x-api-key', publisher.apiKey)
      .send({ scope: 'serve', allowedOrigins: ['https://publisher.example'] })
      .expect(200);
    const context = await browser.newContext({ userAgent: BROWSER_USER_AGENT });
    const page = await context.newPage();
    const query = new URLSearchParams({ api: apiUrl, key: serveKey.body.data.apiKey, block: adBlockId, user: newUser('browser') });
    await page.goto(`${pageOrigin}/?${query}`);
    const [entry] = await logEntries(page, 1);
    expect(entry).toMatchObject({ status: 403 });
    expect(entry.error).toEqual(expect.stringContaining('origin'));
    await context.close();
  });
});
