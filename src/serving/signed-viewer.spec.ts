import { createHmac } from 'node:crypto';
import { MAX_VIEWER_TOKEN_LIFE_MS, viewerSignature, viewerTokenProblem } from './signed-viewer';

const SECRET = 'a'.repeat(64);
const NOW = 1_767_225_600_000;
const token = (openId: string, expiresAtMs: number | string, secret = SECRET) => `${openId}.${expiresAtMs}.${viewerSignature(secret, openId, expiresAtMs)}`;

describe('viewerTokenProblem', () => {
  it('should sign as the documented Node snippet does: hex HMAC-SHA256 of "<openId>.<expiresAtMs>" keyed with the secret', () => {
    expect(viewerSignature(SECRET, '5012345678', NOW)).toBe(createHmac('sha256', SECRET).update(`5012345678.${NOW}`).digest('hex'));
  });

  it('should accept a good token, also for an openId with dots and with an upper-case signature', () => {
    expect(viewerTokenProblem(token('5012345678', NOW + 1), '5012345678', SECRET, NOW)).toBeNull();
    expect(viewerTokenProblem(token('a.b.c', NOW + MAX_VIEWER_TOKEN_LIFE_MS), 'a.b.c', SECRET, NOW)).toBeNull();
    const upper = token('u', NOW + 1000).replace(/\.([0-9a-f]{64})$/, (_m, hex: string) => `.${hex.toUpperCase()}`);
    expect(viewerTokenProblem(upper, 'u', SECRET, NOW)).toBeNull();
  });

  it.each([
    [undefined, 'is required on this ad block (a viewer token made by your server)'],
    ['', 'is required on this ad block (a viewer token made by your server)'],
    ['u', 'must be <openId>.<expiresAtMs>.<hex HMAC-SHA256 signature>'],
    ['u.123', 'must be <openId>.<expiresAtMs>.<hex HMAC-SHA256 signature>'],
    [`.${NOW + 1000}.${'0'.repeat(64)}`, 'must be <openId>.<expiresAtMs>.<hex HMAC-SHA256 signature>'],
    [`u.-5.${'0'.repeat(64)}`, 'must be <openId>.<expiresAtMs>.<hex HMAC-SHA256 signature>'],
    [`u.1e20.${'0'.repeat(64)}`, 'must be <openId>.<expiresAtMs>.<hex HMAC-SHA256 signature>'],
    [`u.${NOW + 1000}.${'0'.repeat(63)}`, 'must be <openId>.<expiresAtMs>.<hex HMAC-SHA256 signature>'],
    [`u.${NOW + 1000}.${'g'.repeat(64)}`, 'must be <openId>.<expiresAtMs>.<hex HMAC-SHA256 signature>'],
    [`u.${NOW + 1000}.${'0'.repeat(64)}`, 'has a signature that does not match'],
    [token('u', NOW + 1000, 'b'.repeat(64)), 'has a signature that does not match'],
    [token('other', NOW + 1000), 'was signed for another openId'],
    [token('u', NOW), 'has expired'],
    [token('u', NOW - 1), 'has expired'],
    [token('u', NOW + MAX_VIEWER_TOKEN_LIFE_MS + 1), 'expires more than 24 hours ahead'],
  ])('should refuse %p for openId u: %s', (header, problem) => {
    expect(viewerTokenProblem(header, 'u', SECRET, NOW)).toBe(problem);
  });

  it('should not take a signature made for another expiry', () => {
    const good = token('u', NOW + 1000);
    const moved = good.replace(`.${NOW + 1000}.`, `.${NOW + 2000}.`);
    expect(viewerTokenProblem(moved, 'u', SECRET, NOW)).toBe('has a signature that does not match');
  });
});
