import type { IndexedCampaign } from './campaign-matcher';
import { toServedAd } from './serving.service';

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

export function servedAdsJson(msg: string, adBlockId: string, campaigns: readonly IndexedCampaign[]): string {
  const head = `{"adBlockId":${JSON.stringify(adBlockId)},`;
  let ads = '';
  for (let i = 0; i < campaigns.length; i++) ads += (i === 0 ? head : `,${head}`) + adTail(campaigns[i]);
  return `{"msg":${JSON.stringify(msg)},"success":true,"ads":[${ads}]}`;
}
