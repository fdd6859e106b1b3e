import { AdnetError, AdnetNetworkError } from '../src/errors';
import { AdnetServerClient } from '../src/server-client';
import { parseRetryAfter, Transport, type ClientOptions } from '../src/transport';
import { envelope, failure, FakeFetch, hang, json } from './fake-fetch';

const BASE = 'https://ads.example.test';

/** random() = 0.5 puts every backoff at 3/4 of its ceiling: 188, 375, 750 ms for the default policy. */
function client(fake: FakeFetch, options: Partial<ClientOptions> = {}) {
  return new AdnetServerClient({ baseUrl: BASE, apiKey: 'adn_full', fetch: fake.fetch, random: () => 0.5, ...options });
}

/** Lets the promise chains of a call run (fetch answers, body reads) without moving the fake clock. */
async function settle(): Promise<void> {
  await jest.advanceTimersByTimeAsync(0);
}

describe('transport: envelope and errors', () => {
  it('answers the envelope data and sends the key, JSON and the path under /api/v2/openapi', async () => {
    const fake = new FakeFetch().answer(envelope({ result: 'success' }));
    await expect(client(fake, { baseUrl: `${BASE}/` }).campaigns.setStatus('c1', 'paused')).resolves.toEqual({ result: 'success' });
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0].url.toString()).toBe(`${BASE}/api/v2/openapi/ad/campaign/status`);
    expect(fake.calls[0].method).toBe('POST');
    expect(fake.calls[0].headers).toMatchObject({ 'x-api-key': 'adn_full', 'content-type': 'application/json', accept: 'application/json' });
    expect(fake.bodies()).toEqual([{ campaignId: 'c1', status: 'paused' }]);
  });

  it('answers the bare body of the endpoints without an envelope (conversion)', async () => {
    const fake = new FakeFetch().answer(json({ status: 'success' }));
    await expect(client(fake).sendConversion('user-1')).resolves.toEqual({ status: 'success' });
    expect(fake.bodies()).toEqual([{ eventType: 'conversion', eventData: { messengerUserId: 'user-1' } }]);
  });

  it('maps a failure envelope to an AdnetError with status, code, message, field errors and request id', async () => {
    const errors = [
      { field: 'budget.amount', message: 'budget.amount must be a positive number' },
      { field: 'ad.destination.url', message: 'ad.destination.url must be an absolute http(s) URL' },
    ];
    const fake = new FakeFetch().answer(failure(400, 'budget.amount must be a positive number', errors));
    const error = await client(fake)
      .campaigns.create({} as never)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AdnetError);
    expect(error).not.toBeInstanceOf(AdnetNetworkError);
    expect(error).toMatchObject({ name: 'AdnetError', status: 400, code: 400, message: 'budget.amount must be a positive number', requestId: 'req-400' });
    expect((error as AdnetError).fieldErrors).toEqual(errors);
    expect((error as AdnetError).fieldError('ad.destination.url')).toBe('ad.destination.url must be an absolute http(s) URL');
    expect(fake.calls).toHaveLength(1);
  });

  it('words a failure that is not an envelope (a proxy page) by its status', async () => {
    const fake = new FakeFetch().answer(new Response('<html>Bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }));
    const error = await client(fake, { retry: false })
      .campaigns.detail('c1')
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 502, code: 502, message: 'HTTP 502 Bad Gateway', fieldErrors: [] });
  });

  it('refuses to start without a base URL or a key', () => {
    expect(() => new Transport({ baseUrl: '', apiKey: 'k' })).toThrow('baseUrl is required');
    expect(() => new Transport({ baseUrl: BASE, apiKey: '' })).toThrow('apiKey is required');
  });
});

