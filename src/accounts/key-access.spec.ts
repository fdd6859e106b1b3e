import { accessRefusal, keyAccessRefusal, ORIGIN_PATTERN, rateLimitBucket, roleRefusal } from './key-access';
import type { Principal } from './principal';

const principal = (overrides: Partial<Principal> = {}): Principal => ({
  accountId: 'a1',
  keyId: 'k1',
  roles: ['publisher'],
  sandbox: false,
  scope: 'full',
  allowedOrigins: null,
  ...overrides,
});
const PUBLISHABLE = { publishableKeyAllowed: true };
const OTHER = { publishableKeyAllowed: false };

describe('keyAccessRefusal', () => {
  it('should let a full key call every route, from any origin when it has no list', () => {
    expect(keyAccessRefusal(principal(), OTHER, 'https://anywhere.example')).toBeNull();
    expect(keyAccessRefusal(principal(), PUBLISHABLE, undefined)).toBeNull();
  });

  it('should keep a serve key to the publishable routes', () => {
    expect(keyAccessRefusal(principal({ scope: 'serve' }), PUBLISHABLE, undefined)).toBeNull();
    const refusal = keyAccessRefusal(principal({ scope: 'serve' }), OTHER, undefined);
    expect(refusal?.status).toBe(403);
    expect(refusal?.message).toContain('publishable (serve) key');
  });

  it('should refuse a browser origin off the list and accept the listed ones and requests without Origin', () => {
    const locked = principal({ scope: 'serve', allowedOrigins: ['https://app.example.com'] });
    expect(keyAccessRefusal(locked, PUBLISHABLE, 'https://app.example.com')).toBeNull();
    expect(keyAccessRefusal(locked, PUBLISHABLE, undefined)).toBeNull();
    for (const origin of ['https://evil.example.com', 'http://app.example.com', 'https://app.example.com:8443', 'https://APP.example.com', 'null', '']) {
      expect(keyAccessRefusal(locked, PUBLISHABLE, origin)?.status).toBe(403);
    }
  });

  it('should check the scope before the origin', () => {
    const refusal = keyAccessRefusal(principal({ scope: 'serve', allowedOrigins: ['https://app.example.com'] }), OTHER, 'https://evil.example.com');
    expect(refusal?.message).toContain('publishable (serve) key');
  });
});

describe('rateLimitBucket', () => {
  it('should count per key and client IP on the publishable routes, per key elsewhere', () => {
    expect(rateLimitBucket(principal(), PUBLISHABLE, '8.8.8.8')).toBe('k1 8.8.8.8');
    expect(rateLimitBucket(principal(), PUBLISHABLE, '8.8.4.4')).not.toBe(rateLimitBucket(principal(), PUBLISHABLE, '8.8.8.8'));
    expect(rateLimitBucket(principal(), OTHER, '8.8.8.8')).toBe('k1');
    expect(rateLimitBucket(principal(), OTHER, '8.8.4.4')).toBe('k1');
  });
});

describe('ORIGIN_PATTERN', () => {
  it.each(['https://app.example.com', 'http://localhost:5173', 'http://127.0.0.1:8080', 'http://[::1]:3000', 'https://xn--bcher-kva.example'])(
    'should accept %s',
    (origin) => {
      expect(ORIGIN_PATTERN.test(origin)).toBe(true);
    },
  );

  it.each([
    'app.example.com',
    'https://app.example.com/',
    'https://app.example.com/path',
    'https://app.example.com?q',
    'ftp://app.example.com',
    'https://',
    '*',
    'https://user@app.example.com',
    'https://-bad.example.com',
    'https://app.example.com:123456',
  ])('should refuse %s', (origin) => {
    expect(ORIGIN_PATTERN.test(origin)).toBe(false);
  });
});

describe('roleRefusal and accessRefusal', () => {
  it('should pass an account holding one of the roles, or admin, and any account when the route names none', () => {
    expect(roleRefusal(principal(), ['publisher'])).toBeNull();
    expect(roleRefusal(principal(), ['advertiser', 'publisher'])).toBeNull();
    expect(roleRefusal(principal({ roles: ['admin'] }), ['partner'])).toBeNull();
    expect(roleRefusal(principal(), undefined)).toBeNull();
  });

  it('should refuse an account lacking every role with a 403 naming them', () => {
    const refusal = roleRefusal(principal({ roles: ['advertiser'] }), ['publisher', 'partner']);
    expect({ status: refusal?.status, message: refusal?.message }).toEqual({ status: 403, message: "this key's account lacks the publisher or partner role" });
  });

  it('should check scope, then origin, then role', () => {
    const serveAdvertiser = principal({ scope: 'serve', roles: ['advertiser'], allowedOrigins: ['https://app.example.com'] });
    expect(accessRefusal(serveAdvertiser, { publishableKeyAllowed: false, roles: ['publisher'] }, 'https://evil.example')?.message).toContain(
      'publishable (serve) key',
    );
    expect(accessRefusal(serveAdvertiser, { publishableKeyAllowed: true, roles: ['publisher'] }, 'https://evil.example')?.message).toBe(
      'this key is not allowed from origin https://evil.example',
    );
    expect(accessRefusal(serveAdvertiser, { publishableKeyAllowed: true, roles: ['publisher'] }, 'https://app.example.com')?.message).toBe(
      "this key's account lacks the publisher role",
    );
    expect(accessRefusal(serveAdvertiser, { publishableKeyAllowed: true, roles: ['advertiser'] }, 'https://app.example.com')).toBeNull();
  });
});
