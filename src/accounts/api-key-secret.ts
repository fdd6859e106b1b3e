import { createHash, randomBytes } from 'node:crypto';

const KEY_PREFIX = 'adn_';

/** A new API key: 32 random bytes (256 bits), shown once and stored only as its hash. */
export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function generateWebhookSecret(): string {
  return randomBytes(32).toString('hex');
}

/** An advertiser's postback token (docs/CONTRACT.md §20): 192 random bits, URL-safe. */
export function generatePostbackToken(): string {
  return `pbt_${randomBytes(24).toString('base64url')}`;
}
