/**
 * `@adnet/sdk/server`: everything of `@adnet/sdk`, plus what only your server may do because it needs your
 * account's webhook secret: check the signature of the service's verification calls and reward callbacks, and sign
 * viewer tokens.
 * Node only (node:crypto); never load it in a browser.
 */
import { Buffer } from 'node:buffer';
import { createHmac, timingSafeEqual } from 'node:crypto';

export * from './index.js';

/** The headers of the service's call to your verification endpoint (docs/CONTRACT.md §7). */
export const VERIFICATION_TIMESTAMP_HEADER = 'x-adnet-timestamp';
export const VERIFICATION_SIGNATURE_HEADER = 'x-adnet-signature';

export interface SignatureCheckOptions {
  /** How far the call's timestamp may be from now, either way (default 5 minutes). */
  toleranceMs?: number;
  /** The current time in ms (default Date.now()). */
  now?: number;
}

const HEX_SHA256 = /^[0-9a-f]{64}$/i;

/**
 * Whether a call to your verification endpoint comes from the network: `signature` (header `x-adnet-signature`)
 * must be the hex HMAC-SHA256 of `<timestamp>.<messengerId>` keyed with your webhook secret, where `timestamp` is
 * the header `x-adnet-timestamp` (ms) and `messengerId` the query's `messenger_id`; and the timestamp must be within
 * `toleranceMs` of now, so that a recorded call cannot be replayed later. Compared in constant time.
 */
export function verifyWebhookSignature(
  secret: string,
  timestamp: string | number,
  messengerId: string,
  signature: string,
  options: SignatureCheckOptions = {},
): boolean {
  const text = String(timestamp).trim();
  if (!/^\d{1,16}$/.test(text) || typeof signature !== 'string' || !HEX_SHA256.test(signature)) return false;
  const now = options.now ?? Date.now();
  if (Math.abs(now - Number(text)) > (options.toleranceMs ?? 5 * 60 * 1000)) return false;
  const expected = createHmac('sha256', secret).update(`${text}.${messengerId}`).digest();
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}

/** The most a viewer token may live (docs/SIGNED_VIEWERS.md). */
export const VIEWER_TOKEN_MAX_LIFETIME_MS = 24 * 60 * 60 * 1000;

/**
 * An `x-adnet-viewer` token for a user your server has authenticated (docs/SIGNED_VIEWERS.md): hand it to your
 * frontend, which passes it to `getAds` on blocks with `requireSignedViewer`. Sign only for users you really know.
 */
export function createViewerToken(openId: string, webhookSecret: string, options: { lifetimeMs?: number; now?: number } = {}): string {
  const lifetimeMs = options.lifetimeMs ?? 15 * 60 * 1000;
  if (!(lifetimeMs > 0 && lifetimeMs <= VIEWER_TOKEN_MAX_LIFETIME_MS)) throw new RangeError('lifetimeMs must be more than 0 and at most 24 hours');
  const expiresAtMs = Math.floor((options.now ?? Date.now()) + lifetimeMs);
  const signature = createHmac('sha256', webhookSecret).update(`${openId}.${expiresAtMs}`).digest('hex');
  return `${openId}.${expiresAtMs}.${signature}`;
}

/** The headers of a reward callback (docs/REWARDED_ADS.md). */
export const REWARD_TIMESTAMP_HEADER = 'x-adnet-timestamp';
export const REWARD_SIGNATURE_HEADER = 'x-adnet-signature';
export const REWARD_PREVIOUS_SIGNATURE_HEADER = 'x-adnet-signature-previous';

/** Request headers as Node's `req.headers` or a fetch `Headers` give them. */
export type HeaderSource = Record<string, string | string[] | undefined> | { get(name: string): string | null };

function headerOf(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const value = record[name] ?? Object.entries(record).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Whether a reward callback comes from the network (docs/REWARDED_ADS.md): `x-adnet-signature` (or, for 24 hours
 * after a rotation, `x-adnet-signature-previous`) must be the hex HMAC-SHA256 of `<x-adnet-timestamp>.<rawBody>`
 * keyed with `secret` (your webhook secret; several while you roll a new one out), and the timestamp within
 * `toleranceMs` of now. Pass the body exactly as received (a string or the raw bytes), not a re-serialized object.
 * Compared in constant time. Grant the reward once per `eventId`: retries and replays carry the same one.
 */
export function verifyRewardSignature(
  rawBody: string | Uint8Array,
  headers: HeaderSource,
  secret: string | readonly string[],
  options: SignatureCheckOptions = {},
): boolean {
  const timestamp = (headerOf(headers, REWARD_TIMESTAMP_HEADER) ?? '').trim();
  if (!/^\d{1,16}$/.test(timestamp)) return false;
  if (Math.abs((options.now ?? Date.now()) - Number(timestamp)) > (options.toleranceMs ?? 5 * 60 * 1000)) return false;
  const signatures = [REWARD_SIGNATURE_HEADER, REWARD_PREVIOUS_SIGNATURE_HEADER]
    .map((name) => headerOf(headers, name))
    .filter((value): value is string => typeof value === 'string' && HEX_SHA256.test(value))
    .map((value) => Buffer.from(value, 'hex'));
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const secrets = typeof secret === 'string' ? [secret] : secret;
  return secrets.some((key) => {
    const expected = createHmac('sha256', key).update(`${timestamp}.`).update(body).digest();
    return signatures.some((given) => timingSafeEqual(expected, given));
  });
}
