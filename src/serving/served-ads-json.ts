import type { IndexedCampaign } from './campaign-matcher';
import { toServedAd, usesMacros } from './serving.service';

/**
 * The data of endpoint 5's answer as JSON text, the same bytes as JSON.stringify of the data the controller returns.
 * Everything of a served ad but its block is fixed per indexed campaign, so that part is serialized once per campaign
 * version (the index builds a new object on every change, so the cache cannot go stale).
 */
const adTails = new WeakMap<IndexedCampaign, string>();

function adTail(campaign: IndexedCampaign): string {
  let tail = adTails.get(campaign);
  if (tail === undefined) {
    // `{"adBlockId":"",` is the fixed head of every served ad; the rest depends only on the campaign.
    tail = JSON.stringify(toServedAd(campaign, '')).slice('{"adBlockId":"",'.length);
    adTails.set(campaign, tail);
  }
  return tail;
}

/** `clickIds`: each ad's click id (ServingService.serve); an ad whose destination has macros is serialized whole. */
export function servedAdsJson(msg: string, adBlockId: string, campaigns: readonly IndexedCampaign[], clickIds: readonly (string | null)[] = []): string {
  const head = `{"adBlockId":${JSON.stringify(adBlockId)},`;
  let ads = '';
  for (let i = 0; i < campaigns.length; i++) {
    if (i > 0) ads += ',';
    ads += usesMacros(campaigns[i]) ? JSON.stringify(toServedAd(campaigns[i], adBlockId, clickIds[i] ?? null)) : head + adTail(campaigns[i]);
  }
  return `{"msg":${JSON.stringify(msg)},"success":true,"ads":[${ads}]}`;
}
