import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The ton-ai-sdk's salt: the hex of each character code of `Ton.AI` times three, as its `generateSalt` computes it.
 */
export const SDK_SALT = [...'Ton.AI'].map((char) => (char.charCodeAt(0) * 3).toString(16)).join('');

/** The fields the SDK's postAdEvent signs (num only when it sends one): missing ones were signed as `undefined`. */
export const SIGNED_AD_FIELDS = ['campaignId', 'adId', 'adBlockId', 'type', 'openId', 'uuid', 'timestamp'] as const;
/** The fields the SDK's postExchangeEvent signs (SendTonExchangeEvent's, with the default `source`). */
export const SIGNED_EXCHANGE_FIELDS = ['outExchangeCampaignId', 'inExchangeCampaignId', 'telegramUserId', 'source', 'timestamp'] as const;

/**
 * The `sign` the ton-ai-sdk 2.2.2 puts on its event reports (`signRequest`): lower-case hex MD5 of the event data's
 * fields sorted by name as `name=value` joined by `&`, then `&appKey=<app id, else app key>&salt=<SDK_SALT>`. The SDK
 * signs every field it builds, also those left undefined (written `undefined`), which JSON then drops from the body:
 * `signedFields` names them, so a field missing from the body is signed as `undefined`; other fields count when the
 * body has them. Values are written as JavaScript writes them into a template string.
 */
export function sdkSign(eventData: Record<string, unknown>, signedFields: readonly string[], appKey: string): string {
  const sent = Object.keys(eventData).filter((name) => eventData[name] !== undefined);
  const names = [...new Set([...signedFields, ...sent])].sort();
  const text = names.map((name) => `${name}=${String(eventData[name])}`).join('&') + `&appKey=${appKey}&salt=${SDK_SALT}`;
  return createHash('md5').update(text, 'utf8').digest('hex');
}

/** Whether `sign` is the one sdkSign makes (compared in constant time). */
export function isSdkSign(sign: string, eventData: Record<string, unknown>, signedFields: readonly string[], appKey: string): boolean {
  const expected = Buffer.from(sdkSign(eventData, signedFields, appKey), 'utf8');
  const given = Buffer.from(sign.toLowerCase(), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
