/**
 * The real `ton-ai-sdk` 2.2.2 popup (TonAdPopupShow: its countdown, then `complete`) on a rewarded block ends in exactly
 * one signed reward callback (docs/REWARDED_ADS.md). The browser runs the SDK's seconds fast (SDK_SECOND_MS); the
 * service's clock here runs as fast, so the countdown lasts as long for the service as for the user.
 */
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Clock } from '../../src/common/clock';
import { TEST_PROFILE } from '../support/profile';
import { RewardReceiver, waitFor } from '../support/reward-receiver';
import { blockDetail, createServable } from '../support/serving-fixtures';
import { callback, MiniAppBrowser, MINI_APP_ORIGIN } from '../support/ton-ai-sdk-browser';
import { startTestApp, TestApp } from '../support/test-app';
import { openCampaign, createAccount } from '../support/factories';

/** Real milliseconds per second of the SDK's countdowns in the mini app's browser. */
const SDK_SECOND_MS = 20;

/** Time as the mini app's browser sees it: one real millisecond is 1000 / SDK_SECOND_MS of the service's. */
class BrowserPacedClock extends Clock {
  private readonly start = Date.now();

  override now(): number {
    return this.start + Math.floor(((Date.now() - this.start) * 1000) / SDK_SECOND_MS);
  }
}

describe(`ton-ai-sdk 2.2.2 popup on a rewarded block [${TEST_PROFILE}]`, () => {
  let t: TestApp;
  let receiver: RewardReceiver;
  let browser: MiniAppBrowser;

  beforeAll(async () => {
    receiver = await new RewardReceiver().start();
    t = await startTestApp({ VERIFICATION_ALLOW_PRIVATE: 'true' }, { clock: new BrowserPacedClock() });
    await t.app.listen(0, '127.0.0.1');
    browser = new MiniAppBrowser((t.app.getHttpServer().address() as AddressInfo).port, { sdkSecondMs: SDK_SECOND_MS });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver.close();
  });

  it("should send one signed reward callback for the popup's complete, and none for a repeat", async () => {
    const port = (t.app.getHttpServer().address() as AddressInfo).port;
    const publisher = await createAccount(t, ['publisher'], 'Rewarded mini app');
    const advertiser = await createAccount(t, ['advertiser'], 'Acme Games');
    const serveKey = (
      await t
        .http()
        .post('/api/v2/openapi/account/keys')
        .set('x-api-key', publisher.apiKey)
        .send({ scope: 'serve', allowedOrigins: [MINI_APP_ORIGIN] })
        .expect(200)
    ).body.data as { keyId: string };
    const adBlockId = (
      await t
        .http()
        .post('/api/v2/openapi/ad/block/create')
        .set('x-api-key', publisher.apiKey)
        .send({ name: 'Extra life', format: 'rewarded', rewardUrl: receiver.url('/ok'), minViewMs: 5000 })
        .expect(200)
    ).body.data.adBlockId as string;
    const campaignId = await createServable(t, advertiser.apiKey, openCampaign({ bidding: { billingType: 'CPM', costPer: 2 } }, t.app.get(Clock).now()));
    const user = '7012345678';

    await browser.open(user);
    await browser.call('TonAdInit', [{ appId: serveKey.keyId, baseUrl: `http://ton.ai.localhost:${port}` }]);
    await browser.step(2);
    await browser.call('TonAdPopupShow', [{ blockId: adBlockId, countdown: 10, onAdComplete: callback('complete') }]);
    const made = await browser.step(6);
    expect(made.map((exchange) => exchange.body?.eventType ?? 'ad')).toEqual(['ad', 'impression', 'impression', 'impression', 'impression', 'complete']);
    expect(made[5].response?.data.msg).toBe('completion counted');

    const calls = await waitFor(
      () => receiver.calls.filter((call) => call.body.adBlockId === adBlockId),
      (found) => found.length > 0,
    );
    const [call] = calls;
    expect(call.body).toMatchObject({ eventType: 'complete', adBlockId, messengerUserId: user, openId: user, type: 'messenger', campaignId });
    const secret = (await t.http().get('/api/v2/openapi/account/me').set('x-api-key', publisher.apiKey).expect(200)).body.data.webhookSecret as string;
    const timestamp = call.headers['x-adnet-timestamp'] as string;
    expect(call.headers['x-adnet-signature']).toBe(createHmac('sha256', secret).update(`${timestamp}.${call.rawBody}`).digest('hex'));

    // the SDK's complete sent again for the same impression sends nothing more
    const again = await t
      .http()
      .post('/api/v2/openapi/ad/event/report')
      .set('x-api-key', publisher.apiKey)
      .send({ eventType: 'complete', eventData: { adBlockId, messengerUserId: user, adId: made[5].body!.eventData.adId, campaignId } })
      .expect(200);
    expect(again.body.data.msg).toBe('duplicate completion: not counted again');
    const log = await waitFor(
      async () => (await t.http().get('/api/v2/openapi/ad/block/rewards').query({ adBlockId }).set('x-api-key', publisher.apiKey).expect(200)).body.data,
      (data) => data.total === 1 && data.rewards[0].status === 'delivered',
    );
    expect(log.rewards[0]).toMatchObject({ eventId: call.body.eventId, status: 'delivered', attempts: 1 });
    expect(receiver.calls.filter((received) => received.body.adBlockId === adBlockId)).toHaveLength(1);
    expect((await blockDetail(t, publisher.apiKey, adBlockId)).completions).toBe(1);
  }, 60_000);
});
