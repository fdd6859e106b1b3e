import { describe, expect, it } from 'vitest';
import { checkLabel, DeliveryDiagnosis, verdictOf, rankText } from './diagnosis';

const base: DeliveryDiagnosis = {
  campaignId: 'c1',
  adBlockId: null,
  servable: true,
  facts: { ip: '127.0.0.1', country: null, language: 'en', platform: 'iOS', openId: null, profile: false, invalidTraffic: null },
  checks: [
    { check: 'status', passed: true, detail: 'onGoing and approved' },
    { check: 'traffic', passed: false, detail: 'invalid traffic' },
  ],
  rank: { position: 1, servableCampaigns: 1, limit: 1, served: true },
  ads: null,
};

describe('delivery test verdict', () => {
  it('should say a servable campaign is shown, whatever the traffic verdict', () => {
    expect(verdictOf(base)).toBe('This ad would be shown');
  });

  it('should name the first failing check of a campaign that is not shown, in the panel’s words', () => {
    const regions = { check: 'targeting.includedRegions', passed: false, detail: 'no country for 127.0.0.1' };
    expect(verdictOf({ ...base, servable: false, checks: [...base.checks, regions] })).toBe('Not shown — Regions: no country for 127.0.0.1');
    expect(checkLabel('targeting.messengerPremium')).toBe('Premium users only');
    expect(checkLabel('something.new')).toBe('something.new');
  });

  it('should count the ads a block would show', () => {
    const block = { ...base, campaignId: null, rank: null, ads: [{ campaignId: 'a', adId: 'ad_a', brandName: 'A' }] };
    expect(verdictOf(block)).toBe('1 ad would be shown');
    expect(verdictOf({ ...block, servable: false, ads: [], checks: [] })).toBe('No ads would be shown: no campaign matches these facts');
  });
});

describe('rankText', () => {
  it('should say a campaign that would not serve is not ranked, instead of "rank — of 1"', () => {
    expect(rankText({ position: null, servableCampaigns: 1, limit: 1 })).toBe('not ranked (it would not serve); 1 servable campaign for 1 ad asked');
    expect(rankText({ position: 2, servableCampaigns: 3, limit: 3 })).toBe('rank 2 of 3 servable campaigns for 3 ads asked');
  });
});
