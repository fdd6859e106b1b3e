import { describe, expect, it } from 'vitest';
import { describePage } from './PageError';

describe('describePage', () => {
  it('should name the page of a hash route in words', () => {
    expect(describePage('#/')).toBe('the dashboard');
    expect(describePage('#/campaigns')).toBe('the list of campaigns');
    expect(describePage('#/campaigns?filter=%7B%7D')).toBe('the list of campaigns');
    expect(describePage('#/adBlocks/create')).toBe('the form for a new ad block');
    expect(describePage('#/campaigns/01abc/show')).toBe('the page of campaign 01abc');
    expect(describePage('#/campaigns/01abc/show/charts')).toBe('the page of campaign 01abc');
    expect(describePage('#/exchangeCampaigns/01xyz')).toBe('the edit page of exchange campaign 01xyz');
    expect(describePage('#/profiles/import')).toBe('the profile import');
    expect(describePage('#/unknown')).toBe('the page /unknown');
  });
});
