import { ExchangeCampaign } from './entities/exchange-campaign.entity';
import { normalizeTargeting, toResponse } from './exchange-campaigns.service';

describe('exchange campaign shapes', () => {
  describe(normalizeTargeting.name, () => {
    it('should fill every list, normalise code case and drop repeats', () => {
      expect(normalizeTargeting({}, { includedRegions: ['us', 'US', 'de'], includedLanguages: ['EN'] })).toEqual({
        includedRegions: ['US', 'DE'],
        excludedRegions: [],
        includedLanguages: ['en'],
        excludedLanguages: [],
      });
      expect(normalizeTargeting({}, undefined)).toEqual({ includedRegions: [], excludedRegions: [], includedLanguages: [], excludedLanguages: [] });
    });

    it('should replace the lists given and keep the others', () => {
      const previous = { includedRegions: ['US'], excludedRegions: ['CN'], includedLanguages: ['en'], excludedLanguages: [] };
      expect(normalizeTargeting(previous, { includedRegions: [], excludedLanguages: ['fr'] })).toEqual({
        includedRegions: [],
        excludedRegions: ['CN'],
        includedLanguages: ['en'],
        excludedLanguages: ['fr'],
      });
    });
  });

  describe(toResponse.name, () => {
    it('should answer the balance as clicks sent minus received and ctr over its own impressions', () => {
      const campaign = Object.assign(new ExchangeCampaign(), {
        id: 'x1',
        accountId: 'p1',
        name: 'n',
        status: 'onGoing',
        icon: 'https://x/i.png',
        image: null,
        text: 't',
        actionType: 'visit.website',
        destinationUrl: 'https://x',
        targeting: { includedRegions: [], excludedRegions: [], includedLanguages: [], excludedLanguages: [] },
        impressions: 8,
        impressionsSent: 20,
        clicksSent: 3,
        clicksReceived: 2,
        version: 1,
        createdAt: 1,
        updatedAt: 2,
      });
      expect(toResponse(campaign)).toEqual(expect.objectContaining({ exchangeCampaignId: 'x1', id: 'x1', userId: 'p1', balance: 1, ctr: 0.25, image: null }));
      expect(toResponse({ ...campaign, impressions: 0 } as ExchangeCampaign).ctr).toBe(0);
    });
  });
});