describe('transport: retries', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('retries a 5xx of an idempotent call with exponential backoff and jitter, then answers', async () => {
    const fake = new FakeFetch().answer(
      failure(503, 'not answered in time'),
      failure(500, 'internal error'),
      failure(503, 'x'),
      envelope({ campaignId: 'c1' }),
    );
    const call = client(fake).campaigns.detail('c1');
    await settle();
    expect(fake.calls).toHaveLength(1);
    // 1st wait: ceiling 250 ms, jittered to 188.
    await jest.advanceTimersByTimeAsync(187);
    expect(fake.calls).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(fake.calls).toHaveLength(2);
    // 2nd: ceiling 500 -> 375.
    await jest.advanceTimersByTimeAsync(374);
    expect(fake.calls).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(1);
    expect(fake.calls).toHaveLength(3);
    // 3rd: ceiling 1000 -> 750.
    await jest.advanceTimersByTimeAsync(749);
    expect(fake.calls).toHaveLength(3);
    await jest.advanceTimersByTimeAsync(1);
    await expect(call).resolves.toEqual({ campaignId: 'c1' });
    expect(fake.calls).toHaveLength(4);
  });

  it('jitters each wait between half and all of its ceiling', async () => {
    for (const [random, expected] of [
      [0, 125],
      [0.999, 250],
    ] as const) {
      const fake = new FakeFetch().answer(failure(503, 'x'), envelope({}));
      const call = client(fake, { random: () => random }).campaigns.detail('c1');
      await settle();
      await jest.advanceTimersByTimeAsync(expected - 1);
      expect(fake.calls).toHaveLength(1);
      await jest.advanceTimersByTimeAsync(1);
      await call;
      expect(fake.calls).toHaveLength(2);
    }
  });

  it('caps the backoff at maxDelayMs', async () => {
    const fake = new FakeFetch().answer(failure(503, 'x'), failure(503, 'x'), envelope({}));
    const call = client(fake, { random: () => 0.999, retry: { baseDelayMs: 1000, maxDelayMs: 1500 } }).campaigns.detail('c1');
    await settle();
    await jest.advanceTimersByTimeAsync(1000);
    expect(fake.calls).toHaveLength(2);
    // The 2nd ceiling would be 2000; capped at 1500, jittered to 1499.
    await jest.advanceTimersByTimeAsync(1498);
    expect(fake.calls).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(1);
    await call;
    expect(fake.calls).toHaveLength(3);
  });

  it('gives up after `attempts` tries with the last error', async () => {
    const fake = new FakeFetch();
    fake.fallback = failure(503, 'still busy');
    const call = client(fake).campaigns.detail('c1');
    const outcome = call.catch((caught: unknown) => caught);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(await outcome).toMatchObject({ status: 503, message: 'still busy' });
    expect(fake.calls).toHaveLength(4);
  });

  it('retries network errors of idempotent calls, and says so when they all fail', async () => {
    const fake = new FakeFetch();
    fake.fallback = new TypeError('fetch failed');
    const outcome = client(fake, { retry: { attempts: 2 } })
      .campaigns.detail('c1')
      .catch((caught: unknown) => caught);
    await jest.advanceTimersByTimeAsync(10_000);
    const error = await outcome;
    expect(error).toBeInstanceOf(AdnetNetworkError);
    expect(error).toMatchObject({ status: 0, timedOut: false, message: 'GET /api/v2/openapi/ad/campaign/detail: fetch failed' });
    expect(fake.calls).toHaveLength(2);
  });

  it('waits what Retry-After asks when it is longer than the backoff', async () => {
    const fake = new FakeFetch().answer(failure(429, 'too many requests', undefined, { 'retry-after': '3' }), envelope({ result: 'success' }));
    const call = client(fake).campaigns.setStatus('c1', 'start');
    await settle();
    await jest.advanceTimersByTimeAsync(2999);
    expect(fake.calls).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    await expect(call).resolves.toEqual({ result: 'success' });
    expect(fake.calls).toHaveLength(2);
  });

  it('does not wait for a Retry-After beyond maxRetryAfterMs: the error carries it', async () => {
    const fake = new FakeFetch().answer(failure(429, 'too many requests', undefined, { 'retry-after': '120' }));
    const error = await client(fake)
      .campaigns.detail('c1')
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 429, retryAfterMs: 120_000 });
    expect(fake.calls).toHaveLength(1);
  });

  it('never retries another 4xx', async () => {
    for (const status of [400, 401, 403, 404, 409, 413]) {
      const fake = new FakeFetch().answer(failure(status, `refused ${status}`));
      await expect(client(fake).campaigns.detail('c1')).rejects.toMatchObject({ status });
      expect(fake.calls).toHaveLength(1);
    }
  });

  it('repeats a create after a 5xx or no answer with the same Idempotency-Key on every try, a new one per call', async () => {
    const created = new FakeFetch().answer(failure(503, 'not answered in time'), new TypeError('fetch failed'), envelope({ campaignId: 'c1' }));
    const call = client(created).campaigns.create({} as never);
    await jest.advanceTimersByTimeAsync(5000);
    await expect(call).resolves.toEqual({ campaignId: 'c1' });
    const keys = created.calls.map((one) => one.headers['idempotency-key']);
    expect(keys).toHaveLength(3);
    expect(keys[0]).toMatch(/^[0-9a-f-]{32,40}$/);
    expect(new Set(keys).size).toBe(1);

    const next = new FakeFetch().answer(envelope({ adBlockId: 'b1' }));
    await client(next).adBlocks.create({ name: 'b' });
    expect(next.calls[0].headers['idempotency-key']).not.toBe(keys[0]);
  });

  it('repeats a call after a 429 or 408: it was not acted upon', async () => {
    const limited = new FakeFetch().answer(
      failure(429, 'too many requests', undefined, { 'retry-after': '1' }),
      failure(408, 'request timeout'),
      envelope({ campaignId: 'c9' }),
    );
    const call = client(limited).campaigns.create({} as never);
    await jest.advanceTimersByTimeAsync(5000);
    await expect(call).resolves.toEqual({ campaignId: 'c9' });
    expect(limited.calls).toHaveLength(3);
  });

  it('tries once when retry is false', async () => {
    const fake = new FakeFetch().answer(failure(503, 'x'));
    await expect(client(fake, { retry: false }).campaigns.detail('c1')).rejects.toMatchObject({ status: 503 });
    expect(fake.calls).toHaveLength(1);
  });
});

