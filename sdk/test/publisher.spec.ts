import { AdnetError, AdnetNetworkError } from '../src/errors';
import { AdnetPublisher, type PublisherOptions } from '../src/publisher';
import type { ExchangeEntry, ServedAd } from '../src/types';
import { envelope, failure, FakeFetch, json } from './fake-fetch';

const BASE = 'https://ads.example.test';
const clicked = () => envelope({ status: 'success', msg: 'click counted' });

function ad(campaignId: string, adBlockId = 'block-1'): ServedAd {
  return {
    adBlockId,
    adId: `ad_${campaignId}`,
    campaignId,
    icon: 'https://cdn.example.test/icon.png',
    image: 'https://cdn.example.test/ad.png',
    text: 'Play now',
    destination: { actionType: 'visit.website', url: 'https://example.test' },
  };
}

const served = (...ads: ServedAd[]) => envelope({ msg: `${ads.length} ads`, success: true, ads });

function publisher(fake: FakeFetch, options: Partial<PublisherOptions> = {}) {
  return new AdnetPublisher({ baseUrl: BASE, apiKey: 'adn_serve', fetch: fake.fetch, random: () => 0.5, ...options });
}

describe('AdnetPublisher: ads', () => {
  it('fetches ads for a user on a block with type=messenger and the limit', async () => {
    const fake = new FakeFetch().answer(served(ad('c1'), ad('c2')));
    const ads = await publisher(fake).getAds({ adBlockId: 'block-1', openId: 'user 1', limit: 2 });
    expect(ads.map((item) => item.campaignId)).toEqual(['c1', 'c2']);
    const url = fake.calls[0].url;
    expect(url.pathname).toBe('/api/v2/openapi/matching/ad');
    expect(Object.fromEntries(url.searchParams)).toEqual({ adBlockId: 'block-1', openId: 'user 1', type: 'messenger', limit: '2' });
    expect(fake.calls[0].headers['x-api-key']).toBe('adn_serve');
    expect(fake.calls[0].headers).not.toHaveProperty('x-adnet-viewer');
    expect(fake.calls[0].headers).not.toHaveProperty('debug');
  });

  it('getAd answers one ad, or null when none matches', async () => {
    const fake = new FakeFetch().answer(served(ad('c1')), served());
    const client = publisher(fake);
    await expect(client.getAd({ adBlockId: 'block-1', openId: 'u' })).resolves.toMatchObject({ campaignId: 'c1' });
    await expect(client.getAd({ adBlockId: 'block-1', openId: 'u' })).resolves.toBeNull();
    expect(fake.calls.map((call) => call.url.searchParams.get('limit'))).toEqual(['1', '1']);
  });

  it('sends the signed-viewer token, from the call or made by the client option, and the debug header', async () => {
    const fake = new FakeFetch().answer(served(), served());
    const viewerToken = jest.fn(async (openId: string) => `${openId}.123.token`);
    const client = publisher(fake, { viewerToken });
    await client.getAds({ adBlockId: 'b', openId: 'u1' });
    await client.getAds({ adBlockId: 'b', openId: 'u2', viewerToken: 'given', debug: true });
    expect(viewerToken.mock.calls).toEqual([['u1']]);
    expect(fake.calls[0].headers['x-adnet-viewer']).toBe('u1.123.token');
    expect(fake.calls[1].headers['x-adnet-viewer']).toBe('given');
    expect(fake.calls[1].headers.debug).toBe('true');
  });

  it('does not repeat an ad fetch that got no answer or a 5xx: it may have billed impressions', async () => {
    const fake = new FakeFetch().answer(failure(503, 'not answered in time'));
    await expect(publisher(fake).getAds({ adBlockId: 'b', openId: 'u' })).rejects.toMatchObject({ status: 503 });
    expect(fake.calls).toHaveLength(1);
  });

  it('maps the signed-viewer refusal to an AdnetError naming the header', async () => {
    const message = 'x-adnet-viewer header has expired';
    const fake = new FakeFetch().answer(failure(401, message, [{ field: 'x-adnet-viewer', message: 'has expired' }]));
    const error = (await publisher(fake)
      .getAds({ adBlockId: 'b', openId: 'u', viewerToken: 'u.1.x' })
      .catch((caught: unknown) => caught)) as AdnetError;
    expect(error).toMatchObject({ status: 401, message });
    expect(error.fieldError('x-adnet-viewer')).toBe('has expired');
  });
});

