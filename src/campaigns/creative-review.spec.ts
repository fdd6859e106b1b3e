import { ConflictError } from '../common/errors';
import { approval, creativeOf, rejection, resubmitted, reviewKindOf, reviseCreative } from './creative-review';
import type { Campaign, CampaignCreative } from './entities/campaign.entity';

const APPROVED: CampaignCreative = {
  adFormat: 'image',
  popupImage: 'https://cdn.example/a.png',
  icon: 'https://cdn.example/i.png',
  actionType: 'visit.website',
  destinationUrl: 'https://landing.example/',
  text: 'Play',
  brandName: 'Acme',
  buttonText: 'Go',
};

function campaign(fields: Partial<Campaign> = {}): Campaign {
  return {
    ...APPROVED,
    approved: true,
    status: 'onGoing',
    reviewStatus: 'approved',
    reviewNote: '',
    pendingAd: null,
    reviewRequestedAt: 0,
    ...fields,
  } as Campaign;
}

describe('creative review', () => {
  const edited = { ...APPROVED, destinationUrl: 'https://elsewhere.example/' };

  it('should make an edited creative a pending revision, keeping its place when one already waits', () => {
    expect(reviseCreative(campaign(), edited, 100)).toEqual({ reviewStatus: 'pending', reviewNote: '', pendingAd: edited, reviewRequestedAt: 100 });
    const waiting = campaign({ reviewStatus: 'pending', pendingAd: edited, reviewRequestedAt: 50 });
    expect(reviseCreative(waiting, { ...edited, text: 'More' }, 100)).toEqual(expect.objectContaining({ reviewRequestedAt: 50 }));
    // the same revision again changes nothing; the approved creative again withdraws it
    expect(reviseCreative(waiting, edited, 100)).toBeNull();
    expect(reviseCreative(waiting, APPROVED, 100)).toEqual({ reviewStatus: 'approved', reviewNote: '', pendingAd: null, reviewRequestedAt: 0 });
    expect(reviseCreative(campaign(), APPROVED, 100)).toBeNull();
  });

  it('should swap a revision in on approval, and approve a new campaign', () => {
    const waiting = campaign({ reviewStatus: 'pending', pendingAd: edited, reviewRequestedAt: 50 });
    expect(creativeOf({ ...waiting, ...approval(waiting) } as Campaign)).toEqual(edited);
    expect(approval(waiting)).toEqual(expect.objectContaining({ reviewStatus: 'approved', pendingAd: null, reviewRequestedAt: 0 }));
    const fresh = campaign({ approved: false, status: 'inReview', reviewStatus: 'pending', reviewRequestedAt: 10 });
    expect(reviewKindOf(fresh)).toBe('new');
    expect(approval(fresh)).toEqual(expect.objectContaining({ approved: true, status: 'onGoing', reviewStatus: 'approved' }));
    expect(approval({ ...fresh, status: 'paused' } as Campaign)).toEqual(expect.objectContaining({ approved: true, status: 'paused' }));
  });

  it('should discard a revision on rejection, keep a new campaign waiting for an edit, and refuse when nothing waits', () => {
    const waiting = campaign({ reviewStatus: 'pending', pendingAd: edited, reviewRequestedAt: 50 });
    expect(rejection(waiting, 'no')).toEqual({ reviewStatus: 'rejected', reviewNote: 'no', pendingAd: null, reviewRequestedAt: 0 });
    const rejectedNew = campaign({ approved: false, status: 'inReview', reviewStatus: 'rejected', reviewNote: 'no' });
    expect(resubmitted(rejectedNew, 70)).toEqual({ reviewStatus: 'pending', reviewNote: '', pendingAd: null, reviewRequestedAt: 70 });
    expect(resubmitted(campaign(), 70)).toBeNull();
    expect(() => approval(campaign())).toThrow(ConflictError);
    expect(() => rejection(rejectedNew, 'again')).toThrow(ConflictError);
  });
});
