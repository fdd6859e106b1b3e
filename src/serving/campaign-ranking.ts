import type { IndexedCampaign } from './campaign-matcher';

/** Prior of the CTR estimate: a new CPC campaign is assumed to get 1 click per 100 impressions. */
const PRIOR_CLICKS = 1;
const PRIOR_IMPRESSIONS = 100;

/** CTR smoothed towards the prior, so a campaign with few impressions is neither buried nor overrated. */
export function smoothedCtr(clicks: number, impressions: number): number {
  return (clicks + PRIOR_CLICKS) / (impressions + PRIOR_IMPRESSIONS);
}

/** Expected revenue per 1000 impressions: the CPM bid, or the CPC bid times the estimated CTR times 1000. */
export function expectedRevenuePerMille(billingType: 'CPM' | 'CPC', costPerMicros: number, ctr: number): number {
  return billingType === 'CPM' ? costPerMicros : costPerMicros * ctr * 1000;
}

/** Highest expected revenue first; the id breaks ties so the order is stable. */
export function rankCampaigns(campaigns: IndexedCampaign[]): IndexedCampaign[] {
  return [...campaigns].sort(byRank);
}

/**
 * rankCampaigns of `current`, given the list it had before: the campaigns go to the sort in their previous order,
 * which the sort (TimSort) finishes in about one pass when few of them moved. Sorting 10,000 campaigns from scratch
 * at every refresh stalled serving for about 15 ms.
 */
export function rerankCampaigns(previous: readonly IndexedCampaign[], current: ReadonlyMap<string, IndexedCampaign>): IndexedCampaign[] {
  return inPreviousOrder(previous, current).sort(byRank);
}

/**
 * rerankCampaigns for the periodic refresh, with the event loop turning while it sorts: a bottom-up merge sort that
 * yields after about `slice` merged elements. Every refresh changes the CTR estimate of many CPC campaigns, so the
 * list is far from sorted, and sorting 10,000 campaigns in one go stalled serving for about 10 ms. The comparator is
 * a total order (ties broken by id), so the result is exactly rerankCampaigns's.
 */
export async function rerankCampaignsInSlices(
  previous: readonly IndexedCampaign[],
  current: ReadonlyMap<string, IndexedCampaign>,
  slice = 2000,
): Promise<IndexedCampaign[]> {
  let from = inPreviousOrder(previous, current);
  let to = new Array<IndexedCampaign>(from.length);
  const n = from.length;
  let budget = slice;
  for (let width = 1; width < n; width *= 2) {
    for (let left = 0; left < n; left += 2 * width) {
      const middle = Math.min(left + width, n);
      const right = Math.min(left + 2 * width, n);
      let i = left;
      let j = middle;
      let k = left;
      // two halves already in order one after the other (most of them, when few campaigns moved) are just copied
      if (middle < right && byRank(from[middle - 1], from[middle]) <= 0) {
        while (k < right) to[k++] = from[i++];
      } else {
        while (i < middle && j < right) to[k++] = byRank(from[i], from[j]) <= 0 ? from[i++] : from[j++];
        while (i < middle) to[k++] = from[i++];
        while (j < right) to[k++] = from[j++];
      }
      budget -= right - left;
      if (budget <= 0) {
        budget = slice;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    [from, to] = [to, from];
  }
  return from;
}

function inPreviousOrder(previous: readonly IndexedCampaign[], current: ReadonlyMap<string, IndexedCampaign>): IndexedCampaign[] {
  const ordered: IndexedCampaign[] = [];
  for (const before of previous) {
    const campaign = current.get(before.id);
    if (campaign !== undefined) ordered.push(campaign);
  }
  if (ordered.length < current.size) {
    const placed = new Set(ordered.map((campaign) => campaign.id));
    for (const campaign of current.values()) if (!placed.has(campaign.id)) ordered.push(campaign);
  }
  return ordered;
}

function byRank(a: IndexedCampaign, b: IndexedCampaign): number {
  return b.ecpmMicros - a.ecpmMicros || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
