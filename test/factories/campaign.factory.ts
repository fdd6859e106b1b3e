const DAY = 24 * 60 * 60 * 1000;

/**
 * A valid create body; `overrides` merge into the nested objects. Its budget spends `asap`: the tests that count spend
 * exactly against a budget would otherwise depend on the time of day they run at (an `even` campaign is held back at
 * its pacing line); test/e2e/pacing.e2e-spec.ts covers `even`, the default of a body that names no pacing.
 */
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
    budget: { amount: 50, total: 1000, strategy: 'daily', startTime: now - DAY, endTime: now + 30 * DAY, pacing: 'asap', ...overrides.budget },
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
