const DAY = 24 * 60 * 60 * 1000;

/** A valid create body; `overrides` merge into the nested objects. */
export function campaignBody(
  overrides: {
    name?: string;
    targeting?: Record<string, unknown>;
    budget?: Record<string, unknown>;
    bidding?: Record<string, unknown>;
    ad?: Record<string, unknown>;
  } = {},
) {
  const now = Date.now();
  return {
    name: overrides.name ?? 'Winter launch',
    targeting: { includedRegions: ['US', 'DE'], includedLanguages: ['en'], platform: 'All', ...overrides.targeting },
    budget: { amount: 50, total: 1000, strategy: 'daily', startTime: now - DAY, endTime: now + 30 * DAY, ...overrides.budget },
    bidding: { billingType: 'CPM', costPer: 2.5, ...overrides.bidding },
    ad: {
      adFormat: 'image',
      popupImage: 'https://cdn.example.com/ad.png',
      icon: 'https://cdn.example.com/icon.png',
      destination: { actionType: 'visit.website', url: 'https://example.com/landing' },
      text: 'Play the best puzzle game',
      brandName: 'Acme Games',
      buttonText: 'Play now',
      ...overrides.ad,
    },
  };
}
