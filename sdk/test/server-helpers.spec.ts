import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { viewerTokenProblem } from '../../src/serving/signed-viewer';
import { callVerification, signVerification } from '../../src/verification/verification-call';
import { createViewerToken, VERIFICATION_SIGNATURE_HEADER, VERIFICATION_TIMESTAMP_HEADER, verifyWebhookSignature } from '../src/server';

const SECRET = 'whsec_0123456789abcdef0123456789abcdef';
const NOW = Date.UTC(2026, 2, 1, 9, 30, 0);

describe('verifyWebhookSignature against the service signing code', () => {
  it('accepts what the service signs, for any messenger id', () => {
    for (const messengerId of ['5512345678', 'user.with.dots', 'ünïcödé-🙂', '']) {
      const signature = signVerification(SECRET, NOW, messengerId);
      expect(verifyWebhookSignature(SECRET, NOW, messengerId, signature, { now: NOW })).toBe(true);
      expect(verifyWebhookSignature(SECRET, String(NOW), messengerId, signature.toUpperCase(), { now: NOW })).toBe(true);
    }
  });

  it('refuses another secret, another user, another timestamp or an altered signature', () => {
    const signature = signVerification(SECRET, NOW, '5512345678');
    expect(verifyWebhookSignature(`${SECRET}x`, NOW, '5512345678', signature, { now: NOW })).toBe(false);
    expect(verifyWebhookSignature(SECRET, NOW, '5512345679', signature, { now: NOW })).toBe(false);
    expect(verifyWebhookSignature(SECRET, NOW + 1, '5512345678', signature, { now: NOW })).toBe(false);
    const altered = (signature[0] === 'a' ? 'b' : 'a') + signature.slice(1);
    expect(verifyWebhookSignature(SECRET, NOW, '5512345678', altered, { now: NOW })).toBe(false);
  });

  it('refuses malformed input without throwing', () => {
    const signature = signVerification(SECRET, NOW, 'u');
    expect(verifyWebhookSignature(SECRET, NOW, 'u', signature.slice(0, 62), { now: NOW })).toBe(false);
    expect(verifyWebhookSignature(SECRET, NOW, 'u', `${signature}00`, { now: NOW })).toBe(false);
    expect(verifyWebhookSignature(SECRET, NOW, 'u', 'zz'.repeat(32), { now: NOW })).toBe(false);
    expect(verifyWebhookSignature(SECRET, NOW, 'u', undefined as unknown as string, { now: NOW })).toBe(false);
    expect(verifyWebhookSignature(SECRET, '1.5e12', 'u', signature, { now: NOW })).toBe(false);
    expect(verifyWebhookSignature(SECRET, '', 'u', signature, { now: NOW })).toBe(false);
  });

  it('refuses a timestamp outside the tolerance, either way (5 minutes by default)', () => {
    const signature = signVerification(SECRET, NOW, 'u');
    const fiveMinutes = 5 * 60 * 1000;
    expect(verifyWebhookSignature(SECRET, NOW, 'u', signature, { now: NOW + fiveMinutes })).toBe(true);
    expect(verifyWebhookSignature(SECRET, NOW, 'u', signature, { now: NOW + fiveMinutes + 1 })).toBe(false);
    expect(verifyWebhookSignature(SECRET, NOW, 'u', signature, { now: NOW - fiveMinutes - 1 })).toBe(false);
    expect(verifyWebhookSignature(SECRET, NOW, 'u', signature, { now: NOW + 60_000, toleranceMs: 59_999 })).toBe(false);
    expect(verifyWebhookSignature(SECRET, NOW, 'u', signature, { now: NOW + 60_000, toleranceMs: 60_000 })).toBe(true);
  });

  describe("the service's real verification call", () => {
    let server: Server;
    let received: IncomingMessage[] = [];
    let url: string;

    beforeAll(async () => {
      server = createServer((request, response) => {
        received.push(request);
        const messengerId = new URL(request.url ?? '/', 'http://x').searchParams.get('messenger_id') ?? '';
        const verified = verifyWebhookSignature(
          SECRET,
          String(request.headers[VERIFICATION_TIMESTAMP_HEADER]),
          messengerId,
          String(request.headers[VERIFICATION_SIGNATURE_HEADER]),
        );
        response.writeHead(verified ? 200 : 401, { 'content-type': 'text/plain' }).end(verified ? 'true' : 'bad signature');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/verify`;
    });
    afterAll(() => new Promise((resolve) => server.close(resolve)));
    beforeEach(() => (received = []));

    it('is accepted by an endpoint checking it with verifyWebhookSignature', async () => {
      const attempt = await callVerification({ url, messengerId: '5512345678', secret: SECRET, timestamp: Date.now(), timeoutMs: 5000, allowPrivate: true });
      expect(attempt).toMatchObject({ outcome: 'verified', httpStatus: 200 });
      expect(received).toHaveLength(1);
    });

    it('is refused when signed with another secret, or replayed after the tolerance', async () => {
      const forged = await callVerification({ url, messengerId: 'u', secret: 'another secret', timestamp: Date.now(), timeoutMs: 5000, allowPrivate: true });
      expect(forged).toMatchObject({ outcome: 'failed', httpStatus: 401 });
      const stale = await callVerification({
        url,
        messengerId: 'u',
        secret: SECRET,
        timestamp: Date.now() - 10 * 60 * 1000,
        timeoutMs: 5000,
        allowPrivate: true,
      });
      expect(stale).toMatchObject({ outcome: 'failed', httpStatus: 401 });
    });
  });
});

describe('createViewerToken against the service check', () => {
  it('makes a token the service accepts for that user only', () => {
    const token = createViewerToken('user.1', SECRET, { now: NOW, lifetimeMs: 60_000 });
    expect(token).toMatch(/^user\.1\.\d+\.[0-9a-f]{64}$/);
    expect(viewerTokenProblem(token, 'user.1', SECRET, NOW)).toBeNull();
    expect(viewerTokenProblem(token, 'user.2', SECRET, NOW)).toBe('was signed for another openId');
    expect(viewerTokenProblem(token, 'user.1', 'other secret', NOW)).toBe('has a signature that does not match');
    expect(viewerTokenProblem(token, 'user.1', SECRET, NOW + 60_000)).toBe('has expired');
  });

  it('lives 15 minutes by default and at most 24 hours', () => {
    const token = createViewerToken('u', SECRET, { now: NOW });
    expect(token.split('.')[1]).toBe(String(NOW + 15 * 60 * 1000));
    expect(viewerTokenProblem(createViewerToken('u', SECRET, { now: NOW, lifetimeMs: 24 * 60 * 60 * 1000 }), 'u', SECRET, NOW)).toBeNull();
    expect(() => createViewerToken('u', SECRET, { lifetimeMs: 24 * 60 * 60 * 1000 + 1 })).toThrow(RangeError);
    expect(() => createViewerToken('u', SECRET, { lifetimeMs: 0 })).toThrow(RangeError);
  });
});
