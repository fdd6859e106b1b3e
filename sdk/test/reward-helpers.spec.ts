import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { callReward, signReward } from '../../src/rewards/reward-call';
import { rewardBody } from '../../src/rewards/reward-callbacks.service';
import { AdnetPublisher } from '../src/publisher';
import { REWARD_PREVIOUS_SIGNATURE_HEADER, REWARD_SIGNATURE_HEADER, REWARD_TIMESTAMP_HEADER, verifyRewardSignature } from '../src/server';
import type { ServedAd } from '../src/types';
import { envelope, FakeFetch } from './fake-fetch';

const SECRET = 'whsec_0123456789abcdef0123456789abcdef';
const OLD_SECRET = 'whsec_fedcba9876543210fedcba9876543210';
const NOW = Date.UTC(2026, 2, 1, 9, 30, 0);
const BODY = rewardBody({ eventId: 'rw_1', adBlockId: 'b1', messengerUserId: 'ünïcödé-🙂', campaignId: 'c1', adId: 'ad_c1', createdAt: NOW - 1000 });
const headersOf = (timestamp: number, body = BODY, secret = SECRET) => ({
  [REWARD_TIMESTAMP_HEADER]: String(timestamp),
  [REWARD_SIGNATURE_HEADER]: signReward(secret, timestamp, body),
});