describe('AdnetPublisher: clicks are reported once', () => {
  it('reports the click with the ad ids and the user', async () => {
    const fake = new FakeFetch().answer(served(ad('c1')), clicked());
    const client = publisher(fake);
    const [first] = await client.getAds({ adBlockId: 'block-1', openId: 'u1' });
    await expect(client.reportClick(first, 'u1')).resolves.toEqual({ status: 'success', msg: 'click counted' });
    expect(fake.calls[1].method).toBe('POST');
    expect(fake.calls[1].url.pathname).toBe('/api/v2/openapi/ad/event/report');
    expect(fake.bodies()[1]).toEqual({ eventType: 'click', eventData: { adBlockId: 'block-1', messengerUserId: 'u1', adId: 'ad_c1', campaignId: 'c1' } });
  });

  it('sends one request for concurrent reports of the same click, and none for a later one', async () => {
    let answerClick!: (response: Response) => void;
    const fake = new FakeFetch().answer(served(ad('c1')), () => new Promise<Response>((resolve) => (answerClick = resolve)));
    const client = publisher(fake);
    const [first] = await client.getAds({ adBlockId: 'block-1', openId: 'u1' });
    const reports = [client.reportClick(first, 'u1'), client.reportClick(first, 'u1'), client.reportClick(first, 'u1')];
    await Promise.resolve();
    answerClick(clicked());
    const results = await Promise.all(reports);
    expect(results).toEqual([results[0], results[0], results[0]]);
    await client.reportClick(first, 'u1');
    expect(fake.calls.filter((call) => call.method === 'POST')).toHaveLength(1);
  });

  it('reports each impression once: a second fetch of the same ad is a new impression with a click of its own', async () => {
    const fake = new FakeFetch().answer(served(ad('c1')), served(ad('c1')), clicked(), clicked());
    const client = publisher(fake);
    const [firstServe] = await client.getAds({ adBlockId: 'block-1', openId: 'u1' });
    const [secondServe] = await client.getAds({ adBlockId: 'block-1', openId: 'u1' });
    await client.reportClick(firstServe, 'u1');
    await client.reportClick(secondServe, 'u1');
    await client.reportClick(firstServe, 'u1');
    await client.reportClick(secondServe, 'u1');
    expect(fake.calls.filter((call) => call.method === 'POST')).toHaveLength(2);
  });

  it('remembers an ad it did not fetch (rebuilt from storage) by its ids', async () => {
    const fake = new FakeFetch().answer(clicked());
    const client = publisher(fake);
    await Promise.all([client.reportClick(ad('c1'), 'u1'), client.reportClick(ad('c1'), 'u1')]);
    await client.reportClick(JSON.parse(JSON.stringify(ad('c1'))) as ServedAd, 'u1');
    expect(fake.calls).toHaveLength(1);
  });

  it('keeps a refused report (a 4xx) without sending it again', async () => {
    const fake = new FakeFetch().answer(failure(400, 'eventData: no matching impression', [{ field: 'eventData', message: 'no matching impression' }]));
    const client = publisher(fake);
    await expect(client.reportClick(ad('c1'), 'u1')).rejects.toMatchObject({ status: 400, message: 'eventData: no matching impression' });
    await expect(client.reportClick(ad('c1'), 'u1')).rejects.toMatchObject({ status: 400 });
    expect(fake.calls).toHaveLength(1);
  });

  describe('with retries', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('retries a click report on network errors and 5xx with backoff, as one report', async () => {
      const fake = new FakeFetch().answer(new TypeError('fetch failed'), failure(502, 'bad gateway'), clicked());
      const client = publisher(fake);
      const first = client.reportClick(ad('c1'), 'u1');
      const second = client.reportClick(ad('c1'), 'u1');
      await jest.advanceTimersByTimeAsync(0);
      expect(fake.calls).toHaveLength(1);
      await jest.advanceTimersByTimeAsync(188);
      expect(fake.calls).toHaveLength(2);
      await jest.advanceTimersByTimeAsync(375);
      await expect(first).resolves.toEqual({ status: 'success', msg: 'click counted' });
      await expect(second).resolves.toEqual({ status: 'success', msg: 'click counted' });
      expect(fake.calls).toHaveLength(3);
    });

    it('honours Retry-After on a 429', async () => {
      const fake = new FakeFetch().answer(failure(429, 'too many requests', undefined, { 'retry-after': '2' }), clicked());
      const report = publisher(fake).reportClick(ad('c1'), 'u1');
      await jest.advanceTimersByTimeAsync(1999);
      expect(fake.calls).toHaveLength(1);
      await jest.advanceTimersByTimeAsync(1);
      await expect(report).resolves.toMatchObject({ status: 'success' });
      expect(fake.calls).toHaveLength(2);
    });

    it('forgets a report whose tries all went unanswered, so a later call may send it again', async () => {
      const fake = new FakeFetch().answer(new TypeError('fetch failed'), new TypeError('fetch failed'), clicked());
      const client = publisher(fake, { retry: { attempts: 2 } });
      const failed = client.reportClick(ad('c1'), 'u1').catch((caught: unknown) => caught);
      await jest.advanceTimersByTimeAsync(1000);
      expect(await failed).toBeInstanceOf(AdnetNetworkError);
      await expect(client.reportClick(ad('c1'), 'u1')).resolves.toMatchObject({ status: 'success' });
      expect(fake.calls).toHaveLength(3);
    });

    it('forgets a report its caller aborted', async () => {
      const fake = new FakeFetch().answer(failure(503, 'x'), clicked());
      const client = publisher(fake);
      const controller = new AbortController();
      const aborted = client.reportClick(ad('c1'), 'u1', { signal: controller.signal }).catch((caught: unknown) => caught);
      await jest.advanceTimersByTimeAsync(10);
      controller.abort();
      expect(await aborted).toMatchObject({ name: 'AbortError' });
      await expect(client.reportClick(ad('c1'), 'u1')).resolves.toMatchObject({ status: 'success' });
      expect(fake.calls).toHaveLength(2);
    });
  });
});

