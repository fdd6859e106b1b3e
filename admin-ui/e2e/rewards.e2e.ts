import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { apiData, campaignBody, createAccount, expectNoProblems, login, screenshot, traffic, untilServed, waitFor, watchProblems } from './support/harness';

/** The publisher's reward endpoint: records each call and answers 200. */
function receiver(): Promise<{ server: Server; url: string; calls: { headers: IncomingHttpHeaders; body: Record<string, unknown> }[] }> {
  const calls: { headers: IncomingHttpHeaders; body: Record<string, unknown> }[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      calls.push({ headers: request.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
      response.writeHead(200).end('ok');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/reward`, calls })),
  );
}

test.describe('rewarded ad blocks', () => {
  test('should set a block rewarded in its form, list its rewards in the Rewards tab, and send a test call and a replay', async ({ page }) => {
    const hook = await receiver();
    try {
      const publisher = await createAccount(['publisher']);
      const advertiser = await createAccount(['advertiser']);
      const problems = watchProblems(page);
      await login(page, publisher.apiKey);
      await page.getByRole('menuitem', { name: 'Ad blocks' }).click();
      await page.getByRole('link', { name: 'Create' }).click();
      await page.locator('input[name="name"]').fill('Extra life');
      await page.getByLabel('Format').click();
      await page.getByRole('option', { name: 'Rewarded' }).click();
      await page.locator('input[name="rewardUrl"]').fill(hook.url);
      await page.locator('input[name="minViewMs"]').fill('5000');
      await page.locator('input[name="dailyRewardCap"]').fill('3');
      await page.getByRole('button', { name: 'Save' }).click();
      await expect(page).toHaveURL(/#\/adBlocks\/[^/]+\/show$/);
      const adBlockId = decodeURIComponent(page.url().split('/adBlocks/')[1].split('/')[0]);
      expect(await apiData(`/api/v2/openapi/ad/block/detail?adBlockId=${adBlockId}`, publisher.apiKey)).toMatchObject({
        format: 'rewarded',
        rewardUrl: hook.url,
        minViewMs: 5000,
        dailyRewardCap: 3,
      });

      // a user watches an ad to the end: reported until the block's 5 s have passed on the service's clock
      const { campaignId } = await apiData(
        '/api/v2/openapi/ad/campaign/create',
        advertiser.apiKey,
        campaignBody('Rewarded campaign', {
          // the suite's other specs leave campaigns running on the same server: this one must rank first on the block
          bidding: { billingType: 'CPM', costPer: 95 },
        }),
      );
      await untilServed(publisher.apiKey, adBlockId, campaignId);
      const [served] = await traffic(publisher.apiKey, adBlockId, 1, 0, campaignId);
      const complete = () =>
        apiData('/api/v2/openapi/ad/event/report', publisher.apiKey, {
          eventType: 'complete',
          eventData: { adBlockId, messengerUserId: served.openId, adId: served.adId, campaignId },
        });
      await waitFor(complete, (answer: { msg: string }) => answer.msg === 'completion counted', 'the completion to count');
      await waitFor(
        async () => hook.calls.length,
        (count) => count === 1,
        'the reward callback',
      );
      const eventId = hook.calls[0].body.eventId as string;
      expect(hook.calls[0].body).toMatchObject({ eventType: 'complete', adBlockId, messengerUserId: served.openId, campaignId });

      await page.getByRole('tab', { name: 'Rewards' }).click();
      const row = page.getByTestId('reward-row');
      await expect(row).toHaveCount(1);
      await expect(row).toContainText(eventId);
      await expect(row).toContainText('delivered');
      await expect(row).toContainText('200');
      await screenshot(page, '24-ad-block-rewards');

      await page.getByTestId('reward-test').click();
      await expect(page.getByTestId('reward-test-result')).toContainText('HTTP 200');
      await waitFor(
        async () => hook.calls.length,
        (count) => count === 2,
        'the test call',
      );
      expect(hook.calls[1].body).toMatchObject({ eventType: 'test', adBlockId });

      await row.getByRole('button', { name: 'Replay' }).click();
      await expect(page.getByText('Reward callback queued again')).toBeVisible();
      await waitFor(
        async () => hook.calls.filter((call) => call.body.eventId === eventId).length,
        (count) => count === 2,
        'the replay',
      );
      await waitFor(
        async () => (await apiData(`/api/v2/openapi/ad/block/rewards?adBlockId=${adBlockId}`, publisher.apiKey)).rewards[0],
        (reward: { status: string; attempts: number }) => reward.status === 'delivered' && reward.attempts === 2,
        'the replay logged',
      );
      await page.getByTestId('rewards-reload').click();
      await expect(row.locator('td').nth(4)).toHaveText('2');
      await expectNoProblems(page, problems);
    } finally {
      await new Promise<void>((resolve) => hook.server.close(() => resolve()));
    }
  });
});
