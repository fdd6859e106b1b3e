import type { BlockControls } from '../ad-blocks/ad-blocks.service';
import { blockingDomain } from '../common/hosts';
import type { IndexedCampaign } from './campaign-matcher';

/** The block control that keeps a campaign off a block (docs/CONTRACT.md §18), in the order they are checked. */
export type ControlRule = 'floor' | 'category' | 'domain';

type Controlled = Pick<IndexedCampaign, 'billingType' | 'costPerMicros' | 'category' | 'destinationHost'>;

/**
 * Which control of the block refuses the campaign, or null when none does. The serving index runs it once per
 * campaign and controls (a bitset per block's controls, match-cache.ts), not per request; the diagnosis words it.
 */
export function refusedBy(controls: BlockControls, campaign: Controlled): ControlRule | null {
  const floor = campaign.billingType === 'CPM' ? controls.floorCpmMicros : controls.floorCpcMicros;
  if (campaign.costPerMicros < floor) return 'floor';
  if (controls.blockedCategories.has(campaign.category ?? 'other')) return 'category';
  if (controls.blockedDomains.length > 0 && blockingDomain(campaign.destinationHost ?? '', controls.blockedDomains) !== null) return 'domain';
  return null;
}