describe('verifyRewardSignature against the service signing code', () => {
  it('accepts what the service signs, from a string, bytes, Node headers or fetch Headers', () => {
    const headers = headersOf(NOW);
    expect(verifyRewardSignature(BODY, headers, SECRET, { now: NOW })).toBe(true);
    expect(verifyRewardSignature(Buffer.from(BODY, 'utf8'), headers, SECRET, { now: NOW })).toBe(true);
    expect(verifyRewardSignature(new TextEncoder().encode(BODY), new Headers(headers), SECRET, { now: NOW })).toBe(true);
    expect(verifyRewardSignature(BODY, { ...headers, [REWARD_SIGNATURE_HEADER]: headers[REWARD_SIGNATURE_HEADER].toUpperCase() }, SECRET, { now: NOW })).toBe(
      true,
    );
  });

  it('refuses another secret, an altered body, timestamp or signature', () => {
    const headers = headersOf(NOW);
    expect(verifyRewardSignature(BODY, headers, `${SECRET}x`, { now: NOW })).toBe(false);
    expect(verifyRewardSignature(BODY.replace('"c1"', '"c2"'), headers, SECRET, { now: NOW })).toBe(false);
    expect(verifyRewardSignature(JSON.stringify(JSON.parse(BODY), null, 1), headers, SECRET, { now: NOW })).toBe(false);
    expect(verifyRewardSignature(BODY, { ...headers, [REWARD_TIMESTAMP_HEADER]: String(NOW + 1) }, SECRET, { now: NOW })).toBe(false);
    const signature = headers[REWARD_SIGNATURE_HEADER];
    const altered = (signature[0] === 'a' ? 'b' : 'a') + signature.slice(1);
    expect(verifyRewardSignature(BODY, { ...headers, [REWARD_SIGNATURE_HEADER]: altered }, SECRET, { now: NOW })).toBe(false);
  });

  it('refuses a missing or malformed header and a timestamp outside the tolerance, without throwing', () => {
    const headers = headersOf(NOW);
    expect(verifyRewardSignature(BODY, {}, SECRET, { now: NOW })).toBe(false);
    expect(verifyRewardSignature(BODY, { [REWARD_TIMESTAMP_HEADER]: String(NOW) }, SECRET, { now: NOW })).toBe(false);
    expect(verifyRewardSignature(BODY, { ...headers, [REWARD_SIGNATURE_HEADER]: 'zz'.repeat(32) }, SECRET, { now: NOW })).toBe(false);
    expect(verifyRewardSignature(BODY, { ...headers, [REWARD_SIGNATURE_HEADER]: headers[REWARD_SIGNATURE_HEADER].slice(2) }, SECRET, { now: NOW })).toBe(false);
    expect(verifyRewardSignature(BODY, { ...headers, [REWARD_TIMESTAMP_HEADER]: '1.7e12' }, SECRET, { now: NOW })).toBe(false);
    expect(verifyRewardSignature(BODY, headers, SECRET, { now: NOW + 5 * 60 * 1000 })).toBe(true);
    expect(verifyRewardSignature(BODY, headers, SECRET, { now: NOW + 5 * 60 * 1000 + 1 })).toBe(false);
    expect(verifyRewardSignature(BODY, headers, SECRET, { now: NOW - 5 * 60 * 1000 - 1 })).toBe(false);
    expect(verifyRewardSignature(BODY, headers, SECRET, { now: NOW + 60 * 60 * 1000, toleranceMs: 2 * 60 * 60 * 1000 })).toBe(true);
  });

  it('accepts the previous-secret header after a rotation, with the old secret or any of several', () => {
    const headers = { ...headersOf(NOW), [REWARD_PREVIOUS_SIGNATURE_HEADER]: signReward(OLD_SECRET, NOW, BODY) };
    expect(verifyRewardSignature(BODY, headers, OLD_SECRET, { now: NOW })).toBe(true);
    expect(verifyRewardSignature(BODY, headers, [OLD_SECRET, SECRET], { now: NOW })).toBe(true);
    expect(verifyRewardSignature(BODY, headersOf(NOW), OLD_SECRET, { now: NOW })).toBe(false);
  });

  describe("a real callback, as the service's worker sends it", () => {
    let server: Server;
    let url: string;
    const received: boolean[] = [];
    beforeAll(async () => {
      server = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          const valid = verifyRewardSignature(Buffer.concat(chunks), request.headers, SECRET);
          received.push(valid);
          response.writeHead(valid ? 200 : 401).end();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/reward`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('verifies with the current secret, and with the old one through the previous-secret header', async () => {
      const call = (secret: string, previousSecret: string | null) =>
        callReward({ url, rawBody: BODY, secret, previousSecret, timestamp: Date.now(), timeoutMs: 5000, allowPrivate: true });
      expect(await call(SECRET, null)).toMatchObject({ delivered: true, statusCode: 200 });
      expect(await call('a new secret', SECRET)).toMatchObject({ delivered: true, statusCode: 200 });
      expect(await call('another secret', null)).toMatchObject({ delivered: false, statusCode: 401, error: 'HTTP 401' });
      expect(received).toEqual([true, true, false]);
    });
  });
});

describe('AdnetPublisher.reportComplete', () => {
  const BASE = 'https://ads.example.test';
  const ad = (campaignId: string): ServedAd => ({
    adBlockId: 'block-1',
    adId: `ad_${campaignId}`,
    campaignId,
    icon: 'https://cdn.example.test/icon.png',
    image: 'https://cdn.example.test/ad.png',
    text: 'Play now',
    destination: { actionType: 'visit.website', url: 'https://example.test' },
  });
  const served = (...ads: ServedAd[]) => envelope({ msg: `${ads.length} ads`, success: true, ads });
  const answer = (msg: string) => envelope({ status: 'success', msg });
  const TOO_SOON = "completion not counted: sooner than the block's minViewMs after the ad was served";
  const publisher = (fake: FakeFetch) => new AdnetPublisher({ baseUrl: BASE, apiKey: 'adn_serve', fetch: fake.fetch, random: () => 0.5 });

  it('reports the completion for the user the ad was fetched for, once per impression', async () => {
    const fake = new FakeFetch().answer(served(ad('c1')), answer('completion counted'));
    const client = publisher(fake);
    const [first] = await client.getAds({ adBlockId: 'block-1', openId: 'u1' });
    await expect(client.reportComplete(first)).resolves.toEqual({ status: 'success', msg: 'completion counted' });
    await expect(client.reportComplete(first)).resolves.toEqual({ status: 'success', msg: 'completion counted' });
    expect(fake.calls.filter((call) => call.method === 'POST')).toHaveLength(1);
    expect(fake.calls[1].url.pathname).toBe('/api/v2/openapi/ad/event/report');
    expect(fake.bodies()[1]).toEqual({ eventType: 'complete', eventData: { adBlockId: 'block-1', messengerUserId: 'u1', adId: 'ad_c1', campaignId: 'c1' } });
  });

  it('sends a report the service found too early again later', async () => {
    const fake = new FakeFetch().answer(served(ad('c1')), answer(TOO_SOON), answer('completion counted'));
    const client = publisher(fake);
    const [first] = await client.getAds({ adBlockId: 'block-1', openId: 'u1' });
    await expect(client.reportComplete(first)).resolves.toMatchObject({ msg: TOO_SOON });
    await expect(client.reportComplete(first)).resolves.toMatchObject({ msg: 'completion counted' });
    await client.reportComplete(first);
    expect(fake.calls.filter((call) => call.method === 'POST')).toHaveLength(2);
  });

  it('takes the user of an ad it did not fetch, and refuses without one', async () => {
    const fake = new FakeFetch().answer(answer('completion counted'));
    const client = publisher(fake);
    await expect(client.reportComplete(ad('c2'))).rejects.toThrow(TypeError);
    await expect(client.reportComplete(ad('c2'), 'u9')).resolves.toMatchObject({ msg: 'completion counted' });
    expect(fake.bodies()[0]).toMatchObject({ eventType: 'complete', eventData: { messengerUserId: 'u9' } });
  });
});