describe('transport: timeout and abort', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('ends a try that gets no answer within timeoutMs as a timed-out network error', async () => {
    const fake = new FakeFetch().answer(hang);
    const outcome = client(fake, { retry: false, timeoutMs: 2000 })
      .campaigns.detail('c1')
      .catch((caught: unknown) => caught);
    await jest.advanceTimersByTimeAsync(1999);
    expect(fake.calls).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    const error = await outcome;
    expect(error).toBeInstanceOf(AdnetNetworkError);
    expect(error).toMatchObject({ timedOut: true, message: 'GET /api/v2/openapi/ad/campaign/detail: no answer within 2000 ms' });
  });

  it('retries a timed-out try of an idempotent call; the call option replaces the client timeout', async () => {
    const fake = new FakeFetch().answer(hang, envelope({ campaignId: 'c1' }));
    const call = client(fake, { timeoutMs: 60_000 }).campaigns.detail('c1', { timeoutMs: 500 });
    await jest.advanceTimersByTimeAsync(500 + 188);
    await expect(call).resolves.toEqual({ campaignId: 'c1' });
    expect(fake.calls).toHaveLength(2);
  });

  it('rejects with the signal reason when the caller aborts during a try, and does not retry', async () => {
    const fake = new FakeFetch().answer(hang);
    const controller = new AbortController();
    const outcome = client(fake)
      .campaigns.detail('c1', { signal: controller.signal })
      .catch((caught: unknown) => caught);
    await settle();
    const reason = new Error('page closed');
    controller.abort(reason);
    expect(await outcome).toBe(reason);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(fake.calls).toHaveLength(1);
  });

  it('stops waiting between tries when the caller aborts', async () => {
    const fake = new FakeFetch().answer(failure(503, 'x'), envelope({}));
    const controller = new AbortController();
    const outcome = client(fake)
      .campaigns.detail('c1', { signal: controller.signal })
      .catch((caught: unknown) => caught);
    await jest.advanceTimersByTimeAsync(100);
    controller.abort();
    expect(await outcome).toMatchObject({ name: 'AbortError' });
    await jest.advanceTimersByTimeAsync(10_000);
    expect(fake.calls).toHaveLength(1);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const fake = new FakeFetch().answer(envelope({}));
    const controller = new AbortController();
    controller.abort(new Error('too late'));
    await expect(client(fake).campaigns.detail('c1', { signal: controller.signal })).rejects.toThrow('too late');
    expect(fake.calls).toHaveLength(0);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);
  it('reads seconds and HTTP dates, and ignores the rest', () => {
    expect(parseRetryAfter('7', now)).toBe(7000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Thu, 01 Jan 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });
});
