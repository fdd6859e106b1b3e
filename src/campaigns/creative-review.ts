/**
 * Creative review with revisions (docs/CONTRACT.md §18), as pure decisions over a campaign row: what an update, an
 * approval and a rejection write. The ad columns always hold the approved creative, the one serving; a revision waits
 * in `pendingAd` until an admin approves it (the swap is one conditional UPDATE of the row: it happens whole or not).
 */
import { ConflictError } from '../common/errors';
import type { Campaign, CampaignCreative } from './entities/campaign.entity';

/** What review covers: the creative and the category (blocks refuse categories, docs/CONTRACT.md §18). */
export const CREATIVE_COLUMNS = ['adFormat', 'popupImage', 'icon', 'actionType', 'destinationUrl', 'text', 'brandName', 'buttonText', 'category'] as const;

export type ReviewKind = 'new' | 'revision';

type ReviewFields = Pick<Campaign, 'reviewStatus' | 'reviewNote' | 'pendingAd' | 'reviewRequestedAt'>;

export function creativeOf(campaign: CampaignCreative): CampaignCreative {
  return Object.fromEntries(CREATIVE_COLUMNS.map((column) => [column, campaign[column]])) as unknown as CampaignCreative;
}

export function sameCreative(a: CampaignCreative, b: CampaignCreative): boolean {
  // a revision stored before categories were reviewed has none: it keeps the category
  return CREATIVE_COLUMNS.every((column) => a[column] === b[column] || (column === 'category' && (a[column] === undefined || b[column] === undefined)));
}

/** What waits: a campaign never approved is `new`, an approved one with a pending creative a `revision`. */
export function reviewKindOf(campaign: Pick<Campaign, 'approved'>): ReviewKind {
  return campaign.approved ? 'revision' : 'new';
}

/**
 * An advertiser's edit of an approved campaign's creative under review: the approved creative keeps serving and the
 * edited one (merged onto the revision already waiting, if any) waits. Setting it back to the approved one withdraws
 * the revision. Answers null when the creative the campaign would have does not change.
 */
export function reviseCreative(campaign: Campaign, edited: CampaignCreative, now: number): ReviewFields | null {
  const approved = creativeOf(campaign);
  if (sameCreative(edited, approved)) {
    if (campaign.pendingAd === null) return null;
    return { reviewStatus: 'approved', reviewNote: '', pendingAd: null, reviewRequestedAt: 0 };
  }
  if (campaign.pendingAd !== null && sameCreative(edited, campaign.pendingAd)) return null;
  return {
    reviewStatus: 'pending',
    reviewNote: '',
    pendingAd: edited,
    // an edit of a revision already waiting keeps its place in the queue
    reviewRequestedAt: campaign.reviewStatus === 'pending' && campaign.reviewRequestedAt > 0 ? campaign.reviewRequestedAt : now,
  };
}

/** A rejected new campaign edited by its advertiser waits for review again. */
export function resubmitted(campaign: Campaign, now: number): ReviewFields | null {
  if (campaign.approved || campaign.reviewStatus !== 'rejected') return null;
  return { reviewStatus: 'pending', reviewNote: '', pendingAd: null, reviewRequestedAt: now };
}

/**
 * An admin's approval: a new campaign becomes approved (and `onGoing` when it was `inReview`); a revision's creative
 * replaces the approved one. 409 when nothing waits.
 */
export function approval(campaign: Campaign): Partial<Campaign> {
  assertWaiting(campaign);
  const decided = { reviewStatus: 'approved' as const, reviewNote: '', pendingAd: null, reviewRequestedAt: 0 };
  if (!campaign.approved) return { ...decided, approved: true, status: campaign.status === 'inReview' ? 'onGoing' : campaign.status };
  return { ...decided, ...creativeOf({ ...creativeOf(campaign), ...campaign.pendingAd! }) };
}

/**
 * An admin's rejection with its note: a new campaign stays `inReview` (rejected until its advertiser edits it); a
 * revision is discarded and the approved creative keeps serving. 409 when nothing waits.
 */
export function rejection(campaign: Campaign, note: string): Partial<Campaign> {
  assertWaiting(campaign);
  return { reviewStatus: 'rejected', reviewNote: note, pendingAd: null, reviewRequestedAt: 0 };
}

function assertWaiting(campaign: Campaign): void {
  const waiting = campaign.reviewStatus === 'pending' && (!campaign.approved || campaign.pendingAd !== null);
  if (!waiting) throw new ConflictError('campaignId: nothing of this campaign waits for review');
}
