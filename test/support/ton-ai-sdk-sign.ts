import { createHash } from 'node:crypto';

/**
 * An event report as the ton-ai-sdk 2.2.2 sends it, signed by its signRequest (written from its source): the event
 * data's fields sorted by name as `name=value` (undefined ones too, written `undefined`, though JSON then drops them),
 * then `&appKey=<app id, else app key>&salt=<hex of each char code of "Ton.AI" times 3>`, md5 in lower-case hex.
 */
export function sdkSigned(eventType: string, eventData: Record<string, unknown>, appKey: string) {
  const salt = [...'Ton.AI'].map((char) => (char.charCodeAt(0) * 3).toString(16)).join('');
  const text =
    Object.keys(eventData)
      .sort()
      .map((key) => `${key}=${eventData[key]}`)
      .join('&') + `&appKey=${appKey}&salt=${salt}`;
  return { eventType, eventData, sign: createHash('md5').update(text).digest('hex') };
}

/** The event data of the SDK's postAdEvent (campaign, ad and block undefined for a conversion). */
export function sdkAdEventData(ad: { campaignId?: string; adId?: string; adBlockId?: string } | null, openId: string) {
  return { campaignId: ad?.campaignId, adId: ad?.adId, adBlockId: ad?.adBlockId, type: 'telegram', openId, uuid: '2854123301', timestamp: Date.now() };
}

/** The event data of the SDK's postExchangeEvent (SendTonExchangeEvent's fields and its default `source`). */
export function sdkExchangeEventData(entry: { inExchangeCampaignId?: string; outExchangeCampaignId?: string }, telegramUserId: string) {
  return {
    outExchangeCampaignId: entry.outExchangeCampaignId,
    inExchangeCampaignId: entry.inExchangeCampaignId,
    telegramUserId,
    source: 'user',
    timestamp: Date.now(),
  };
}