describe('AdnetPublisher: exchange', () => {
  const entry = (inId: string): ExchangeEntry => ({
    inExchangeCampaignId: inId,
    outExchangeCampaignId: 'mine',
    icon: 'https://cdn.example.test/i.png',
    text: 'Try it',
    destination: { actionType: 'open.miniapp', url: 'https://t.example/app' },
  });

  it('fetches entries for an exchange campaign and reports a click on one once', async () => {
    const fake = new FakeFetch().answer(envelope({ success: true, exchangeCampaigns: [entry('theirs')] }), json({ status: 'success' }));
    const client = publisher(fake);
    const [first] = await client.getExchangeAds({ exchangeCampaignId: 'mine', openId: 'u1', limit: 3 });
    expect(Object.fromEntries(fake.calls[0].url.searchParams)).toEqual({ exchangeCampaignId: 'mine', openId: 'u1', type: 'messenger', limit: '3' });
    const results = await Promise.all([client.reportExchangeClick(first, 'u1'), client.reportExchangeClick(first, 'u1')]);
    expect(results).toEqual([{ status: 'success' }, { status: 'success' }]);
    expect(fake.calls).toHaveLength(2);
    expect(fake.calls[1].url.pathname).toBe('/api/v2/openapi/exchange/event/report');
    expect(fake.bodies()[1]).toEqual({
      eventType: 'click',
      eventData: { messengerUserId: 'u1', inExchangeCampaignId: 'theirs', outExchangeCampaignId: 'mine' },
    });
  });
});
